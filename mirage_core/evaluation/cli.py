"""``mirage pollute``, ``mirage calibrate`` and ``mirage bench`` (registered by mirage_core.cli).

Heavy imports (datasets, the NLI model, matplotlib, tqdm) stay inside the handlers so that
``mirage --help`` is instant.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from mirage_core.cli import say

__all__ = ["register"]

_FAMILIES = ("unambiguous", "conflicting", "misleading", "fabricated")
_DATASET_HELP = (
    "gpe, poisonedrag-nq, poisonedrag-hotpotqa (adaptive poisons: add :paraphrase, :synonym or "
    ":dispersed, e.g. poisonedrag-nq:dispersed), or a JSONL file of {query, passages[, answer, "
    "incorrect_answer]} rows"
)


def _comma_list(convert: Any, what: str) -> Any:
    """An argparse ``type`` for "a,b,c" lists of ``convert``-ed values."""

    def parse(text: str) -> list[Any]:
        try:
            return [convert(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated {what}, got {text!r}"
            ) from None

    return parse


_floats = _comma_list(float, "numbers")
_ints = _comma_list(int, "integers")


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def register(subparsers: Any) -> None:
    """Add ``pollute``, ``calibrate`` and ``bench`` to an ``argparse`` subparsers object."""
    # -- pollute ------------------------------------------------------------------------------
    p = subparsers.add_parser(
        "pollute",
        help="pollute passages with the Retrieval Pollution Protocol (JSONL in, JSONL out)",
        description=(
            "Make polluted variants of passages (docs/method.md). Input rows are either passages "
            "({text, source|url, score, ...}: the whole file is one evidence set) or queries "
            "({query, passages: [...]}: each row's passages are one evidence set). Polluted "
            "passages carry their labels (family, original text, edited spans) under "
            "'mirage_pollution'; `mirage bench` reads them back."
        ),
    )
    p.add_argument("--in", dest="input", required=True, help="input JSONL")
    p.add_argument("--out", required=True, help="output JSONL")
    p.add_argument("--family", required=True, choices=_FAMILIES, help="pollution family")
    p.add_argument(
        "--regime",
        default="full",
        choices=("clean", "mixed", "full"),
        help="share of each evidence set polluted: full (every passage, default), mixed (--rate, seeded) or clean",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=0.5,
        help="share of passages polluted in the mixed regime (0.5)",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="random seed (same input + seed = same output)"
    )
    p.add_argument(
        "--llm",
        default=None,
        help="pollute with an LLM instead of the offline rules: 'provider:model' for "
        "langchain's init_chat_model, or 'module:attribute' naming a chat model",
    )
    p.set_defaults(func=_run_pollute)

    # -- calibrate ----------------------------------------------------------------------------
    c = subparsers.add_parser(
        "calibrate",
        help="fit the gate thresholds on a split of a dataset (NLI runs once per pair)",
        description=(
            "Grid search of r_max, d_min (and tau, kappa, the coordination thresholds) over "
            "cached NLI outputs: the model "
            "scores each pair once, every grid point re-runs the engine on cache hits only. "
            "Thresholds are fitted on a seeded split and reported on the held-out rest; the "
            "best configuration is written as JSON that MirageConfig.from_file and "
            "`mirage defend --config` load."
        ),
    )
    _common(c)
    c.add_argument(
        "--r-max",
        type=_floats,
        default=None,
        help="r_max values, e.g. 0.1,0.2,0.3 (default: 0.05..1.0)",
    )
    c.add_argument("--d-min", type=_ints, default=None, help="d_min values, e.g. 1,2,3 (default)")
    c.add_argument(
        "--tau", type=_floats, default=None, help="tau values (default: the base config's)"
    )
    c.add_argument(
        "--kappa", type=_floats, default=None, help="kappa values (default: the base config's)"
    )
    c.add_argument(
        "--coordination-threshold",
        type=_floats,
        default=None,
        help="coordination_threshold values, e.g. 2,2.5,3 (default: the base config's)",
    )
    c.add_argument(
        "--coordination-isolated-threshold",
        type=_floats,
        default=None,
        help="coordination_isolated_threshold values (default: the base config's)",
    )
    c.add_argument(
        "--answer-conflict-context",
        type=_names,
        default=None,
        help="answer_conflict_context choices, e.g. claim,lead+previous (default: the base config's)",
    )
    c.add_argument(
        "--redundancy-filter",
        type=_names,
        default=None,
        help="redundancy_filter choices, e.g. none,multi_hop (default: the base config's)",
    )
    c.add_argument(
        "--objective",
        default="pass_gap",
        choices=("pass_gap", "exposure_gap"),
        help="pass_gap: CLEAN pass − FULL pass (default); exposure_gap: CLEAN pass − polluted-claim exposure",
    )
    c.add_argument(
        "--min-retention",
        type=float,
        default=0.5,
        help="floor on MIXED retention (default 0.5; -1 for none)",
    )
    c.add_argument(
        "--fit-fraction", type=float, default=0.5, help="share of queries used to fit (default 0.5)"
    )
    c.add_argument("--top", type=int, default=15, help="rows of the trade-off table printed")
    c.add_argument(
        "--out", default="mirage-calibrated.json", help="where to write the best configuration"
    )
    c.set_defaults(func=_run_calibrate)

    # -- bench --------------------------------------------------------------------------------
    b = subparsers.add_parser(
        "bench",
        help="benchmark no-RAG, vanilla RAG, mirage and its ablations; writes JSON, Markdown and PNG reports",
        description=(
            "Run every system on the same inputs (CLEAN / MIXED / FULL evidence per query) and "
            "report gate pass rate, contamination, exposure, retention, answer-in-evidence rates "
            "(QA sets) and latency, per regime and pollution family."
        ),
    )
    _common(b)
    b.add_argument(
        "--out",
        required=True,
        help="output folder (report.json, report.md, instances.jsonl, *.png)",
    )
    b.add_argument(
        "--systems",
        type=_names,
        default=None,
        help="comma-separated subset of no_rag,vanilla_rag,mirage,mirage_no_contradiction_gate,"
        "mirage_no_diversity_gate,mirage_paper,ragdefender (default: all but the ragdefender "
        "baseline, which needs scikit-learn: pip install 'mirage-rag[bench]')",
    )
    b.add_argument(
        "--shared-cache",
        action="store_true",
        help="keep the NLI pair cache across regimes (faster; later regimes' latency is under-stated)",
    )
    b.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    b.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="spread the inputs over a Ray cluster, one task per regime × family group "
        "('auto', 'ray://head:10001'; no ADDRESS: a local Ray instance). Same report; "
        "needs pip install 'mirage-rag[serve]'",
    )
    b.add_argument(
        "--llm",
        default=None,
        help="also generate answers on each route with a chat model: 'provider:model' "
        "(langchain init_chat_model) or 'module:attribute'",
    )
    b.set_defaults(func=_run_bench)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", required=True, help=_DATASET_HELP)
    p.add_argument(
        "--model",
        default=None,
        help="NLI model: preset (paper, base, fast), hub id or local path (default: the packaged "
        "model), or 'module:attribute' naming a backend or a scorer function",
    )
    p.add_argument(
        "--config", default=None, help="JSON of MirageConfig fields (e.g. from `mirage calibrate`)"
    )
    p.add_argument(
        "--limit", type=int, default=None, help="seeded subsample of N queries (default: all)"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the subsample, the pollution and the split"
    )
    p.add_argument(
        "--families",
        type=_names,
        default=None,
        help="JSONL datasets: pollution families (default: all four); gpe: attack types (default: all four)",
    )
    p.add_argument("--k", type=int, default=5, help="gpe: passages per query (default 5)")
    p.add_argument(
        "--max-chars",
        type=int,
        default=1200,
        help="gpe: characters kept per passage, whole sentences (default 1200)",
    )
    p.add_argument(
        "--batch-size", type=int, default=16, help="queries per shared NLI call (default 16)"
    )
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads for the NLI model")
    p.add_argument(
        "--quantize",
        choices=["static-int8"],
        default=None,
        help="the NLI model's static int8 ONNX graph (the [onnx-int8] extra; default fp32)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


# -- helpers ------------------------------------------------------------------------------------


def _nli_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Settings of the packaged / transformers backend the bench and calibrate commands use."""
    kwargs: dict[str, Any] = {
        "batch_size": max(8, min(128, 4 * args.batch_size)),
        "torch_threads": args.threads,
    }
    if getattr(args, "quantize", None):
        kwargs["quantize"] = args.quantize
    return kwargs


