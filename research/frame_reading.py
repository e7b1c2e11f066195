"""How NLI models read a sentence beside itself in a frame (a diagnostic; it changes nothing).

Held-out sentences of the NLI evaluation sets (never trained on), each wrapped in a frame
that retracts it ("The claim that … has since been debunked") or only reports it ("Word on
social media is that …"). Frames are read in three sets: the frames the frame pairs train on
(:data:`training.frames.RETRACTING` / ``REPORTING``), frames held out of that training
(``HELD_OUT_*``), and the Retrieval Pollution Protocol's ``misleading`` frames
(:mod:`mirage_core.pollution.rules`, never trained on). For each: the share of pairs, both
orders, the model reads as a contradiction (argmax) and as an entailment, and the mean
p_contra.

    python -m research.frame_reading [--models "" runs/nli-frames-cpu] [--n 300]
"""

from __future__ import annotations

import argparse
import os
import random
from pathlib import Path

import numpy as np

from mirage_core.pollution.vocabulary import _FRAMES as PROTOCOL_FRAMES
from training.data import build_splits
from training.frames import HELD_OUT_REPORTING, HELD_OUT_RETRACTING, REPORTING, RETRACTING, frame

#: (name, frames, the label a reader should give)
FRAME_SETS = (
    ("trained retracting", RETRACTING, "contradiction"),
    ("trained reporting", REPORTING, "neutral"),
    ("held-out retracting", HELD_OUT_RETRACTING, "contradiction"),
    ("held-out reporting", HELD_OUT_REPORTING, "neutral"),
    ("protocol misleading frames", PROTOCOL_FRAMES, "—"),
)


def framed_pairs(sentences: list[str], frames, seed: int) -> tuple[list[str], list[str]]:
    """Both orders of (plain, framed) for each sentence the frames take, one frame each."""
    rng = random.Random(seed)
    premises, hypotheses = [], []
    for s in sentences:
        framed = frame(s, rng.choice(frames))
        if framed is None:
            continue
        plain = " ".join(s.split())
        premises += [plain, framed]
        hypotheses += [framed, plain]
    return premises, hypotheses


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="*", default=[""], help="'' = the packaged model")
    p.add_argument("--n", type=int, default=300, help="held-out sentences")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from mirage_core.nli.transformers_nli import TransformersNLI

    pool = build_splits().heldout_sentences()
    sentences = random.Random(args.seed).sample(pool, min(args.n, len(pool)))
    print(f"{len(sentences)} held-out sentences (seed {args.seed}), both orders")
    print(
        "| model | frames | should read | pairs | read as contradiction | as entailment | mean p_contra |"
    )
    print("|---|---|---|---|---|---|---|")
    for model in args.models:
        nli = TransformersNLI(model or None, batch_size=64)
        label = model or Path(nli.name).name
        for name, frames, should in FRAME_SETS:
            prem, hyp = framed_pairs(sentences, frames, args.seed)
            probs = np.asarray(nli.predict(prem, hyp))
            top = probs.argmax(axis=1)
            print(
                f"| {label} | {name} | {should} | {len(prem)} | {np.mean(top == 2):.1%} | "
                f"{np.mean(top == 0):.1%} | {probs[:, 2].mean():.2f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
