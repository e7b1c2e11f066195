"""Build an NLI backend from a text spec, as the command line and the servers take it.

A spec is a preset name, a local directory or a hub id (a :class:`TransformersNLI`; without
torch, a local directory or the packaged model on :class:`OnnxNLI`), or
``module:attribute`` naming a backend (an object with ``predict``), a backend class (built with no
arguments) or a scorer function ``fn(premises, hypotheses) -> (n, 3)`` (wrapped in
:class:`CallableNLI`).
"""

from __future__ import annotations

import importlib
import re
from typing import Any

__all__ = ["import_object", "load_backend"]


def import_object(spec: str) -> Any | None:
    """``module:attribute`` -> the object, or None when ``spec`` does not look like one (or its
    module does not exist)."""
    if not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*", spec):
        return None
    module_name, attr = spec.split(":", 1)
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            return None
        raise
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def load_backend(spec: str | None = None, **transformers_kwargs: Any) -> Any:
    """The backend a spec names (see the module docstring); ``None`` is the packaged model.

    ``transformers_kwargs`` (device, batch_size, torch_threads, cache_size, ...) go to
    :class:`~mirage_core.nli.TransformersNLI` only. Where the default NLI backend runs on ONNX
    Runtime (:func:`~mirage_core.nli.default_nli`: ONNX Runtime installed, torch a CPU-only
    build or absent, or ``MIRAGE_RUNTIME=onnx``) and no keyword asks for torch (a device other
    than the CPU, ``quantize=True``), the model runs on
    :class:`~mirage_core.nli.onnx_nli.OnnxNLI`: ``torch_threads`` becomes its ``threads``; it
    runs on the CPU. ``quantize="static-int8"``
    always means :class:`~mirage_core.nli.onnx_nli.OnnxNLI`'s static int8 graph, whichever
    runtime is installed (torch's ``quantize=True``, dynamic int8, is torch only).
    """
    from mirage_core.nli.base import CallableNLI

    if spec:
        obj = import_object(spec)
        if obj is not None:
            if isinstance(obj, type):
                obj = obj()
            if callable(getattr(obj, "predict", None)):
                return obj
            if callable(obj):
                return CallableNLI(obj)
            raise ValueError(f"{spec} is neither an NLI backend nor a scorer function")
    from mirage_core.nli.onnx_nli import model_graph_dir
    from mirage_core.onnx_models import use_onnx

    static_int8 = transformers_kwargs.get("quantize") == "static-int8"
    # a device, torch's dynamic int8 or TransformersNLI's own runtimes ask for torch, unless
    # $MIRAGE_RUNTIME forces ONNX (which then says what it cannot run)
    asks_torch = (
        transformers_kwargs.get("device", "auto") not in ("auto", "cpu")
        or transformers_kwargs.get("quantize") not in (None, False, "static-int8")
        or transformers_kwargs.get("runtime", "torch") != "torch"
    )
    if static_int8 or use_onnx(model_graph_dir(spec), needs_torch=asks_torch):
        from mirage_core.nli.onnx_nli import OnnxNLI

        kw = dict(transformers_kwargs)
        threads = kw.pop("torch_threads", None)
        quantize = kw.pop("quantize", None) or None
        if kw.pop("device", "cpu") not in ("auto", "cpu") or quantize not in (None, "static-int8"):
            raise ValueError(
                "the ONNX runtime runs on the CPU, in fp32 or quantize='static-int8' "
                "(a device and dynamic int8 need torch)"
            )
        kw.pop("runtime", None)
        return OnnxNLI(spec, threads=threads, quantize=quantize, **kw)
    from mirage_core.nli.transformers_nli import TransformersNLI

    return TransformersNLI(spec, **transformers_kwargs)
