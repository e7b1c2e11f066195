"""The command line every candidate round shares: ``write`` the candidates' config files,
``report`` the choice from scoreboard JSON files (one of them ``default.json``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from typing import Any

from research.corroborated_first import CANDIDATES, DEFAULT_RUN
from research.longform_candidates import load_runs

Runs = dict[str, dict[str, Any]]
#: Extra subcommands: given the subparsers, add them and return name → handler.
Extra = Callable[[Any], Mapping[str, Callable[[argparse.Namespace], int]]]


def candidates_main(
    argv: list[str] | None,
    doc: str,
    candidates: Mapping[str, dict[str, Any]],
    report: Callable[[Runs], list[str]],
    extra: Extra | None = None,
) -> int:
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("write", help="write the candidates' JSON")
    r = sub.add_parser("report", help="the choice, from scoreboard JSON files")
    r.add_argument("runs", nargs="+")
    handlers = dict(extra(sub)) if extra else {}
    args = p.parse_args(argv)
    if args.cmd in handlers:
        return handlers[args.cmd](args)
    if args.cmd == "write":
        for name, change in candidates.items():
            (CANDIDATES / f"{name}.json").write_text(json.dumps(change, indent=1) + "\n")
        return 0
    runs = load_runs(args.runs)
    if DEFAULT_RUN not in runs:
        p.error(f"one of the runs must be {DEFAULT_RUN}.json")
    print("\n".join(report(runs)))
    return 0
