"""NLI on ONNX Runtime with no torch: ``onnxruntime`` + ``tokenizers`` only.

:class:`OnnxNLI` runs a cross-encoder exported by ``scripts/export_onnx.py`` (the packaged model
ships its ``model.onnx``) with the same tokenization, length-sorted batching, label order (read
from ``config.json``'s ``id2label``) and pair cache as
:class:`~mirage_core.nli.TransformersNLI`; on the held-out NLI sets its probabilities stay
within 1e-4 of torch fp32 (``benchmarks/nli_runtime.py --parity``). :func:`default_nli` picks
the runtime: this one where ONNX Runtime is installed and torch is a CPU-only build or absent,
else torch (``$MIRAGE_RUNTIME`` forces either).

Example::

    nli = OnnxNLI()                     # the packaged model
    probs = nli.predict(["A cat sat."], ["An animal sat."])  # (1, 3): entail, neutral, contra
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mirage_core.errors import ModelNotFoundError, NLIError
from mirage_core.nli.base import CachedNLI
from mirage_core.nli.label_columns import resolve_label_columns
from mirage_core.nli.transformers_nli import DEFAULT_MODEL_DIR, PRESETS, TransformersNLI, _softmax

__all__ = ["OnnxNLI", "default_nli", "model_graph_dir"]


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


class OnnxNLI(CachedNLI):
    """NLI backend on an exported cross-encoder, run by ONNX Runtime on the CPU.

    Args:
        model: ``None`` or ``"default"`` (the packaged model), or a local directory holding
            ``model.onnx``, its weights, ``tokenizer.json`` and ``config.json``. Hub ids and
            the other presets need the torch runtime (:class:`~mirage_core.nli.TransformersNLI`).
        batch_size: pairs per forward pass (pairs are sorted by length first, as in
            TransformersNLI, so the same pairs share a batch).
        max_length: token limit of premise + hypothesis (truncated ``longest_first``), capped by
            the tokenizer's ``model_max_length`` and the model's positions.
        label_map: output index of each label, when ``config.json``'s ``id2label`` does not name
            them (as in TransformersNLI).
        cache_size: entries of the LRU pair cache (0 disables it).
        threads: ONNX Runtime's intra-op threads (default: its own choice, the physical cores).
        quantize: ``None`` (the shipped fp32 graph) or ``"static-int8"``: int8 weights and
            activations with fixed, calibrated scales (:mod:`mirage_core.nli.int8`), so a pair's
            scores do not depend on its batch mates; the graph is built on first use into
            ``$MIRAGE_CACHE`` (needs the ``onnx`` package: ``pip install 'mirage-rag[onnx-int8]'``).
            Faster on the CPU, and its labels differ from fp32's on some pairs
            (docs/performance.md gives the measured figures).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = 16,
        max_length: int = 256,
        label_map: Mapping[str, int] | None = None,
        cache_size: int = 100_000,
        threads: int | None = None,
        quantize: str | None = None,
    ) -> None:
        from mirage_core.nli.int8 import QUANTIZE_CHOICES, static_int8_graph
        from mirage_core.onnx_models import (
            PairTokenizer,
            check_model_dir,
            default_graph,
            open_session,
            read_config,
            resolve_max_length,
        )

        _positive_int("batch_size", batch_size)
        _positive_int("max_length", max_length)
        if threads is not None:
            _positive_int("threads", threads)
        if quantize not in QUANTIZE_CHOICES:
            raise ValueError(f"quantize must be one of {QUANTIZE_CHOICES}, got {quantize!r}")
        super().__init__(cache_size)
        self.model_dir = check_model_dir(self._resolve_dir(model), "NLI model")
        self.name = str(self.model_dir)
        config = read_config(self.model_dir)
        self._id2label: dict[int, str] = {
            int(k): str(v) for k, v in (config.get("id2label") or {}).items()
        }
        self.label_columns: tuple[int, int, int] = resolve_label_columns(
            self._id2label, label_map, model_name=self.name
        )
        self.batch_size = batch_size
        self.max_length = resolve_max_length(self.model_dir, max_length)
        self.tokenizer = PairTokenizer(self.model_dir, self.max_length)
        #: None (fp32) or "static-int8"
        self.quantize = quantize
        #: the graph the session runs (the fused fp32 graph, or the built static int8 one)
        self.graph: Path = (
            static_int8_graph(self.model_dir)
            if quantize == "static-int8"
            else default_graph(self.model_dir)
        )
        self.session = open_session(self.model_dir, threads, graph=self.graph)
        self._inputs = {i.name for i in self.session.get_inputs()}
        self._lock = threading.Lock()

    @staticmethod
    def _resolve_dir(model: str | os.PathLike[str] | None) -> Path:
        if model is None or (isinstance(model, str) and model.strip() == "default"):
            return DEFAULT_MODEL_DIR
        if not isinstance(model, (str, os.PathLike)):
            raise TypeError(f"model must be a path or 'default', got {type(model).__name__}")
        path = Path(model).expanduser()
        if not path.is_dir():
            hint = (
                f" ({PRESETS[str(model)]!r} is a Hugging Face hub id)"
                if str(model) in PRESETS
                else ""
            )
            raise ModelNotFoundError(
                f"OnnxNLI needs a local model directory with model.onnx, got {str(model)!r}"
                f"{hint}; hub models run on the torch runtime: pip install 'mirage-rag[nli]'"
            )
        return path

    @property
    def id2label(self) -> dict[int, str]:
        """The model's ``config.json`` id2label (a copy)."""
        return dict(self._id2label)

    def __repr__(self) -> str:
        return (
            f"OnnxNLI(model={self.name!r}, batch_size={self.batch_size}, "
            f"max_length={self.max_length}"
            + (f", quantize={self.quantize!r})" if self.quantize else ")")
        )

    def _predict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        n = len(premises)
        out = np.empty((n, 3), dtype=np.float64)
        if n == 0:
            return out
        order = sorted(range(n), key=lambda i: len(premises[i]) + len(hypotheses[i]), reverse=True)
        cols = list(self.label_columns)
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            try:
                with self._lock:
                    enc = self.tokenizer([premises[i] for i in idx], [hypotheses[i] for i in idx])
                    feed = {k: v for k, v in enc.items() if k in self._inputs}
                    logits = self.session.run(["logits"], feed)[0]
            except Exception as exc:  # ONNX Runtime's errors share no public base class
                raise NLIError(f"{self.name}: NLI forward pass failed: {exc}") from exc
            out[idx] = _softmax(logits[:, cols])
        return out


