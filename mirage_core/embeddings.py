"""Sentence embedders for source independence and paraphrase-aware pairing.

One protocol: ``embed(texts) -> (n, d)`` float array of L2-normalized rows. Both runtimes read
the copy of all-MiniLM-L6-v2 that ships in the package (``models/all-minilm-l6-v2``, fp16
weights computed in fp32), with the same mean pooling: :class:`MiniLMEmbedder` in torch, and
:class:`OnnxEmbedder` on ONNX Runtime, the default where ONNX Runtime is installed and torch is
a CPU-only build or absent. :func:`as_embedder` adapts a LangChain ``Embeddings``, a LlamaIndex
embedding model or a plain callable by duck typing, so the engine imports neither framework.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mirage_core.errors import ModelNotFoundError

__all__ = [
    "CachedEmbedder",
    "CallableEmbedder",
    "Embedder",
    "MiniLMEmbedder",
    "OnnxEmbedder",
    "as_embedder",
    "checked_rows",
    "default_embedder",
]


@runtime_checkable
class Embedder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return one L2-normalized row per text."""
        ...


def _rows(vectors: object, n: int) -> np.ndarray:
    """``vectors`` as ``n`` float32 rows; ``ValueError`` for any other shape."""
    try:
        arr = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"embedder returned no array of numbers ({exc})") from None
    if arr.ndim != 2 or arr.shape[0] != n or arr.shape[1] == 0:
        raise ValueError(f"embedder returned shape {arr.shape}, expected ({n}, d)")
    return arr


def _normalize(vectors: object, n: int) -> np.ndarray:
    arr = _rows(vectors, n)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return arr / np.maximum(norms, 1e-12)


def checked_rows(vectors: object, n: int) -> np.ndarray:
    """What any embedder returned for ``n`` texts, checked: ``n`` rows of finite numbers, each
    L2-normalized (rows already of unit length are returned as they are). ``ValueError``
    otherwise: an embedder of the caller's own (an ``embed()`` method) passes here too."""
    arr = _rows(vectors, n)
    if not np.all(np.isfinite(arr)):
        raise ValueError("the embedder returned non-finite values")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    if np.all(np.abs(norms - 1.0) <= 1e-4):
        return arr
    return arr / np.maximum(norms, 1e-12)


#: Default byte bound of an embedder's text cache (keys and rows, approximately).
CACHE_BYTES = 256 * 2**20


def _entry_bytes(text: str, row: np.ndarray) -> int:
    return sys.getsizeof(text) + sys.getsizeof(row) + 100


class CachedEmbedder:
    """Base class: an LRU cache per text, normalization and shape checks around ``_embed``.

    The cache outlives a query: a passage retrieved again by a later query (the same page for
    related questions, the same corpus chunk) is not embedded again. A hit counts as a use, so
    the texts evicted first are those unused for longest, not those embedded first."""

    def __init__(self, cache_size: int = 50_000, cache_bytes: int | None = CACHE_BYTES) -> None:
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        # bounded by bytes too: 50,000 pages of 20,000 characters are a gigabyte of keys
        self._cache_bytes = cache_bytes
        self._bytes = 0
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        # a copy (pickle, deepcopy) starts with an empty cache and a lock of its own
        state = self.__dict__.copy()
        state["_cache"], state["_lock"], state["_bytes"] = OrderedDict(), None, 0
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _embed(self, texts: list[str]) -> object:
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        with self._lock:
            found = {t: self._cache[t] for t in texts if t in self._cache}
            for t in found:
                self._cache.move_to_end(t)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            rows = _normalize(self._embed(missing), len(missing))
            with self._lock:
                for t, view in zip(missing, rows, strict=True):
                    # a row of its own: a view would keep the whole batch alive while counting
                    # as one row
                    found[t] = row = view.copy()
                    if t not in self._cache:
                        self._bytes += _entry_bytes(t, row)
                    self._cache[t] = row
                    self._cache.move_to_end(t)
                while self._cache and (
                    len(self._cache) > self._cache_size
                    or (self._cache_bytes is not None and self._bytes > self._cache_bytes)
                ):
                    old, old_row = self._cache.popitem(last=False)
                    self._bytes -= _entry_bytes(old, old_row)
        if not texts:
            return np.empty((0, 0), dtype=np.float32)
        return np.stack([found[t] for t in texts])


class CallableEmbedder(CachedEmbedder):
    """Wrap ``fn(texts) -> (n, d)`` (rows are normalized for you)."""

    def __init__(self, fn: Callable[[list[str]], Any], cache_size: int = 50_000) -> None:
        if not callable(fn):
            raise TypeError(f"CallableEmbedder needs a callable, got {type(fn).__name__}")
        super().__init__(cache_size)
        self.fn = fn

    def _embed(self, texts: list[str]) -> object:
        return self.fn(texts)


def _default_model_dir() -> Path:
    from mirage_core.onnx_models import EMBEDDER_DIR

    if not (EMBEDDER_DIR / "config.json").is_file():
        raise ModelNotFoundError(
            f"the packaged all-MiniLM-L6-v2 is missing from {EMBEDDER_DIR}: reinstall "
            "mirage-rag (or pass embedder=...)"
        )
    return EMBEDDER_DIR


