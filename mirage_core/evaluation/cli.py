"""``mirage pollute``, ``mirage calibrate`` and ``mirage bench`` (registered by mirage_core.cli):
the argument parsers. Each command runs in a module of its own (cli_pollute, cli_calibrate,
cli_bench); what they share is in cli_shared.

Heavy imports (datasets, the NLI model, matplotlib, tqdm) stay inside the handlers so that
``mirage --help`` is instant.
"""

from __future__ import annotations

import argparse
from typing import Any

from mirage_core.cli import int_at_least
from mirage_core.evaluation.cli_bench import _run_bench
from mirage_core.evaluation.cli_calibrate import _run_calibrate
from mirage_core.evaluation.cli_pollute import _run_pollute

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
        "--batch-size",
        type=int_at_least(1),
        default=16,
        help="queries per shared NLI call (default 16)",
    )
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads for the NLI model")
    p.add_argument(
        "--quantize",
        choices=["static-int8"],
        default=None,
        help="the NLI model's static int8 ONNX graph (the [onnx-int8] extra; default fp32)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