def model_graph_dir(spec: str | os.PathLike[str] | None) -> Path:
    """Where an ONNX graph of ``spec`` would be: the packaged model's directory for ``None``
    or ``"default"``, else ``spec`` as a path (a hub id holds none)."""
    if spec is None or (isinstance(spec, str) and spec.strip() == "default"):
        return DEFAULT_MODEL_DIR
    return Path(spec).expanduser()


def default_nli(
    spec: str | os.PathLike[str] | None = None, batch_size: int = 16, **kwargs: Any
) -> OnnxNLI | TransformersNLI:
    """The NLI backend for a model spec (``None``: the packaged model) on the runtime
    :func:`~mirage_core.onnx_models.use_onnx` picks: :class:`OnnxNLI` where ONNX Runtime is
    installed, torch is a CPU-only build (or absent) and the model directory holds an ONNX
    graph, else :class:`~mirage_core.nli.TransformersNLI` when torch imports
    (``$MIRAGE_RUNTIME=torch|onnx`` forces one). ``kwargs`` go to the class built
    (``cache_size``, ``max_length``, ``label_map`` suit both)."""
    from mirage_core.onnx_models import use_onnx

    if use_onnx(model_graph_dir(spec)):
        return OnnxNLI(spec, batch_size=batch_size, **kwargs)
    return TransformersNLI(spec, batch_size=batch_size, **kwargs)