class MiniLMEmbedder(CachedEmbedder):
    """all-MiniLM-L6-v2 (the packaged copy, or any BERT-like encoder path or hub name given as
    ``model``) with mean pooling, on CPU by default.

    Texts are sorted by length and embedded ``batch_size`` at a time: a query's passages are
    long (up to ``max_length`` tokens), and on a CPU batches of 8 run them in 0.70–0.74× the
    time of 64 at k = 20–50 (``benchmarks/results/batch_size-embedder.md``)."""

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        device: str = "cpu",
        batch_size: int = 8,
        max_length: int = 256,
        cache_size: int = 50_000,
    ) -> None:
        super().__init__(cache_size)
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:
            raise ImportError(
                "MiniLMEmbedder needs torch and transformers: pip install 'mirage-rag[nli]'"
            ) from exc
        path = str(model) if model is not None else str(_default_model_dir())
        self.name = path
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
        self.model = (
            AutoModel.from_pretrained(path, trust_remote_code=False).to(device).float().eval()
        )
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self._forward_lock = threading.Lock()

    def _embed(self, texts: list[str]) -> np.ndarray:
        torch = self._torch
        order = np.argsort([len(t) for t in texts])
        out = np.empty((len(texts), self.model.config.hidden_size), dtype=np.float32)
        with self._forward_lock, torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                idx = order[start : start + self.batch_size]
                enc = self.tokenizer(
                    [texts[i] for i in idx],
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self.device)
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out[idx] = pooled.cpu().numpy()
        return out

    def __repr__(self) -> str:
        return f"MiniLMEmbedder({self.name!r})"


class OnnxEmbedder(CachedEmbedder):
    """all-MiniLM-L6-v2 on ONNX Runtime, no torch (``pip install 'mirage-rag[onnx]'``).

    The same computation as :class:`MiniLMEmbedder`: texts sorted by length, batches of
    ``batch_size``, truncation at ``max_length`` tokens, mean pooling over the attention mask,
    L2 normalization. ``model`` is a directory written by ``scripts/export_onnx.py`` (default:
    the packaged one, whose weights are all-MiniLM-L6-v2's rounded to fp16).
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        batch_size: int = 8,
        max_length: int = 256,
        cache_size: int = 50_000,
        threads: int | None = None,
    ) -> None:
        from mirage_core.onnx_models import (
            EMBEDDER_DIR,
            PairTokenizer,
            check_model_dir,
            default_graph,
            open_session,
            read_config,
            resolve_max_length,
        )

        super().__init__(cache_size)
        self.model_dir = check_model_dir(
            Path(model).expanduser() if model is not None else EMBEDDER_DIR, "embedder"
        )
        self.name = str(self.model_dir)
        self.hidden_size = int(read_config(self.model_dir)["hidden_size"])
        self.batch_size = batch_size
        self.max_length = resolve_max_length(self.model_dir, max_length)
        self.tokenizer = PairTokenizer(self.model_dir, self.max_length)
        #: the graph the session runs (the fused fp32 graph where the directory has one)
        self.graph: Path = default_graph(self.model_dir)
        self.session = open_session(self.model_dir, threads, graph=self.graph)
        self._inputs = {i.name for i in self.session.get_inputs()}
        self._forward_lock = threading.Lock()

    def _embed(self, texts: list[str]) -> np.ndarray:
        order = np.argsort([len(t) for t in texts])
        out = np.empty((len(texts), self.hidden_size), dtype=np.float32)
        with self._forward_lock:
            for start in range(0, len(texts), self.batch_size):
                idx = order[start : start + self.batch_size]
                enc = self.tokenizer([texts[i] for i in idx])
                feed = {k: v for k, v in enc.items() if k in self._inputs}
                hidden = self.session.run(["last_hidden_state"], feed)[0]
                mask = enc["attention_mask"][:, :, None].astype(hidden.dtype)
                out[idx] = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
        return out

    def __repr__(self) -> str:
        return f"OnnxEmbedder({self.name!r})"


_DEFAULT: CachedEmbedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> CachedEmbedder:
    """The packaged all-MiniLM-L6-v2, loaded once per process and shared by every
    :class:`~mirage_core.defense.Mirage` built without an ``embedder`` (the default config's
    coordination signals need it: one copy of the weights and of the text cache, not one per
    engine, retriever or postprocessor).

    :class:`OnnxEmbedder` where ONNX Runtime is installed and torch is a CPU-only build or
    absent (:func:`~mirage_core.onnx_models.use_onnx`), else :class:`MiniLMEmbedder` (torch);
    both read the same packaged weights. ``$MIRAGE_RUNTIME=torch|onnx`` forces one."""
    global _DEFAULT
    if _DEFAULT is None:
        with _DEFAULT_LOCK:
            if _DEFAULT is None:
                _DEFAULT = _build_default()
    return _DEFAULT


def _build_default() -> CachedEmbedder:
    from mirage_core.onnx_models import EMBEDDER_DIR, use_onnx

    if use_onnx(EMBEDDER_DIR):
        return OnnxEmbedder()
    return MiniLMEmbedder()


class _MethodEmbedder(CachedEmbedder):
    def __init__(self, obj: Any, method: str) -> None:
        super().__init__()
        self.obj, self.method = obj, method

    def _embed(self, texts: list[str]) -> object:
        return getattr(self.obj, self.method)(texts)

    def __repr__(self) -> str:
        return f"{type(self.obj).__name__}.{self.method}"


def as_embedder(obj: Any) -> Embedder:
    """An :class:`Embedder` from an embedder, a LangChain ``Embeddings``
    (``embed_documents``), a LlamaIndex embedding (``get_text_embedding_batch``) or a callable."""
    if isinstance(obj, CachedEmbedder) or (
        callable(getattr(obj, "embed", None)) and not callable(obj)
    ):
        return obj
    if callable(getattr(obj, "embed_documents", None)):
        return _MethodEmbedder(obj, "embed_documents")
    if callable(getattr(obj, "get_text_embedding_batch", None)):
        return _MethodEmbedder(obj, "get_text_embedding_batch")
    if callable(obj):
        return CallableEmbedder(obj)
    raise TypeError(
        f"cannot use {type(obj).__name__} as an embedder: expected embed(), embed_documents(), "
        "get_text_embedding_batch() or a callable"
    )
