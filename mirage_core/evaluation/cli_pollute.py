"""``mirage pollute``: reads passage or query rows, pollutes them with the Retrieval Pollution
Protocol (offline rules or a chat model) and writes the labelled rows back as JSONL.

Heavy imports stay inside the functions so that ``mirage --help`` is instant.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, cast

from mirage_core.cli import check_passage, say
from mirage_core.evaluation.cli_shared import _llm


def _passages_key(row: dict[str, Any]) -> str | None:
    """The first of the keys the benchmark loader reads passages from whose value is a list."""
    from mirage_core.evaluation.datasets import PASSAGE_KEYS

    return next((k for k in PASSAGE_KEYS if isinstance(row.get(k), list)), None)


def _read_rows(path: str) -> list[dict[str, Any]]:
    """The file's rows, each passage checked as the engine reads it: a passage that is none
    (a number, a mapping without text, a score that is no number) is an error naming its
    line, not a traceback later."""
    from mirage_core.jsonl import iter_jsonl

    rows = []
    for lineno, row in iter_jsonl(path):
        key = _passages_key(row)
        if key is None and "text" not in row:
            rows.append(row)  # neither kind of row: the caller says so for the whole file
            continue
        for j, p in enumerate(row[key] if key else [row]):
            check_passage(p, f"{path}:{lineno}: {f'passage {j}' if key else 'row'}")
        rows.append(row)
    return rows


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
    query_rows = all(_passages_key(r) is not None for r in rows)
    if not query_rows and not all(isinstance(r.get("text"), str) for r in rows):
        raise ValueError(
            f"{args.input}: rows must all be passages ({{text, ...}}) or all queries ({{query, "
            "passages}}; or contexts / documents)"
        )
    # with query_rows every row has a passages key
    of_rows = (row[cast(str, _passages_key(row))] if query_rows else [row] for row in rows)
    for r in (p for passages in of_rows for p in passages):
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
        background = Corpus(
            to_passage(p).text for row in rows for p in row[_passages_key(row) or "passages"]
        )
        for i, row in enumerate(rows):
            key = _passages_key(row) or "passages"
            passages = row[key]
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
            new[key] = [_passage_out(p, it) for p, it in zip(passages, items, strict=True)]
            new["regime"] = regime.value
            new["family"] = family.value if regime is not Regime.CLEAN else "none"
            out_rows.append(new)
            total += len(items)
            polluted += sum(LABEL_KEY in p for p in new[key] if isinstance(p, dict))
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
