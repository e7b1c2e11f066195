"""A persistent NLI pair store for benchmark scripts: every (premise, hypothesis) pair a model
scored once is read back from SQLite on later runs, so a scoreboard rerun after an engine change
(claim filter, gate rule, config) costs only the pairs it has never seen.

Keyed on the model's weights (a digest of its files), so a retrained model never reads another
model's scores. Benchmark tooling only: the engine keeps its in-memory LRU (``CachedNLI``).

The SQLite store is local and ignored by git; a fresh checkout starts with a committed seed
(:mod:`benchmarks.pair_seed`, one file per model digest under ``benchmarks/data/pair-seed``),
read where the store misses, so it does not score again what the committed scoreboard scored.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.pair_seed import SEED_DIR, PairSeed

__all__ = [
    "DEFAULT_STORE",
    "PersistentEmbedder",
    "PersistentNLI",
    "model_digest",
    "open_pair_table",
    "stored_models",
]

#: The scoreboard's pair store; the vectors live beside it (``vectors.sqlite``).
DEFAULT_STORE = Path(__file__).resolve().parent / ".cache" / "pairs.sqlite"


def model_digest(path: str | Path) -> str:
    """SHA-1 over the weight and config files of a local model folder (16 hex digits). The
    int8 calibration ranges (``int8-*``) are not read by the fp32 model and do not count."""
    folder = Path(path)
    h = hashlib.sha1()
    for name in sorted(p.name for p in folder.iterdir() if p.is_file()):
        if name.endswith((".safetensors", ".bin", ".json", ".txt")) and not name.startswith(
            "int8-"
        ):
            h.update(name.encode())
            h.update((folder / name).read_bytes())
    return h.hexdigest()[:16]


class PersistentNLI:
    """Wrap an NLI backend with a SQLite store keyed on ``(model digest, premise, hypothesis)``.

    An int8 backend (``inner.quantize``, the CPU default of ``TransformersNLI``) gives other
    scores than the same weights in fp32, so its digest gets ``-int8``: the two never mix."""

    def __init__(
        self, inner: Any, store: str | Path, digest: str, seed_dir: Path = SEED_DIR
    ) -> None:
        self.inner = inner
        if getattr(inner, "quantize", False) is True and not digest.endswith("-int8"):
            digest = f"{digest}-int8"
        self.digest = digest
        self._db = open_pair_table(store)
        self._lock = threading.Lock()
        self.seed = PairSeed.for_digest(self.digest, seed_dir)
        self.hits = 0
        self.seeded = 0
        self.misses = 0

    def _key(self, premise: str, hypothesis: str) -> str:
        raw = f"{self.digest}\x00{premise}\x00{hypothesis}".encode()
        return hashlib.sha1(raw).hexdigest()

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        keys = [self._key(p, h) for p, h in zip(premises, hypotheses, strict=True)]
        out = np.empty((len(keys), 3), dtype=np.float64)
        found: dict[str, tuple[float, float, float]] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for k, e, n, c in self._db.execute(
                    f"SELECT k, e, n, c FROM pairs WHERE k IN ({marks})", chunk
                ):
                    found[k] = (e, n, c)
        todo = [i for i, k in enumerate(keys) if k not in found]
        self.hits += len(keys) - len(todo)
        if todo and self.seed is not None:
            seeded = self.seed.lookup([keys[i] for i in todo])
            self._keep([(keys[i], seeded[keys[i]]) for i in todo if keys[i] in seeded])
            found.update(seeded)
            self.seeded += len(seeded)
            todo = [i for i in todo if keys[i] not in seeded]
        self.misses += len(todo)
        if todo:
            probs = np.asarray(
                self.inner.predict([premises[i] for i in todo], [hypotheses[i] for i in todo]),
                dtype=np.float64,
            )
            self._keep([(keys[i], tuple(row)) for i, row in zip(todo, probs, strict=True)])
            for i, row in zip(todo, probs, strict=True):
                found[keys[i]] = tuple(row)
        for i, k in enumerate(keys):
            out[i] = found[k]
        return out

    def _keep(self, rows: list[tuple[str, Sequence[float]]]) -> None:
        """Write scored pairs to the store, each with the model digest it was scored by."""
        if not rows:
            return
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO pairs (k, e, n, c, d) VALUES (?, ?, ?, ?, ?)",
                [(k, *map(float, p), self.digest) for k, p in rows],
            )
            self._db.commit()

    def __repr__(self) -> str:
        return f"PersistentNLI({self.inner!r}, digest={self.digest})"


def open_pair_table(store: str | Path) -> sqlite3.Connection:
    """The pair store at ``store``, created if missing. Each row records the digest of the
    model that scored it (``d``), so :mod:`benchmarks.pair_seed` can export one model's
    scores; a store written before that column existed gets it, empty on its old rows."""
    Path(store).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(store), check_same_thread=False)
    db.execute(
        "CREATE TABLE IF NOT EXISTS pairs (k TEXT PRIMARY KEY, e REAL, n REAL, c REAL, d TEXT)"
    )
    if "d" not in {row[1] for row in db.execute("PRAGMA table_info(pairs)")}:
        db.execute("ALTER TABLE pairs ADD COLUMN d TEXT")
    return db


class PackagedStoredNLI(PersistentNLI):
    """The packaged NLI model behind the default pair store, constructible with no argument,
    so ``python -m mirage_core calibrate --model benchmarks._pair_store:PackagedStoredNLI …``
    (from the repository root) fits thresholds on the scores the scoreboard already has. Run it
    with ``python -m`` from the root, not with the ``mirage`` script: pysbd installs a
    top-level ``benchmarks`` package of its own, which wins unless the root comes first on
    ``sys.path``."""

    def __init__(self) -> None:
        from mirage_core.nli.transformers_nli import TransformersNLI

        inner = TransformersNLI(None, batch_size=64)
        root = Path(__file__).resolve().parent
        super().__init__(inner, root / ".cache" / "pairs.sqlite", model_digest(inner.name))


#: The vectors' key prefix in ``vectors.sqlite``: the packaged all-MiniLM-L6-v2.
PACKAGED_VECTORS = "all-MiniLM-L6-v2/packaged"


class PersistentEmbedder:
    """The same store for sentence embeddings (``embed(texts) -> (n, d)``), keyed on the
    embedder's name and the text: coordination signals and RAGDefender reruns embed nothing
    twice."""

    def __init__(self, inner: Any, store: str | Path, name: str) -> None:
        self.inner = inner
        self.name = name
        Path(store).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(store), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (k TEXT PRIMARY KEY, v BLOB)")
        self._lock = threading.Lock()

    def _key(self, text: str) -> str:
        return hashlib.sha1(f"{self.name}\x00{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for k, v in self._db.execute(
                    f"SELECT k, v FROM vectors WHERE k IN ({marks})", chunk
                ):
                    found[k] = np.frombuffer(v, dtype=np.float32)
        todo = [i for i, k in enumerate(keys) if k not in found]
        if todo:
            vecs = np.asarray(self.inner.embed([texts[i] for i in todo]), dtype=np.float32)
            with self._lock:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                    [(keys[i], vecs[j].tobytes()) for j, i in enumerate(todo)],
                )
                self._db.commit()
            for j, i in enumerate(todo):
                found[keys[i]] = vecs[j]
        return np.stack([found[k] for k in keys]).astype(np.float64)


def stored_models(
    store: str | Path = DEFAULT_STORE,
    model: str | None = None,
    threads: int | None = None,
    embedder_max_length: int | None = None,
) -> tuple[PersistentNLI, PersistentEmbedder]:
    """The NLI model (torch fp32; default: the packaged one) and the packaged all-MiniLM-L6-v2
    behind the persistent stores (``store`` and ``vectors.sqlite`` beside it): what was scored
    or embedded before is read, the rest computed and kept. ``embedder_max_length`` (tokens a
    text is truncated to; ``None``: the embedder's default) is part of the vectors' key, but
    for 256."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from mirage_core.embeddings import MiniLMEmbedder
    from mirage_core.nli.transformers_nli import TransformersNLI

    inner = TransformersNLI(model, batch_size=64, torch_threads=threads)
    nli = PersistentNLI(inner, store, model_digest(inner.name))
    inner_embedder = (
        MiniLMEmbedder()
        if embedder_max_length is None
        else MiniLMEmbedder(max_length=embedder_max_length)
    )
    length = inner_embedder.max_length
    embedder = PersistentEmbedder(
        inner_embedder,
        Path(store).with_name("vectors.sqlite"),
        # the packaged copy (fp16 weights); the bare name held the fp32 original's vectors
        PACKAGED_VECTORS if length == 256 else f"{PACKAGED_VECTORS}@{length}",
    )
    return nli, embedder
