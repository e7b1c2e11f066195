"""Verdicts of the torch-free runtime against torch fp32, on the scoreboard's own inputs.

The NLI parity check (``benchmarks/nli_runtime.py --parity``) compares probabilities pair by
pair; this compares what a user sees. The default ``MirageConfig()`` defends the same inputs
twice: once with torch fp32 (``TransformersNLI`` and ``MiniLMEmbedder``, read from the
scoreboard's pair and vector stores, which hold exactly their scores), once with the ONNX
runtime (``OnnxNLI`` and ``OnnxEmbedder``, every pair and text computed afresh). Per input it
compares the decision and the delivered claims; per dataset, regime and pollution family the
scoreboard's figures (pass rate, contamination, answers in the delivered evidence).

    python -m benchmarks.runtime_verdicts [--gpe-n 50] [--prag-n 30] [--family-n 20]
        [--biogen-n 8] [--quantize static-int8] [--out benchmarks/results/runtime_verdicts.txt]

``--quantize static-int8`` runs the ONNX side on the static int8 graph (and writes
``runtime_verdicts-static-int8.txt`` by default); :func:`main` also takes another NLI backend
for the ONNX side (``nli=``, named ``nli_name``), as research scripts compare graphs that do not
ship.

One line per input that differs follows the tables, with both verdicts' reasons.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import BIOGEN_DEFAULT, biogen, gpe
from benchmarks.shortqa import load_shortqa
from mirage_core import MirageConfig
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.harness import run_benchmark
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.records import InstanceRecord, aggregate

FIGURES = ("pass_rate", "contamination", "correct_in_evidence", "incorrect_in_evidence")


def loaders(args: argparse.Namespace) -> dict[str, Callable[[], Dataset]]:
    """The datasets compared, each at its sample size (the scoreboard's loaders and seed)."""
    out: dict[str, Callable[[], Dataset]] = {
        "gpe-k5": lambda: gpe(5, args.gpe_n, args.seed),
        "poisonedrag-nq": lambda: load_dataset("poisonedrag-nq", limit=args.prag_n, seed=args.seed),
        "poisonedrag-hotpotqa": lambda: load_dataset(
            "poisonedrag-hotpotqa", limit=args.prag_n, seed=args.seed
        ),
    }
    for family in args.families.split(","):
        name = f"poisonedrag-nq:{family}"
        out[name] = lambda name=name: load_dataset(name, limit=args.family_n, seed=args.seed)
    out["shortqa"] = lambda: _first_queries(load_shortqa(seed=args.seed), args.shortqa_n)
    if args.biogen_n and Path(args.biogen).exists():
        out["biogen-k10"] = lambda: biogen(Path(args.biogen), 10, args.biogen_n, args.seed)
    return out


def _first_queries(ds: Dataset, n: int) -> Dataset:
    keep = set(list(dict.fromkeys(i.qid for i in ds.instances))[:n])
    ds.instances = [i for i in ds.instances if i.qid in keep]
    return ds


def onnx_models(quantize: str | None = None, nli: Any = None) -> tuple[Any, Any]:
    """The ONNX runtime's models (``nli``, else the NLI model's fp32 graph or the int8 one
    ``quantize`` names), nothing stored: every score is its own."""
    from mirage_core.embeddings import OnnxEmbedder
    from mirage_core.nli.onnx_nli import OnnxNLI

    if nli is None:
        nli = OnnxNLI(None, batch_size=64, quantize=quantize)
    return nli, OnnxEmbedder()


def _key(r: InstanceRecord) -> tuple[str, str, str]:
    return (r.qid, r.regime, r.family)


def compare(
    a: Sequence[InstanceRecord], b: Sequence[InstanceRecord]
) -> tuple[int, int, list[tuple[InstanceRecord, InstanceRecord]]]:
    """``(same decision, same delivered claims, the pairs whose verdicts differ)``."""
    by_key = {_key(r): r for r in b}
    same_decision = same_delivered = 0
    differ = []
    for ra in a:
        rb = by_key[_key(ra)]
        x, y = ra.routes["mirage"], rb.routes["mirage"]
        same_decision += x.decision == y.decision
        same_delivered += x.delivered == y.delivered
        if x.decision != y.decision or x.delivered != y.delivered:
            differ.append((ra, rb))
    return same_decision, same_delivered, differ


def figure_rows(
    name: str, a: Sequence[InstanceRecord], b: Sequence[InstanceRecord]
) -> list[tuple[str, str, float | None, float | None]]:
    """``(dataset regime family, figure, torch, onnx)`` for every figure either one has."""
    qa = any(r.correct for r in a)
    rows = []
    for ra, rb in zip(
        aggregate(a, ["mirage"], qa=qa), aggregate(b, ["mirage"], qa=qa), strict=True
    ):
        where = f"{name} {ra['regime']} {ra['family']}"
        for fig in FIGURES:
            if ra.get(fig) is not None or rb.get(fig) is not None:
                rows.append((where, fig, ra.get(fig), rb.get(fig)))
    return rows


def _pc(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def main(
    argv: list[str] | None = None,
    nli: Any = None,
    nli_name: str = "",
    command: str = "python -m benchmarks.runtime_verdicts",
) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gpe-n", type=int, default=50, help="gpe-eval claims at k = 5 (50)")
    p.add_argument("--prag-n", type=int, default=30, help="PoisonedRAG questions per set (30)")
    p.add_argument("--families", default="gemini,token_soup,several_answers")
    p.add_argument("--family-n", type=int, default=20, help="questions per attack family (20)")
    p.add_argument("--shortqa-n", type=int, default=30, help="shortqa questions (30)")
    p.add_argument("--biogen-n", type=int, default=8, help="biogen-dev bios at k = 10 (8)")
    p.add_argument("--biogen", default=BIOGEN_DEFAULT)
    p.add_argument(
        "--quantize",
        choices=["static-int8"],
        default=None,
        help="the ONNX side's NLI graph (default: fp32)",
    )
    p.add_argument("--out", default=None, help="default benchmarks/results/runtime_verdicts.txt")
    args = p.parse_args(argv)
    out = args.out or "benchmarks/results/runtime_verdicts" + (
        f"-{args.quantize}.txt" if args.quantize else ".txt"
    )
    config = MirageConfig()
    graph = nli_name or args.quantize
    onnx = f"onnx {graph or 'fp32'}"
    runtimes = {"torch fp32": stored_models(), onnx: onnx_models(args.quantize, nli)}
    graphs = f"the NLI model's {graph} graph" if graph else "fp32 fused graphs"
    lines = [
        f"`{' '.join([command, *(argv or sys.argv[1:])])}`",
        "",
        "default MirageConfig(); torch fp32 (scores from the scoreboard's stores) vs the ONNX "
        f"runtime ({graphs}, the embedder's fp32 graph; every score computed here)",
        "",
        "| dataset | inputs | same decision | same delivered claims | ONNX pairs | ONNX s |",
        "|---|---|---|---|---|---|",
    ]
    figures: list[tuple[str, str, float | None, float | None]] = []
    differing: list[tuple[InstanceRecord, InstanceRecord]] = []
    total = [0, 0, 0]
    for name, load in loaders(args).items():
        ds = load()
        if name.startswith("poisonedrag"):  # the scoreboard leaves out a lone gold passage
            ds.instances = [i for i in ds.instances if i.regime != "clean"]
        runs = {}
        for label, (nli, embedder) in runtimes.items():
            t = time.perf_counter()
            res = run_benchmark(
                ds, nli, config=config, systems=["mirage"], cold_cache=False, embedder=embedder
            )
            runs[label] = (res.records, time.perf_counter() - t)
        (a, _), (b, seconds) = runs["torch fp32"], runs[onnx]
        same_decision, same_delivered, differ = compare(a, b)
        pairs = sum(r.routes["mirage"].nli_pairs or 0 for r in b)
        lines.append(
            f"| {name} | {len(a)} | {same_decision} | {same_delivered} | {pairs} | {seconds:.0f} |"
        )
        total[0] += len(a)
        total[1] += same_decision
        total[2] += same_delivered
        figures += figure_rows(name, a, b)
        differing += differ
        print(f"{name}: {len(a)} inputs, {len(differ)} differ", file=sys.stderr, flush=True)
    lines.append(f"| **all** | {total[0]} | {total[1]} | {total[2]} | | |")
    moved = [f for f in figures if f[2] is not None and f[3] is not None and f[2] != f[3]]
    worst = max((abs(f[2] - f[3]) for f in moved), default=0.0)  # type: ignore[operator]
    lines += [
        "",
        f"figures (dataset × regime × pollution family × {', '.join(FIGURES)}): "
        f"{len(figures)}, of which {len(moved)} differ; largest difference "
        f"{100 * worst:.1f} points (goal: within 1 point)",
    ]
    if moved:
        lines += ["", f"| where | figure | torch fp32 | {onnx} |", "|---|---|---|---|"]
        lines += [f"| {w} | {f} | {_pc(x)} | {_pc(y)} |" for w, f, x, y in moved]
    if differing:
        lines += ["", "inputs whose verdicts differ:"]
        for ra, rb in differing:
            x, y = ra.routes["mirage"], rb.routes["mirage"]
            lines += [
                f"- {ra.qid} {ra.regime} {ra.family}: torch {x.decision} "
                f"({len(x.delivered)} claims) — {x.reason[:160]}",
                f"  {onnx} {y.decision} ({len(y.delivered)} claims) — {y.reason[:160]}",
            ]
    text = "\n".join(lines) + "\n"
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
