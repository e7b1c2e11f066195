"""ONNX Runtime for a transformers NLI cross-encoder: export once, run on the CPU.

Why: on CPU, ONNX Runtime runs the same fp32 graph faster than eager torch (fused attention
and GEMM kernels) and gives the same labels; ``benchmarks/eval_nli.py --variants fp32,onnx``
measures both on one machine in one run. ``onnxruntime`` and ``onnx`` are optional
(``pip install 'mirage-rag[onnx-export]'``) and imported only here. The torch-free runtime
is :class:`~mirage_core.nli.onnx_nli.OnnxNLI`.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["OnnxClassifier", "default_onnx_dir", "export_onnx"]

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def default_onnx_dir(model_name: str) -> Path:
    """``$MIRAGE_CACHE`` (default ``~/.cache/mirage``)/onnx/<digest of the model and its files>:
    a changed local model gets a new export."""
    root = Path(os.environ.get("MIRAGE_CACHE", Path.home() / ".cache" / "mirage"))
    digest = hashlib.sha1(model_name.encode())
    path = Path(model_name)
    if path.is_dir():
        for f in sorted(path.iterdir()):
            if f.is_file():
                st = f.stat()
                digest.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return root / "onnx" / digest.hexdigest()[:16]


def export_onnx(model: Any, tokenizer: Any, path: Path) -> Path:
    """Export ``model`` (fp32, eval) to ``path`` with dynamic batch and sequence axes."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    enc = tokenizer(["a premise"], ["a hypothesis"], return_tensors="pt")
    names = [n for n in _INPUTS if n in enc]
    args = tuple(enc[n] for n in names)
    export: dict[str, Any] = dict(
        input_names=names,
        output_names=["logits"],
        dynamic_axes={**{n: {0: "batch", 1: "seq"} for n in names}, "logits": {0: "batch"}},
        opset_version=17,
    )
    tmp = path.with_suffix(
        f".{os.getpid()}.tmp"
    )  # atomic: concurrent loaders never see half a file
    # The tracer warns about shape-dependent Python branches in transformers' masking code;
    # the exported graph is checked against torch on padded batches (tests/core/nli).
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.onnx.export(model.float().eval(), args, str(tmp), **export, dynamo=False)
        except TypeError:  # torch without the dynamo switch
            torch.onnx.export(model.float().eval(), args, str(tmp), **export)
    os.replace(tmp, path)
    return path


class OnnxClassifier:
    """An ONNX Runtime session that returns a cross-encoder's logits for a tokenized batch.

    ``quantize=True`` runs ONNX Runtime's dynamic int8 quantization of the exported graph.
    Threads do not busy-wait between calls: on a shared CPU spinning slows everyone down.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        workdir: str | os.PathLike[str],
        *,
        threads: int | None = None,
        quantize: bool = False,
    ) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ImportError(
                "runtime='onnx' needs onnxruntime and onnx: pip install 'mirage-rag[onnx-export]'"
            ) from exc
        workdir = Path(workdir)
        path = workdir / "model.onnx"
        if not path.exists():
            export_onnx(model, tokenizer, path)
        if quantize:
            qpath = workdir / "model.int8.onnx"
            if not qpath.exists():
                from onnxruntime.quantization import QuantType, quantize_dynamic

                tmp = qpath.with_suffix(f".{os.getpid()}.tmp")
                quantize_dynamic(str(path), str(tmp), weight_type=QuantType.QInt8)
                os.replace(tmp, qpath)
            path = qpath
        opts = ort.SessionOptions()
        if threads is not None:
            opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.path = path
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def logits(self, encoded: Any) -> np.ndarray:
        """Logits for a tokenizer output (numpy or torch tensors)."""
        feed = {
            k: (v.numpy() if hasattr(v, "numpy") else np.asarray(v)).astype(np.int64)
            for k, v in encoded.items()
            if k in self.inputs
        }
        return self.session.run(["logits"], feed)[0]
