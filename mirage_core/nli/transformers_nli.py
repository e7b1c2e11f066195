"""NLI with a Hugging Face sequence-classification cross-encoder.

torch and transformers are imported lazily, when a :class:`TransformersNLI` is built, never when
this module is imported: ``import mirage_core`` stays light for users who plug their own scorer
through :class:`~mirage_core.nli.base.CallableNLI`.

Example::

    nli = TransformersNLI()                 # the model shipped inside the package
    nli = TransformersNLI("fast")           # a preset name (see PRESETS)
    nli = TransformersNLI("/models/my-nli")  # a local directory saved with save_pretrained
    nli = TransformersNLI("org/some-nli")   # a Hugging Face hub id
    probs = nli.predict(["A cat sat."], ["An animal sat."])  # (1, 3): entail, neutral, contra
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mirage_core.errors import ModelNotFoundError, NLIError
from mirage_core.nli.base import CachedNLI
from mirage_core.nli.label_columns import resolve_label_columns

__all__ = ["DEFAULT_MODEL_DIR", "PRESETS", "TransformersNLI"]

#: Where the NLI model shipped inside the package lives (``mirage_core/models/...``).
DEFAULT_MODEL_DIR: Path = Path(__file__).resolve().parent.parent / "models" / "mirage-nli-minilm-l6"

#: Model names accepted in place of a hub id or a path.
PRESETS: dict[str, str] = {
    "paper": "microsoft/deberta-large-mnli",
    "base": "cross-encoder/nli-deberta-v3-base",
    "fast": "cross-encoder/nli-deberta-v3-xsmall",
    "default": str(DEFAULT_MODEL_DIR),
}

_INSTALL_HINT = "TransformersNLI needs torch and transformers: pip install 'mirage-rag[nli]'"


def _import_backend() -> tuple[Any, Any]:
    """Import torch and transformers, or raise an ImportError naming the extra to install."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return torch, transformers


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _looks_like_path(name: str) -> bool:
    """True for strings that can only mean a local path (never a hub id ``org/name``)."""
    return (
        name.startswith(("/", "./", "../", "~", "\\"))
        or name in (".", "..")
        or (len(name) > 1 and name[1] == ":")  # a Windows drive
        or name.count("/") > 1
        or "\\" in name
    )


