"""The torch-free runtime's shared parts: which runtime to use, ONNX Runtime sessions and
``tokenizers`` tokenizers for a model directory.

A model directory for this runtime holds ``model.onnx`` (written by ``scripts/export_onnx.py``),
the weights it reads (``model.safetensors``: the graph holds none, it references them),
``tokenizer.json``, ``config.json`` and optionally ``tokenizer_config.json``. When it also holds
``model.fused.onnx`` (the same encoder with ONNX Runtime's transformer fusions, which the CPU runs
faster; it references the same weights), fp32 sessions run that one. Only
``onnxruntime``, ``tokenizers`` and numpy are imported (``pip install 'mirage-rag[onnx]'``), and
only when a session or tokenizer is built.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import json
import os
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np

from mirage_core.errors import ModelNotFoundError

__all__ = [
    "EMBEDDER_DIR",
    "FUSED_GRAPH",
    "HEADER_KEY",
    "RUNTIME_ENV",
    "PairTokenizer",
    "default_graph",
    "onnx_runtime_available",
    "open_session",
    "read_config",
    "resolve_max_length",
    "runtime_forced",
    "torch_build_accelerated",
    "torch_runtime_available",
    "use_onnx",
]

#: The packaged all-MiniLM-L6-v2 for the ONNX runtime (fp16 weights, fp32 graph).
EMBEDDER_DIR: Path = Path(__file__).resolve().parent / "models" / "all-minilm-l6-v2"
#: the fused fp32 graph, run instead of ``model.onnx`` where a model directory has it
FUSED_GRAPH = "model.fused.onnx"
#: ``MIRAGE_RUNTIME=torch|onnx`` forces the runtime of the default NLI backend and embedder.
RUNTIME_ENV = "MIRAGE_RUNTIME"
#: metadata key of the weights file's header digest (written by scripts/export_onnx.py)
HEADER_KEY = "mirage.safetensors_header_sha256"
ONNX_HINT = "the ONNX runtime needs onnxruntime and tokenizers: pip install 'mirage-rag[onnx]'"


def torch_runtime_available() -> bool:
    """True when torch and transformers import (the torch runtime can run)."""
    try:
        importlib.import_module("torch")
        importlib.import_module("transformers")
    except ImportError:
        return False
    return True


def onnx_runtime_available() -> bool:
    """True when onnxruntime and tokenizers import (an install whose native library cannot
    load is not a runtime to pick)."""
    try:
        importlib.import_module("onnxruntime")
        importlib.import_module("tokenizers")
    except (ImportError, OSError):  # OSError: a shared library that cannot load
        return False
    return True


def torch_build_accelerated() -> bool:
    """Whether the installed torch can run on an accelerator: a CUDA, ROCm or XPU build, or
    any torch on macOS (MPS). Read from ``torch/version.py`` without importing torch, which
    alone takes over a second; ``False`` when torch is not installed, ``True`` when its build
    cannot be read."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return False
    if sys.platform == "darwin":
        return True
    try:
        tree = ast.parse((Path(spec.origin).parent / "version.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return True
    builds: dict[str, object] = {}
    for node in tree.body:
        target: ast.expr | None = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
            builds[target.id] = value.value
    if "cuda" not in builds:
        return True
    return any(builds.get(k) is not None for k in ("cuda", "hip", "xpu"))


def runtime_forced() -> str | None:
    """The runtime ``$MIRAGE_RUNTIME`` forces (``"torch"`` or ``"onnx"``), ``None`` when unset;
    ValueError for any other value."""
    wanted = os.environ.get(RUNTIME_ENV, "").strip().lower()
    if wanted in ("onnx", "torch"):
        return wanted
    if wanted:
        raise ValueError(f"{RUNTIME_ENV} must be 'torch' or 'onnx', got {wanted!r}")
    return None


def use_onnx(model_dir: Path | None = None, needs_torch: bool = False) -> bool:
    """Whether a default backend runs on ONNX Runtime: ``$MIRAGE_RUNTIME`` when set; else
    torch when the caller ``needs_torch`` (a setting only torch has); else ONNX Runtime when it
    imports, torch is a CPU-only build (or absent) and ``model_dir`` holds an ONNX graph
    (``None``: a packaged model, which does); else torch when it imports.

    On the CPU both runtimes give the same labels and verdicts for the packaged models
    (``docs/performance.md``), and ONNX Runtime starts in a fifth of torch's time and runs
    faster; a GPU build of torch keeps torch, which runs on the GPU."""
    wanted = runtime_forced()
    if wanted is not None:
        return wanted == "onnx"
    if needs_torch:
        return False
    has_graph = model_dir is None or (Path(model_dir) / "model.onnx").is_file()
    if has_graph and not torch_build_accelerated() and onnx_runtime_available():
        return True
    return not torch_runtime_available()


def read_config(model_dir: Path, name: str = "config.json") -> dict[str, Any]:
    path = model_dir / name
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def check_model_dir(model_dir: Path, what: str) -> Path:
    """``model_dir`` if it holds what this runtime reads, else ModelNotFoundError."""
    missing = [
        f for f in ("model.onnx", "tokenizer.json", "config.json") if not (model_dir / f).is_file()
    ]
    if missing:
        raise ModelNotFoundError(
            f"{what} directory {str(model_dir)!r} lacks {missing}: the ONNX runtime reads "
            "model.onnx (write it with scripts/export_onnx.py), tokenizer.json and config.json"
        )
    return model_dir


def resolve_max_length(model_dir: Path, max_length: int) -> int:
    """``max_length`` capped by the tokenizer's ``model_max_length`` and the model's positions
    (as :class:`~mirage_core.nli.TransformersNLI` caps it)."""
    for limit in (
        read_config(model_dir, "tokenizer_config.json").get("model_max_length"),
        read_config(model_dir).get("max_position_embeddings"),
    ):
        if isinstance(limit, int) and 0 < limit < 1_000_000:
            max_length = min(max_length, limit)
    return max_length


def _header_digest(weights: Path) -> str:
    with weights.open("rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return hashlib.sha256(f.read(n)).hexdigest()


def default_graph(model_dir: Path) -> Path:
    """The graph a model directory runs in fp32: ``model.fused.onnx`` where there is one, else
    ``model.onnx``."""
    fused = model_dir / FUSED_GRAPH
    return fused if fused.is_file() else model_dir / "model.onnx"


def open_session(model_dir: Path, threads: int | None = None, graph: Path | None = None) -> Any:
    """An ONNX Runtime CPU session on ``graph`` (default: :func:`default_graph`).

    Threads do not busy-wait between calls (on a shared CPU spinning slows everyone down).
    The graph's weights file must be the one it was exported against (same header digest)."""
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ImportError(ONNX_HINT) from exc
    path = graph or default_graph(model_dir)
    opts = ort.SessionOptions()
    if threads is not None:
        opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # ONNX Runtime's errors share no public base class
        raise ModelNotFoundError(f"could not load {str(path)!r}: {exc}") from exc
    meta = session.get_modelmeta().custom_metadata_map
    want = meta.get(HEADER_KEY)
    weights = model_dir / "model.safetensors"
    if want is not None and weights.is_file() and _header_digest(weights) != want:
        raise ModelNotFoundError(
            f"{str(path)!r} was exported against another {weights.name} (its header differs): "
            "run scripts/export_onnx.py again"
        )
    return session


class PairTokenizer:
    """A ``tokenizers`` tokenizer from ``tokenizer.json``, set up as transformers' fast tokenizer
    is for ``tokenizer(a, b, padding=True, truncation="longest_first", max_length=...)``.

    Not thread-safe (its padding state is per call): callers hold a lock around it."""

    def __init__(self, model_dir: Path, max_length: int) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ImportError(ONNX_HINT) from exc
        tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        cfg = read_config(model_dir, "tokenizer_config.json")
        pad_token = str(cfg.get("pad_token") or "[PAD]")
        pad_id = tok.token_to_id(pad_token)
        if pad_id is None:
            raise ModelNotFoundError(f"{model_dir}/tokenizer.json has no pad token {pad_token!r}")
        tok.enable_truncation(max_length, strategy="longest_first", direction="right")
        tok.enable_padding(
            direction="right",
            pad_id=pad_id,
            pad_type_id=int(cfg.get("pad_token_type_id", 0) or 0),
            pad_token=pad_token,
        )
        self.tokenizer = tok
        self.max_length = max_length

    def __call__(self, texts: list[str], pairs: list[str] | None = None) -> dict[str, np.ndarray]:
        batch: list[Any] = list(texts) if pairs is None else list(zip(texts, pairs, strict=True))
        encs = self.tokenizer.encode_batch(batch, add_special_tokens=True)
        return {
            "input_ids": np.array([e.ids for e in encs], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encs], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encs], dtype=np.int64),
        }
