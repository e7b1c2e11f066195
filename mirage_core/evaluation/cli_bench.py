"""``mirage bench``: runs every system on a dataset (in process or on a Ray cluster), prints
the tables and writes the JSON, Markdown and PNG reports, recording the command line, the code
version and the hardware with them.

Heavy imports (datasets, the NLI model, matplotlib) stay inside the handler so that
``mirage --help`` is instant.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from mirage_core.cli import say
from mirage_core.evaluation.cli_shared import _config, _llm, _load, _nli, _nli_kwargs, _Progress


def _command_line(args: argparse.Namespace) -> str:
    argv = sys.argv[1:]
    if argv and argv[0] == args.command:
        return "mirage " + shlex.join(argv)
    return f"mirage {args.command} --dataset {args.dataset}"


def _code_version() -> str:
    """The mirage version and, in a git checkout, the commit (and whether mirage_core differs)."""
    import subprocess

    import mirage_core

    out = f"mirage {mirage_core.__version__}"
    root = Path(mirage_core.__file__).resolve().parent.parent
    try:
        rev = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "mirage_core"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return out
    return f"{out}, commit {rev}" + (" + uncommitted changes in mirage_core/" if dirty else "")


def _hardware(nli: Any) -> str:
    import platform

    device = getattr(nli, "device", "cpu")
    threads = None
    torch = getattr(nli, "_torch", None)
    if torch is not None:
        threads = torch.get_num_threads()
    cpu = f"{os.cpu_count()} CPU cores" + (f", {threads} torch threads" if threads else "")
    return f"{platform.machine()} {cpu}, device {device}"


def _run_bench(args: argparse.Namespace) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from mirage_core.evaluation.harness import (
        ALL_SYSTEMS,
        SYSTEMS,
        generate_answers,
        run_benchmark,
    )
    from mirage_core.evaluation.report import family_table, latency_table, main_table, write_report

    config = _config(args)
    systems = args.systems or list(SYSTEMS)
    unknown = [s for s in systems if s not in ALL_SYSTEMS]
    if unknown:
        raise ValueError(f"unknown systems {unknown}; expected some of {list(ALL_SYSTEMS)}")
    dataset = _load(args)
    nli = None if args.ray else _nli(args)
    llm = _llm(args.llm) if args.llm else None
    bar = _Progress(len(dataset), f"bench {dataset.name}", not args.no_progress)
    kwargs: dict[str, Any] = {
        "config": config,
        "systems": systems,
        "batch_size": args.batch_size,
        "cold_cache": not args.shared_cache,
        "progress": bar,
    }
    settings = {
        "model": args.model or "packaged (mirage-nli-minilm-l6)",
        "seed": args.seed,
        "limit": args.limit,
        "config_file": args.config,
        "command": _command_line(args),
        "code": _code_version(),
    }
    try:
        if args.ray:
            from mirage_core.evaluation.distributed import run_benchmark_ray

            result = run_benchmark_ray(
                dataset,
                args.model,
                address=None if args.ray == "local" else args.ray,
                nli_kwargs=_nli_kwargs(args),
                settings={**settings, "hardware": "Ray cluster (see settings.ray)"},
                **kwargs,
            )
        else:
            result = run_benchmark(
                dataset, nli, settings={**settings, "hardware": _hardware(nli)}, **kwargs
            )
    finally:
        bar.close()
    if llm is not None:
        bar = _Progress(len(dataset) * len(systems), "answers", not args.no_progress)
        try:
            generate_answers(result, llm, progress=bar)
        finally:
            bar.close()
    paths = write_report(result, args.out, plots=not args.no_plots)
    rows = result.rows()
    qa = bool(result.dataset.get("qa"))
    say()
    say(
        f"{dataset.name}: {dataset.n_queries} queries, {len(dataset)} inputs, {result.wall_s:.0f} s"
    )
    say()
    say(main_table(rows, result.systems, qa=qa))
    say()
    say(family_table(rows, result.systems, qa=qa))
    say()
    say(latency_table(rows, cold_cache=not args.shared_cache))
    say()
    if paths.get("note"):
        say(paths["note"])
    say(
        f"wrote {paths['markdown']}, {paths['json']}, {paths['instances']}"
        + (", " + ", ".join(paths["plots"]) if paths["plots"] else "")
    )
    return 0
