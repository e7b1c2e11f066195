"""The committed seed of the benchmark pair store: NLI scores a fresh checkout reads instead of
scoring again.

The SQLite pair store (``benchmarks/.cache``) is ignored by git, and on 2 CPU cores the NLI model
scores about 30 pairs a second: a scoreboard run from an empty store takes hours, where one
from a warm store takes minutes. The seed keeps, per model digest, the scores of the pairs the
committed runs read, in ``benchmarks/data/pair-seed/<digest>.npz``:

- ``keys``: the first 8 bytes of each pair's store key (SHA-1 of digest, premise and
  hypothesis) as sorted ``uint64``; two of a million pairs share a prefix with odds of about
  3e-8;
- ``probs``: the model's (entailment, neutral, contradiction) probabilities as ``float32``, the
  dtype the model computes them in, so a seeded score is the stored score exactly.

:class:`~benchmarks._pair_store.PersistentNLI` reads the seed of its digest where its store
misses. After runs that scored new pairs, ``export`` merges the store's pairs of a digest into
its seed (rows scored before the store recorded digests count only with ``--unlabelled``):

    python -m benchmarks.pair_seed export [--model PATH] [--unlabelled]
    python -m benchmarks.pair_seed show
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["SEED_DIR", "PairSeed", "export", "key_prefixes"]

SEED_DIR = Path(__file__).resolve().parent / "data" / "pair-seed"


def key_prefixes(keys: Sequence[str]) -> np.ndarray:
    """The ``uint64`` prefixes of hexadecimal store keys (their first 16 hex digits)."""
    return np.array([int(k[:16], 16) for k in keys], dtype=np.uint64)


class PairSeed:
    """One digest's committed scores, looked up by store key."""

    def __init__(self, keys: np.ndarray, probs: np.ndarray) -> None:
        if keys.shape[0] != probs.shape[0] or probs.ndim != 2 or probs.shape[1] != 3:
            raise ValueError(
                f"a seed needs n keys and n × 3 probabilities, got {keys.shape} / {probs.shape}"
            )
        order = np.argsort(keys, kind="stable")
        self.keys = np.asarray(keys, dtype=np.uint64)[order]
        self.probs = np.asarray(probs, dtype=np.float32)[order]

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @classmethod
    def load(cls, path: str | Path) -> PairSeed:
        with np.load(path) as data:
            return cls(data["keys"], data["probs"])

    @classmethod
    def for_digest(cls, digest: str, folder: Path = SEED_DIR) -> PairSeed | None:
        """The seed of ``digest``, or ``None`` when none is committed."""
        path = folder / f"{digest}.npz"
        return cls.load(path) if path.is_file() else None

    def save(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, keys=self.keys, probs=self.probs)

    def lookup(self, keys: Sequence[str]) -> dict[str, tuple[float, float, float]]:
        """The seeded scores of those of ``keys`` the seed holds."""
        if not keys or not len(self):
            return {}
        wanted = key_prefixes(keys)
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self) - 1)
        hit = self.keys[at] == wanted
        return {
            k: tuple(float(x) for x in self.probs[i])
            for k, i, h in zip(keys, at, hit, strict=True)
            if h
        }

    def merged(self, other: PairSeed) -> PairSeed:
        """This seed with ``other``'s pairs added (``other`` wins on a shared key)."""
        keys = np.concatenate([other.keys, self.keys])
        probs = np.concatenate([other.probs, self.probs])
        _, first = np.unique(keys, return_index=True)
        return PairSeed(keys[first], probs[first])


def store_rows(store: str | Path, digest: str, unlabelled: bool = False) -> PairSeed:
    """The store's pairs scored by ``digest`` (with ``unlabelled``, also rows that carry no
    digest: a store written before rows recorded one, by this model only)."""
    from benchmarks._pair_store import open_pair_table

    db = open_pair_table(store)
    where = "d = ?" + (" OR d IS NULL" if unlabelled else "")
    rows = db.execute(f"SELECT k, e, n, c FROM pairs WHERE {where}", (digest,)).fetchall()
    db.close()
    keys = key_prefixes([r[0] for r in rows])
    probs = np.array([r[1:] for r in rows], dtype=np.float32).reshape(len(rows), 3)
    return PairSeed(keys, probs)


def export(
    store: str | Path, digest: str, folder: Path = SEED_DIR, unlabelled: bool = False
) -> tuple[int, int, Path]:
    """Merge the store's pairs of ``digest`` into its seed file: (pairs before, after, path)."""
    path = folder / f"{digest}.npz"
    before = PairSeed.for_digest(digest, folder)
    fresh = store_rows(store, digest, unlabelled)
    seed = fresh if before is None else before.merged(fresh)
    seed.save(path)
    return (0 if before is None else len(before)), len(seed), path


def main(argv: list[str] | None = None) -> int:
    from benchmarks._pair_store import DEFAULT_STORE, model_digest
    from mirage_core.nli.transformers_nli import DEFAULT_MODEL_DIR

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("command", choices=("export", "show"))
    p.add_argument("--store", default=str(DEFAULT_STORE))
    p.add_argument("--model", default=None, help="NLI model folder (default: the packaged one)")
    p.add_argument("--unlabelled", action="store_true", help="also export rows with no digest")
    args = p.parse_args(argv)
    if args.command == "show":
        for path in sorted(SEED_DIR.glob("*.npz")):
            print(
                f"{path.stem}: {len(PairSeed.load(path)):,} pairs, {path.stat().st_size / 1e6:.1f} MB"
            )
        return 0
    digest = model_digest(args.model or DEFAULT_MODEL_DIR)
    before, after, path = export(args.store, digest, unlabelled=args.unlabelled)
    print(f"{path}: {before:,} → {after:,} pairs ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