def _nli(args: argparse.Namespace) -> Any:
    from mirage_core.nli.loading import load_backend

    return load_backend(args.model, **_nli_kwargs(args))


def _llm(spec: str) -> Any:
    from mirage_core.nli.loading import import_object

    obj = import_object(spec)
    if obj is not None:
        if isinstance(obj, type) or (callable(obj) and not callable(getattr(obj, "invoke", None))):
            obj = obj()
        return obj
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ValueError(
            f"--llm {spec!r}: 'provider:model' needs the langchain package (pip install langchain "
            "and the provider's integration), or pass 'module:attribute' naming a chat model"
        ) from None
    provider, _, model = spec.partition(":")
    return init_chat_model(
        model or provider, model_provider=provider if model else None, temperature=0
    )


def _config(args: argparse.Namespace):
    from mirage_core.config import MirageConfig

    return MirageConfig.from_file(args.config) if args.config else MirageConfig()


def _load(args: argparse.Namespace):
    from mirage_core.evaluation.datasets import load_dataset

    name = str(args.dataset).lower()
    kwargs: dict[str, Any] = {}
    if name in ("gpe", "gpe-eval"):
        kwargs.update(k=args.k, max_chars=args.max_chars)
        if args.families:
            kwargs["attacks"] = args.families
    elif args.families and Path(args.dataset).is_file():
        kwargs["families"] = args.families
    return load_dataset(args.dataset, limit=args.limit, seed=args.seed, **kwargs)