class TransformersNLI(CachedNLI):
    """NLI backend on an ``AutoModelForSequenceClassification`` cross-encoder.

    Args:
        model: a preset name (:data:`PRESETS`), a local directory, or a Hugging Face hub id.
            ``None`` is the model shipped inside the package (:data:`DEFAULT_MODEL_DIR`).
        device: ``"auto"`` (cuda, then mps, then cpu) or any torch device string.
            With ``quantize=True``, ``"auto"`` means cpu.
        batch_size: pairs per forward pass. Pairs are sorted by length before batching so that
            a batch pads little; results come back in input order. On a CPU a small batch pads
            least (``benchmarks/batch_size.py``); on a GPU a larger one may run faster.
        max_length: token limit of premise + hypothesis (truncated ``longest_first``).
        label_map: output index of each label, e.g. ``{"entailment": 2, "neutral": 1,
            "contradiction": 0}``, when the model's ``config.id2label`` does not name them.
        cache_size: entries of the LRU pair cache (0 disables it).
        quantize: dynamic int8 quantization of the Linear layers (CPU only; with
            ``runtime="onnx"``, ONNX Runtime's quantization of the exported graph).
            ``False`` (default) runs full precision. ``None`` picks int8 on the CPU (either
            runtime) and full precision on a GPU. int8 runs ~1.5–1.9× faster on the CPU with a
            mean held-out accuracy within 0.2 point of fp32 (``benchmarks/nli_runtime.py``;
            docs/nli-model.md), but it is not the default: it loses 1.4–2.2 points on VitaminC,
            calls 4.0% of entailing minimal-edit pairs contradictions (fp32 0.9%, the false
            contradictions the gate must not see), and its scores depend on which pairs share
            a batch (activations are scaled per batch), so a verdict would depend on the other
            queries of a ``defend_many`` call or a served batch.
        torch_threads: if given, ``torch.set_num_threads(torch_threads)`` (process-wide) and
            the ONNX Runtime session's thread count.
        runtime: ``"torch"`` (default) or ``"onnx"``: the model is exported to ONNX once
            (cached under ``onnx_dir``) and run by ONNX Runtime on the CPU (needs the ``onnx``
            extra).
        onnx_dir: where the export is kept (default: ``~/.cache/mirage/onnx/<model digest>``,
            or ``$MIRAGE_CACHE``).

    The model is loaded in ``__init__`` so that a missing model or a bad label order fails at
    construction. ``predict`` is safe to call from many threads: cache look-ups run
    concurrently, tokenization and forward passes are serialized by a lock.
    ``trust_remote_code`` is never enabled.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        device: str = "auto",
        batch_size: int = 16,
        max_length: int = 256,
        label_map: Mapping[str, int] | None = None,
        cache_size: int = 100_000,
        quantize: bool | None = False,
        torch_threads: int | None = None,
        runtime: str = "torch",
        onnx_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        if runtime not in ("torch", "onnx"):
            raise ValueError(f"runtime must be 'torch' or 'onnx', got {runtime!r}")
        for arg, value in (("batch_size", batch_size), ("max_length", max_length)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{arg} must be a positive int, got {value!r}")
        if torch_threads is not None and (
            isinstance(torch_threads, bool)
            or not isinstance(torch_threads, int)
            or torch_threads < 1
        ):
            raise ValueError(f"torch_threads must be a positive int or None, got {torch_threads!r}")
        if not isinstance(device, str):
            raise TypeError(f"device must be a str, got {type(device).__name__}")
        if quantize is not None and not isinstance(quantize, bool):
            raise TypeError(f"quantize must be True, False or None, got {quantize!r}")
        super().__init__(cache_size)
        self.preset: str | None = None
        self.name: str = self._resolve_name(model)  # needs no torch: a missing model fails fast

        torch, transformers = _import_backend()
        self._torch = torch
        if torch_threads is not None:
            torch.set_num_threads(torch_threads)

        self.runtime = runtime
        self.device: str = self._resolve_device(torch, device, bool(quantize) or runtime == "onnx")
        on_cpu = torch.device(self.device).type == "cpu"
        if runtime == "onnx" and not on_cpu:
            raise ValueError(f"runtime='onnx' runs on the CPU, got device={device!r}")
        self.batch_size = batch_size
        if quantize is None:  # the measured choice: int8 on the CPU, full precision elsewhere
            quantize = on_cpu
        #: whether the model runs in dynamic int8 (``quantize`` resolved)
        self.quantize: bool = quantize

        self.tokenizer, hf_model = self._load(transformers, self.name)
        self._id2label: dict[int, str] = {
            int(k): str(v) for k, v in (hf_model.config.id2label or {}).items()
        }
        self.label_columns: tuple[int, int, int] = resolve_label_columns(
            self._id2label, label_map, model_name=self.name
        )

        # Never ask for more tokens than the model has positions for.
        for limit in (
            getattr(self.tokenizer, "model_max_length", None),
            getattr(hf_model.config, "max_position_embeddings", None),
        ):
            if isinstance(limit, int) and 0 < limit < 1_000_000:
                max_length = min(max_length, limit)
        self.max_length = max_length

        hf_model.eval()
        self._onnx: Any = None
        if runtime == "onnx":
            from mirage_core.nli.onnx_runtime import OnnxClassifier, default_onnx_dir

            hf_model = hf_model.to(dtype=torch.float32)
            self._onnx = OnnxClassifier(
                hf_model,
                self.tokenizer,
                onnx_dir if onnx_dir is not None else default_onnx_dir(self.name),
                threads=torch_threads,
                quantize=self.quantize,
            )
        elif torch.device(self.device).type == "cpu":
            hf_model = hf_model.to(dtype=torch.float32)  # shipped weights may be fp16
            if self.quantize:
                hf_model = self._quantize(torch, hf_model)
        else:
            hf_model = hf_model.to(self.device)
        self.model = hf_model
        self._cols = torch.tensor(self.label_columns, dtype=torch.long, device=self.device)
        self._lock = threading.Lock()

    # -- construction helpers -------------------------------------------------------------

    def _resolve_name(self, model: str | os.PathLike[str] | None) -> str:
        """Preset name, then local path, then hub id (returned as is)."""
        if model is None:
            model = "default"
        if isinstance(model, os.PathLike):
            path = Path(model).expanduser()
            if not path.exists():
                raise ModelNotFoundError(f"NLI model directory {str(path)!r} does not exist")
            return self._check_local_dir(path)
        if not isinstance(model, str):
            raise TypeError(
                f"model must be a preset name, a path or a hub id, got {type(model).__name__}"
            )
        name = model.strip()
        if not name:
            raise ValueError("model must not be empty")
        if name in PRESETS:
            self.preset = name
            if name == "default":
                if not (DEFAULT_MODEL_DIR / "config.json").is_file():
                    raise ModelNotFoundError(
                        f"the packaged NLI model is missing: {str(DEFAULT_MODEL_DIR)!r} has no "
                        "config.json (is this an incomplete install or a checkout without the "
                        "model?). Pass a hub id or a local path instead, e.g. "
                        "TransformersNLI('fast') for cross-encoder/nli-deberta-v3-xsmall, "
                        "TransformersNLI('cross-encoder/nli-deberta-v3-base') or "
                        "TransformersNLI('/path/to/model_dir')"
                    )
                return str(DEFAULT_MODEL_DIR)
            name = PRESETS[name]
        path = Path(name).expanduser()
        if path.exists():
            return self._check_local_dir(path)
        if _looks_like_path(name):
            raise ModelNotFoundError(f"NLI model directory {name!r} does not exist")
        return name  # a hub id

    @staticmethod
    def _check_local_dir(path: Path) -> str:
        if not path.is_dir():
            raise ModelNotFoundError(
                f"NLI model path {str(path)!r} is a file; pass the directory that holds config.json"
            )
        if not (path / "config.json").is_file():
            raise ModelNotFoundError(
                f"NLI model directory {str(path)!r} has no config.json "
                "(expected a directory written by save_pretrained)"
            )
        return str(path)

    @staticmethod
    def _resolve_device(torch: Any, device: str, quantize: bool) -> str:
        wanted = device.strip().lower()
        if wanted == "auto":
            if quantize:
                return "cpu"
            if torch.cuda.is_available():
                return "cuda"
            mps = getattr(torch.backends, "mps", None)
            if mps is not None and mps.is_available():
                return "mps"
            return "cpu"
        try:
            resolved = torch.device(wanted)
        except (RuntimeError, ValueError) as exc:
            raise ValueError(f"invalid device {device!r}: {exc}") from exc
        if quantize and resolved.type != "cpu":
            raise ValueError(f"quantize=True runs on CPU only, not on device {device!r}")
        return str(resolved)

    def _load(self, transformers: Any, name: str) -> tuple[Any, Any]:
        is_local = Path(name).is_dir()
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(name, trust_remote_code=False)
            model = transformers.AutoModelForSequenceClassification.from_pretrained(
                name, trust_remote_code=False
            )
        except OSError as exc:
            if is_local:
                msg = f"could not load the NLI model from directory {name!r}: {exc}"
            else:
                msg = (
                    f"NLI model {name!r} is neither a local directory nor loadable from the "
                    "Hugging Face hub (offline, or no such id?). Download it once with network "
                    "access, or pass the path of a local copy"
                )
            raise ModelNotFoundError(msg) from exc
        return tokenizer, model

    @staticmethod
    def _quantize(torch: Any, model: Any) -> Any:
        with warnings.catch_warnings():
            # torch.ao.quantization is deprecated in favour of torchao; it still works and is
            # the only dynamic int8 path that needs no extra dependency.
            warnings.simplefilter("ignore", category=DeprecationWarning)
            warnings.simplefilter("ignore", category=UserWarning)
            quantize_dynamic = getattr(torch.ao.quantization, "quantize_dynamic", None)
            if quantize_dynamic is None:  # pragma: no cover - future torch
                raise RuntimeError(
                    "quantize=True needs torch.ao.quantization.quantize_dynamic, which this "
                    f"torch {torch.__version__} no longer has"
                )
            return quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)

    # -- public surface -------------------------------------------------------------------

    @property
    def id2label(self) -> dict[int, str]:
        """The model's ``config.id2label`` (a copy)."""
        return dict(self._id2label)

    def __repr__(self) -> str:
        return (
            f"TransformersNLI(model={self.name!r}, device={self.device!r}, "
            f"batch_size={self.batch_size}, max_length={self.max_length}, "
            f"quantize={self.quantize}, runtime={self.runtime!r})"
        )

    def _predict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        n = len(premises)
        out = np.empty((n, 3), dtype=np.float64)
        if n == 0:
            return out
        torch = self._torch
        # Longest first: similar lengths share a batch (little padding) and the largest
        # allocation happens at once rather than at the end.
        order = sorted(range(n), key=lambda i: len(premises[i]) + len(hypotheses[i]), reverse=True)
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            batch_p = [premises[i] for i in idx]
            batch_h = [hypotheses[i] for i in idx]
            try:
                # Fast tokenizers mutate their truncation/padding state per call ("Already
                # borrowed" across threads), so tokenization sits inside the lock too.
                with self._lock, torch.inference_mode():
                    enc = self.tokenizer(
                        batch_p,
                        batch_h,
                        padding=True,
                        truncation="longest_first",
                        max_length=self.max_length,
                        return_tensors="pt",
                    )
                    if self._onnx is not None:
                        out[idx] = _softmax(self._onnx.logits(enc)[:, self.label_columns])
                        continue
                    enc = {k: v.to(self.device) for k, v in enc.items()}
                    logits = self.model(**enc).logits
                    probs = torch.softmax(logits.index_select(1, self._cols).float(), dim=-1)
                    out[idx] = probs.cpu().numpy()
            except (RuntimeError, ValueError) as exc:
                raise NLIError(f"{self.name}: NLI forward pass failed: {exc}") from exc
        return out
