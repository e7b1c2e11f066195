"""The command line every candidate round shares: ``write`` the candidates' config files that
do not exist yet, ``report`` the choice from scoreboard JSON files (one of them
``default.json``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from research.corroborated_first import CANDIDATES, DEFAULT_RUN
from research.longform_candidates import load_runs

Runs = dict[str, dict[str, Any]]
#: A candidate's run judged against the default's: the figures to show, what it lost, its gain.
Judgement = tuple[list[str], list[str], float]
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
        # a file that exists holds the settings its round ran with (shared settings such as
        # the request overrides may have changed since): only new candidates are written
        for name, change in candidates.items():
            path = CANDIDATES / f"{name}.json"
            if not path.exists():
                path.write_text(json.dumps(change, indent=1) + "\n")
        return 0
    runs = load_runs(args.runs)
    if DEFAULT_RUN not in runs:
        p.error(f"one of the runs must be {DEFAULT_RUN}.json")
    print("\n".join(report(runs)))
    return 0


def choose(
    title: str,
    names: Iterable[str],
    runs: Runs,
    judge: Callable[[dict[str, Any], dict[str, Any]], Judgement],
) -> list[str]:
    """A round's report: ``title``, a line per candidate that ran (its figures, its losses,
    whether it qualifies: nothing lost and a positive gain), then the decision: the largest
    gain among those that qualify (ties to the earlier), or the default."""
    default = runs[DEFAULT_RUN]
    lines = [title, ""]
    best, best_gain = DEFAULT_RUN, 0.0
    for name in names:
        if name not in runs:
            continue
        shown, losses, gain = judge(runs[name], default)
        ok = not losses and gain > 1e-9
        lines.append(
            f"- {name}: {'; '.join(shown)}; losses: {'; '.join(losses) or 'none'} → "
            f"{'qualifies' if ok else 'does not qualify'}"
        )
        if ok and gain > best_gain:
            best, best_gain = name, gain
    lines.append(f"\ndecision: {'adopt ' + best if best != DEFAULT_RUN else 'the default stays'}")
    return lines