class _Progress:
    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(
                    total=total, desc=desc, unit="input", file=sys.stderr, dynamic_ncols=True
                )
            except ImportError:
                self.bar = None

    def __call__(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


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


# -- handlers -----------------------------------------------------------------------------------


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


def _run_calibrate(args: argparse.Namespace) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from mirage_core.evaluation.calibrate import (
        CHOICE_PARAMS,
        DEFAULT_GRID,
        ENGINE_PARAMS,
        calibrate,
    )

    base = _config(args)
    dataset = _load(args)
    nli = _nli(args)
    grid: dict[str, Any] = {
        "r_max": args.r_max or DEFAULT_GRID["r_max"],
        "d_min": args.d_min or DEFAULT_GRID["d_min"],
    }
    if args.tau:
        grid["tau"] = args.tau
    if args.kappa:
        grid["kappa"] = args.kappa
    if args.coordination_threshold:
        grid["coordination_threshold"] = args.coordination_threshold
    if args.coordination_isolated_threshold:
        grid["coordination_isolated_threshold"] = args.coordination_isolated_threshold
    for name in CHOICE_PARAMS:
        if getattr(args, name):
            grid[name] = getattr(args, name)
    # engine runs
    n_te = math.prod(len(grid.get(name, [0])) for name in (*ENGINE_PARAMS, *CHOICE_PARAMS))
    bar = _Progress(len(dataset) * (1 + n_te), f"calibrate {dataset.name}", not args.no_progress)
    try:
        result = calibrate(
            dataset,
            nli,
            base=base,
            grid=grid,
            objective=args.objective,
            min_retention=None
            if args.min_retention is not None and args.min_retention < 0
            else args.min_retention,
            fit_fraction=args.fit_fraction,
            seed=args.seed,
            batch_size=args.batch_size,
            progress=bar,
        )
    finally:
        bar.close()
    result.write(args.out)
    b, base_pt = result.best, result.base
    say()
    say(
        f"dataset {dataset.name}: {dataset.n_queries} queries ({result.split['fit_queries']} fit, "
        f"{result.split['held_out_queries']} held out), {len(dataset)} inputs; objective {result.objective}"
        f" with MIXED retention ≥ {result.min_retention}"
    )
    say(
        f"NLI: {result.nli['prefill_pair_evaluations']} pair evaluations in the prefill; "
        f"grid: {result.nli['grid_cache_hits']} cache hits, {result.nli['grid_cache_misses']} cache misses"
    )
    say()
    say("trade-off (metrics on the fit split; the last column on the held-out split):")
    say(result.table_markdown(top=args.top))
    say()
    say(
        "best: "
        + ", ".join(f"{k}={v}" if isinstance(v, str) else f"{k}={v:g}" for k, v in b.params.items())
        + ("" if result.feasible else "  (no point met the retention floor)")
    )
    for label, pt in (("best", b), ("base", base_pt)):
        if pt.held_out:
            h = pt.held_out
            say(
                f"held-out {label}: pass CLEAN {_pc(h.get('pass_clean'))}, MIXED {_pc(h.get('pass_mixed'))}, "
                f"FULL {_pc(h.get('pass_full'))}; MIXED retention {_pc(h.get('retention_mixed'))}, "
                f"contamination {_pc(h.get('contamination_mixed'))}; objective {h.get('objective') if h.get('objective') is None else round(h['objective'], 3)}"
            )
    say(f"wrote {args.out} (load with MirageConfig.from_file or `mirage defend --config`)")
    return 0


def _pc(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


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
