"""Poisons padded past the coordination length ceiling: `python -m research.padded_poisons`.

The coordination model never flags a group whose passages hold a median of more content tokens
than the longest honest passage it was fit on (``CoordinationModel.max_tokens``). An attacker
who knows it pads each poison with filler until it is longer. This measures what that buys:
PoisonedRAG NQ and HotpotQA poisons (the first ``--n`` questions of each), each followed by
neutral filler sentences (``mirage_core.evaluation.adaptive.pad``, a seeded draw per poison) up to ``--tokens`` content
tokens, alone and with the gold passage, under three configurations: the candidate with the
ceiling at 119 content tokens and relevant-only pairing, relevant-only pairing alone, and the
default (neither).
"""

from __future__ import annotations

import argparse
import random

from benchmarks._pair_store import PackagedStoredNLI
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.adaptive import PADDED_TOKENS, _contains, pad
from mirage_core.evaluation.poisonedrag import load_poisonedrag
from mirage_core.types import Passage


def run(configs: dict[str, MirageConfig], n: int, tokens: int, seed: int) -> dict:
    nli = PackagedStoredNLI()
    results: dict = {name: {"full": [], "mixed": []} for name in configs}
    for name in ("nq", "hotpotqa"):
        ds = load_poisonedrag(name, limit=n, seed=seed)
        for inst in ds.instances:
            if inst.regime not in ("full", "mixed"):
                continue
            rng = random.Random(f"{seed}:{inst.qid}:{inst.regime}")
            passages = [
                Passage(pad(p.text, tokens, rng), source=p.source, domain=p.domain) if spans else p
                for p, spans in zip(inst.passages, inst.spans, strict=True)
            ]
            for cname, config in configs.items():
                v = Mirage(config, nli=nli).defend(inst.query, passages)
                text = " ".join(v.claims[i].text for i in v.selected) if v.passed else ""
                wrong = any(_contains(text, a) for a in inst.incorrect)
                right = any(_contains(text, a) for a in inst.correct)
                results[cname][inst.regime].append((v.passed, wrong, right))
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=20, help="questions per dataset")
    p.add_argument("--tokens", type=int, default=PADDED_TOKENS, help="content tokens per poison")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    base = MirageConfig()
    configs = {
        "pairs-relevant-only-longest-passage": base.replace(
            coordination_max_tokens=119.0, pair_relevant_only=True
        ),
        "pairs-relevant-only": base.replace(pair_relevant_only=True),
        "default": base,
    }
    res = run(configs, args.n, args.tokens, args.seed)
    print(
        f"PoisonedRAG NQ + HotpotQA, first {args.n} questions each; poisons padded to "
        f"{args.tokens} content tokens with neutral filler\n"
    )
    print(
        "| configuration | padded poisons alone blocked | gold + 5 padded: wrong answer "
        "delivered | gold + 5 padded: correct answer only |"
    )
    print("|---|---|---|---|")
    for name, r in res.items():
        full, mixed = r["full"], r["mixed"]
        blocked = sum(not passed for passed, _, _ in full) / max(len(full), 1)
        wrong = sum(w for _, w, _ in mixed) / max(len(mixed), 1)
        only = sum(c and not w for _, w, c in mixed) / max(len(mixed), 1)
        print(f"| {name} | {100 * blocked:.1f}% | {100 * wrong:.1f}% | {100 * only:.1f}% |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
