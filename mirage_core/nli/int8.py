"""Static int8 quantization of an exported NLI cross-encoder, for :class:`~mirage_core.nli.OnnxNLI`.

*Static* means the activation scales are fixed numbers measured once on calibration pairs,
not recomputed from each batch (as dynamic int8 does): a pair's scores then do not depend on
the other pairs of its batch, which a service batching several clients' requests needs.

What ships is small: ``int8-ranges.json`` beside the model, the min / max of every tensor that
enters a quantized MatMul, measured by ``scripts/calibrate_int8.py`` on pairs of the NLI
*training* data (never the held-out sets). The int8 graph itself (about 60 MB: the word
embeddings stay fp32) is built from the shipped fp32 graph and those ranges at first use, with
ONNX Runtime's own quantizer, into ``$MIRAGE_CACHE/onnx/<digest of the model files>/``; later
sessions load it from there. Building needs the ``onnx`` package besides onnxruntime
(``pip install 'mirage-rag[onnx-int8]'``); it is imported only here, only while building.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from mirage_core.errors import ModelNotFoundError

__all__ = ["QUANTIZE_CHOICES", "RANGES_FILE", "graph_digest", "static_int8_graph", "write_ranges"]

#: the values of ``OnnxNLI(quantize=...)``; None is the shipped fp32 graph
QUANTIZE_CHOICES = (None, "static-int8")
#: the calibrated activation ranges, beside the model's ``model.onnx``
RANGES_FILE = "int8-ranges.json"
#: quantizer settings: QDQ format (ONNX Runtime fuses it into int8 kernels), weights int8 per
#: output channel, activations uint8 with one scale per tensor, every MatMul and Gemm
SETTINGS: dict[str, Any] = {
    "format": "QDQ",
    "per_channel": True,
    "weight_type": "QInt8",
    "activation_type": "QUInt8",
    "op_types": ["MatMul", "Gemm"],
}
INT8_HINT = (
    "quantize='static-int8' builds its graph with onnxruntime's quantizer, which needs the onnx "
    "package: pip install 'mirage-rag[onnx-int8]'"
)


def graph_digest(model_dir: Path) -> str:
    """sha256 of ``model.onnx``: the ranges name its tensors, so they fit this graph only."""
    return hashlib.sha256((model_dir / "model.onnx").read_bytes()).hexdigest()


def _settings_tag(keep_fp32: tuple[str, ...]) -> str:
    blob = json.dumps({**SETTINGS, "keep_fp32": list(keep_fp32)}, sort_keys=True)
    return hashlib.sha1(blob.encode()).hexdigest()[:10]


def read_ranges(model_dir: Path) -> dict[str, tuple[float, float]]:
    """The shipped ranges, refused when missing or measured on another graph."""
    path = model_dir / RANGES_FILE
    if not path.is_file():
        raise ModelNotFoundError(
            f"{str(model_dir)!r} has no {RANGES_FILE}: write it with scripts/calibrate_int8.py"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("graph_sha256") != graph_digest(model_dir):
        raise ModelNotFoundError(
            f"{path} was calibrated on another model.onnx: run scripts/calibrate_int8.py again"
        )
    return {k: (float(lo), float(hi)) for k, (lo, hi) in data["ranges"].items()}


def write_ranges(model_dir: Path, ranges: dict[str, tuple[float, float]], about: str) -> Path:
    """Write ``int8-ranges.json`` for ``model_dir``'s current graph (``about``: how measured)."""
    path = model_dir / RANGES_FILE
    head = json.dumps({"about": about, "graph_sha256": graph_digest(model_dir)})[:-1]
    rows = ",\n".join(
        f" {json.dumps(k)}: [{lo!r}, {hi!r}]" for k, (lo, hi) in sorted(ranges.items())
    )
    path.write_text(f'{head}, "ranges": {{\n{rows}\n}}}}\n', encoding="utf-8")
    return path


def _import_quantizer() -> Any:
    try:
        import onnx  # noqa: F401  (the quantizer needs it; fail with the hint, not deep inside)
        from onnxruntime import quantization
    except ImportError as exc:
        raise ImportError(INT8_HINT) from exc
    return quantization


