"""How precise is the fact-conflict check, kind by kind?

- False positives: cross-source claim pairs of *clean* gpe-eval evidence (benign web passages of
  one claim, k = 10 or all when fewer, first 1,200 characters, claim filter on) whose token
  overlap reaches the given overlap (the pairs the check compared). Clean reputable pages
  about one claim are taken as compatible, so every flag is counted as a false positive.
- Recall: the pollution protocol's ``unambiguous`` swaps (a number, year, month or name of a
  clean sentence replaced by the rule polluter: original vs edited sentence), and Breaking NLI's
  contradiction pairs whose swapped word is a number (cardinals, ordinals) or a name (countries,
  nationalities, planets).
- Precision per kind, on a pool with as many swap pairs as clean pairs (balanced):
  recall / (recall + FP rate). The engine keeps a kind only at ≥ 95% on the report split.

Queries are split 50/50 (seeded, by claim id) into fit and report; both are printed.

    python -m research.factcheck_precision [FACT_OVERLAP [FACT_SIMILARITY]] \
        > research/results/factcheck_precision.txt

With no arguments it measures the check at overlap 0.5 and similarity 0.7 (the engine does not
run it: ``docs/decisions.md``); ``0.5 0`` is the check without the similarity floor (the
comparison in the docs).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from mirage_core.claims import extract_claims
from mirage_core.evaluation.gpe import find_gpe_file
from mirage_core.evaluation.instances import find_data_dir
from mirage_core.factcheck import FACT_KINDS, fact_conflict_kind
from mirage_core.pairs import candidate_pairs
from mirage_core.pollution.rules import RulePolluter
from mirage_core.types import Passage

KIND_OF_SWAP = {"year": "number", "number": "number", "percent": "number", "month": "month"}
BREAKING = {
    "cardinals": "number",
    "ordinals": "number",
    "countries": "name",
    "nationalities": "name",
    "planets": "name",
}


def split_of(qid: str) -> str:
    return "fit" if hashlib.sha1(f"fc|{qid}".encode()).digest()[0] % 2 == 0 else "report"


def gpe_passages(max_chars: int = 1200, k: int = 10):
    from mirage_core.evaluation.gpe import _gpe_passage

    with open(find_gpe_file(), encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            benign = (rec.get("evidence_environment") or {}).get("benign") or []
            yield str(rec.get("claim_id")), [_gpe_passage(b, max_chars) for b in benign[:k]]


def claims_of(passages: list[Passage]):
    sources = [p.resolved_source(i) for i, p in enumerate(passages)]
    return extract_claims(
        passages,
        indices=list(range(len(passages))),
        sources=sources,
        domains=[p.resolved_domain(i) for i, p in enumerate(passages)],
        scores=[1.0] * len(passages),
        min_tokens=2,
        max_claims_per_passage=64,
        max_chars=20_000,
        filter_non_claims=True,
    )


def main() -> int:
    overlap = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5
    sim = float(sys.argv[2]) if len(sys.argv) > 2 else 0.7
    clean_total = Counter()
    clean_flag: dict[tuple[str, str], int] = Counter()
    swap_total: dict[tuple[str, str], int] = Counter()
    swap_flag: dict[tuple[str, str], int] = Counter()
    examples: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for qid, passages in gpe_passages():
        sp = split_of(qid)
        claims = claims_of(passages)
        pairs = candidate_pairs(claims, overlap)
        clean_total[sp] += len(pairs)
        for a, b in zip(pairs.left, pairs.right, strict=True):
            kind = fact_conflict_kind(claims[a].text, claims[b].text, min_similarity=sim)
            if kind:
                clean_flag[(sp, kind)] += 1
                if sp == "fit" and len(examples[kind]) < 6:
                    examples[kind].append((claims[a].text, claims[b].text))
        polluter = RulePolluter([p.text for p in passages])
        for c in claims[::3]:  # a third of the sentences: enough swaps, bounded time
            cands = polluter.candidates(c.text, "unambiguous")
            for cand in cands[:2]:
                op = cand.ops[0]
                edited = c.text[: op.start] + op.replacement + c.text[op.end :]
                kind = "name" if cand.kind == "name" else KIND_OF_SWAP.get(cand.kind)
                if kind is None or edited == c.text:
                    continue
                swap_total[(sp, kind)] += 1
                if fact_conflict_kind(c.text, edited, min_similarity=sim) == kind:
                    swap_flag[(sp, kind)] += 1
    br_total: Counter = Counter()
    br_flag: Counter = Counter()
    data = find_data_dir(required=False)
    bfile = None if data is None else data / "nli/BIU-NLP+Breaking_NLI/extracted/data/dataset.jsonl"
    if bfile is not None and Path(bfile).is_file():
        for line in open(bfile, encoding="utf-8"):
            r = json.loads(line)
            kind = BREAKING.get(r.get("category"))
            if kind is None or r.get("gold_label") != "contradiction":
                continue
            br_total[kind] += 1
            if fact_conflict_kind(r["sentence1"], r["sentence2"], min_similarity=sim) == kind:
                br_flag[kind] += 1

    print(
        f"fact check at fact_overlap = {overlap}, min_similarity = {sim}; gpe-eval clean cross-source pairs per split: "
        + ", ".join(f"{sp} {clean_total[sp]}" for sp in ("fit", "report"))
    )
    print()
    print(
        "| kind | split | clean pairs flagged (FP) | FP rate | swap recall | Breaking NLI recall | precision (balanced) |"
    )
    print("|---|---|---|---|---|---|---|")
    for kind in FACT_KINDS:
        for sp in ("fit", "report"):
            fp = clean_flag[(sp, kind)]
            fpr = fp / clean_total[sp] if clean_total[sp] else 0.0
            n_sw = swap_total[(sp, kind)]
            rec = swap_flag[(sp, kind)] / n_sw if n_sw else 0.0
            br = (
                f"{br_flag[kind] / br_total[kind]:.1%} of {br_total[kind]}"
                if br_total[kind]
                else "—"
            )
            prec = rec / (rec + fpr) if rec + fpr else 0.0
            print(f"| {kind} | {sp} | {fp} | {fpr:.2%} | {rec:.1%} of {n_sw} | {br} | {prec:.1%} |")
    print()
    print("False-positive examples (fit split):")
    for kind, pairs in examples.items():
        for a, b in pairs:
            print(f"  [{kind}] {a[:110]!r}\n          {b[:110]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
