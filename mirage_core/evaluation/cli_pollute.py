"""``mirage pollute``: reads passage or query rows, pollutes them with the Retrieval Pollution
Protocol (offline rules or a chat model) and writes the labelled rows back as JSONL.

Heavy imports stay inside the functions so that ``mirage --help`` is instant.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mirage_core.cli import say
from mirage_core.evaluation.cli_shared import _llm


def _read_rows(path: str) -> list[dict[str, Any]]:
    from mirage_core.jsonl import iter_jsonl

    return [row for _, row in iter_jsonl(path)]


def _passage_out(original: Any, item: Any) -> Any:
    from mirage_core.pollution.families import PollutedPassage

    return item.to_row() if isinstance(item, PollutedPassage) else original


def _run_pollute(args: argparse.Namespace) -> int:
    from mirage_core.pollution.families import LABEL_KEY, Family, Regime, apply_regime
    from mirage_core.pollution.rules import Corpus, RulePolluter
    from mirage_core.types import to_passage

    rows = _read_rows(args.input)
    if not rows:
        raise ValueError(f"{args.input}: no rows")
    family, regime = Family.parse(args.family), Regime.parse(args.regime)
    query_rows = all(isinstance(r.get("passages"), list) for r in rows)
    if not query_rows and not all(isinstance(r.get("text"), str) for r in rows):
        raise ValueError(
            f"{args.input}: rows must all be passages ({{text, ...}}) or all queries ({{query, passages}})"
        )
    for r in (p for row in rows for p in (row["passages"] if query_rows else [row])):
        if isinstance(r, dict) and LABEL_KEY in r:
            raise ValueError(
                f"{args.input}: passages are already polluted (they carry {LABEL_KEY!r})"
            )
    llm_polluter = None
    if args.llm:
        from mirage_core.pollution.llm import LLMPolluter

        llm_polluter = LLMPolluter(_llm(args.llm))
    total = polluted = 0
    out_rows: list[dict[str, Any]] = []
    if query_rows:
        background = Corpus(to_passage(p).text for row in rows for p in row["passages"])
        for i, row in enumerate(rows):
            passages = row["passages"]
            polluter = llm_polluter or RulePolluter(
                [to_passage(p).text for p in passages], background=background
            )
            items = apply_regime(
                passages,
                regime,
                family,
                polluter,
                seed=args.seed,
                rate=args.rate,
                key=str(row.get("id", i)),
            )
            new = dict(row)
            new["passages"] = [_passage_out(p, it) for p, it in zip(passages, items, strict=True)]
            new["regime"] = regime.value
            new["family"] = family.value if regime is not Regime.CLEAN else "none"
            out_rows.append(new)
            total += len(items)
            polluted += sum(LABEL_KEY in p for p in new["passages"] if isinstance(p, dict))
    else:
        polluter = llm_polluter or RulePolluter([r["text"] for r in rows])
        items = apply_regime(rows, regime, family, polluter, seed=args.seed, rate=args.rate)
        out_rows = [_passage_out(r, it) for r, it in zip(rows, items, strict=True)]
        total, polluted = len(items), sum(LABEL_KEY in r for r in out_rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        for row in out_rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    say(f"{args.family} / {args.regime}: polluted {polluted} of {total} passages -> {args.out}")
    return 0