def preprocess(model_dir: Path, out: Path) -> Path:
    """A self-contained fp32 copy of ``model_dir/model.onnx`` with its weight casts and
    transposes folded, so the quantizer sees every weight as a constant (ONNX Runtime's
    recommended preprocessing; symbolic shape inference is not needed for these graphs)."""
    q = _import_quantizer()
    import onnx

    # the weights inline first: the preprocessor writes its steps to a temporary folder, where
    # references to model.safetensors would no longer resolve
    inline = out.with_name(f"inline.{out.name}")
    onnx.save(onnx.load(str(model_dir / "model.onnx")), str(inline))
    q.quant_pre_process(str(inline), str(out), skip_symbolic_shape=True)
    inline.unlink()
    return out


def quantize(pre: Path, out: Path, ranges: dict[str, tuple[float, float]], keep_fp32=()) -> Path:
    """Quantize the preprocessed graph ``pre`` into ``out`` with fixed ``ranges``; MatMul and
    Gemm nodes whose name matches one of the regular expressions ``keep_fp32`` stay fp32."""
    import numpy as np

    q = _import_quantizer()
    from onnxruntime.quantization.calibrate import TensorData, TensorsData

    try:
        from onnxruntime.quantization.calibrate import save_tensors_data
    except ImportError as exc:  # quantize_static reads fixed ranges only from such a file
        raise ImportError(
            "quantize='static-int8' needs an onnxruntime whose quantize_static reads a "
            "calibration cache (1.32 does): pip install 'mirage-rag[onnx-int8]'"
        ) from exc
    import onnx

    graph = onnx.load(str(pre), load_external_data=False).graph
    excluded = [
        n.name
        for n in graph.node
        if n.op_type in SETTINGS["op_types"] and any(re.search(p, n.name) for p in keep_fp32)
    ]
    data = TensorsData(
        q.CalibrationMethod.MinMax,
        {
            k: TensorData(lowest=np.array([lo], np.float32), highest=np.array([hi], np.float32))
            for k, (lo, hi) in ranges.items()
        },
    )
    with tempfile.TemporaryDirectory(prefix="mirage-int8-") as tmp:
        cache = Path(tmp) / "ranges.json"
        save_tensors_data(data, cache)
        q.quantize_static(
            str(pre),
            str(out),
            None,
            quant_format=q.QuantFormat.QDQ,
            per_channel=SETTINGS["per_channel"],
            weight_type=q.QuantType.QInt8,
            activation_type=q.QuantType.QUInt8,
            op_types_to_quantize=list(SETTINGS["op_types"]),
            nodes_to_exclude=excluded,
            calibrate_method=q.CalibrationMethod.MinMax,
            calibration_cache_path=str(cache),
        )
    return out


def static_int8_graph(
    model_dir: Path, cache_dir: Path | None = None, keep_fp32: tuple[str, ...] = ()
) -> Path:
    """The static int8 graph of ``model_dir``: built from ``model.onnx`` and ``int8-ranges.json``
    on first use, then read from ``cache_dir`` (default ``$MIRAGE_CACHE/onnx/<digest>``: a
    changed model or range file gets a new build). ``keep_fp32``: see :func:`quantize` (for
    measuring alternatives; ``OnnxNLI(quantize="static-int8")`` quantizes every MatMul)."""
    from mirage_core.nli.onnx_runtime import default_onnx_dir

    ranges = read_ranges(model_dir)
    cache_dir = cache_dir or default_onnx_dir(str(model_dir))
    out = cache_dir / f"model.static-int8.{_settings_tag(tuple(keep_fp32))}.onnx"
    if out.is_file():
        return out
    cache_dir.mkdir(parents=True, exist_ok=True)
    # built in a private folder and moved in whole: concurrent loaders never see half a file
    with tempfile.TemporaryDirectory(prefix=".build-", dir=cache_dir) as tmp:
        pre = preprocess(model_dir, Path(tmp) / "fp32.onnx")
        built = quantize(pre, Path(tmp) / "int8.onnx", ranges, tuple(keep_fp32))
        os.replace(built, out)
    return out
