"""Which MatMuls the static int8 NLI graph keeps in fp32 (candidates):
``python -m research.int8_keep``.

Every MatMul of the shipped static int8 graph is int8, and against fp32 it changes one label
in eleven (``benchmarks/results/nli_int8.txt``); no calibration method does better
(``research/int8_calibration.py``). Keeping each layer's FFN down-projection in fp32 keeps 97%
of the labels at 1.17× fp32's speed (``benchmarks/results/nli_int8-keep.txt``). The candidates
keep other parts in fp32: the attention score products (query × key, probabilities × value:
two int8 activations each, and few multiply-adds), the pooler and classifier, the
down-projections of the last two layers only, and combinations.

**Rule** (declared before any candidate ran): on the 2,000 fit pairs of
``research.int8_calibration`` (training sources, no calibration pair), a candidate qualifies
when its int8 labels agree with fp32 on at least :data:`MIN_AGREEMENT` of them; the pick is
the qualifier that keeps the smallest share of the graph's multiply-adds in fp32 at 64 tokens
(:func:`fp32_share`, a property of the graph, not a timing), a tie going to the higher
agreement. If none qualifies, nothing changes. The pick becomes what ``quantize="static-int8"``
builds only if no held-out set of ``benchmarks/eval_nli.py`` (500 pairs each, seed 13; reported
for every candidate, not chosen on) loses more than a point of accuracy against fp32. Speed
against fp32, measured on the fit pairs (interleaved), is printed and not chosen on.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.nli_int8 import interleaved
from research.int8_calibration import fit_pairs, heldout_scores, heldout_sets, heldout_table

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "research" / "results" / "int8-keep"
MIN_AGREEMENT = 0.97
TOKENS = 64

_SCORES = r"attention/self/MatMul"
_HEAD = r"pooler|classifier"
_FFN_DOWN = r"layer\.\d+/output/dense"
CANDIDATES: dict[str, tuple[str, ...]] = {
    "all-int8": (),
    "attention-scores": (_SCORES,),
    "head": (_HEAD,),
    "attention-scores+head": (_SCORES, _HEAD),
    "ffn-down": (_FFN_DOWN,),
    "ffn-down-last-two": (r"layer\.[45]/output/dense",),
    "ffn-down+attention-scores+head": (_FFN_DOWN, _SCORES, _HEAD),
}


def matmul_costs(model_dir: Path, tokens: int = TOKENS) -> dict[str, float]:
    """Multiply-adds per token of each MatMul / Gemm of ``model_dir/model.onnx`` at ``tokens``
    tokens: a weight product costs its weight's size (a Gemm, the pooler and the classifier,
    reads one token of the sequence: its size over ``tokens``); the two attention products cost
    ``tokens`` × the hidden size each (every head together)."""
    import onnx

    graph = onnx.load(str(model_dir / "model.onnx"), load_external_data=False).graph
    hidden = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))["hidden_size"]
    sizes = {i.name: int(np.prod(i.dims)) for i in graph.initializer}
    produced = {o: n for n in graph.node for o in n.output}
    costs = {}
    for node in graph.node:
        if node.op_type not in ("MatMul", "Gemm"):
            continue
        weight = next((_weight_size(i, sizes, produced) for i in node.input[1:2]), None)
        if not weight:
            costs[node.name] = float(tokens * hidden)
        else:
            costs[node.name] = weight / tokens if node.op_type == "Gemm" else float(weight)
    return costs


def _weight_size(name: str, sizes: dict[str, int], produced: dict) -> int | None:
    """The size of the constant a MatMul input is (through the casts and transposes that the
    export puts between the stored weight and the product), or None for an activation."""
    seen = 0
    while name not in sizes and name in produced and seen < 4:
        node = produced[name]
        if node.op_type not in ("Cast", "Transpose", "Identity"):
            return None
        name, seen = node.input[0], seen + 1
    return sizes.get(name)


def fp32_share(costs: dict[str, float], keep: tuple[str, ...]) -> float:
    kept = sum(c for n, c in costs.items() if any(re.search(p, n) for p in keep))
    return kept / sum(costs.values())


def against_fp32(fp32, int8, prem: list[str], hyp: list[str], heldout: dict, base: dict) -> dict:
    """``int8`` against ``fp32`` on the fit pairs (label agreement, mean and largest |Δp|, speed
    on the same pairs interleaved in chunks of 128) and on the held-out sets (``held``)."""
    got = interleaved({"fp32": fp32, "int8": int8}, prem, hyp, chunk=128)
    (ref, fp32_s), (probs, int8_s) = got["fp32"], got["int8"]
    return {
        "agree": float((probs.argmax(1) == ref.argmax(1)).mean()),
        "mean_dp": float(np.abs(probs - ref).mean()),
        "max_dp": float(np.abs(probs - ref).max()),
        "speed": fp32_s / int8_s,
        "held": heldout_scores(int8, heldout, base),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="NLI data (default ../shared/data/nli)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    from mirage_core.nli.int8 import static_int8_graph
    from mirage_core.nli.onnx_nli import OnnxNLI
    from mirage_core.onnx_models import open_session

    os.environ["MIRAGE_CACHE"] = tempfile.mkdtemp(prefix="mirage-int8-keep-")
    t_start = time.time()
    fp32 = OnnxNLI(cache_size=0, threads=args.threads)
    costs = matmul_costs(fp32.model_dir)
    fit = fit_pairs(args.data_dir)
    prem, hyp = [p for (p, _), _ in fit], [h for (_, h), _ in fit]
    heldout, base_held = heldout_sets(args.data_dir, fp32)
    rows = []
    for name, keep in CANDIDATES.items():
        int8 = OnnxNLI(cache_size=0, threads=args.threads, quantize="static-int8")
        int8.session = open_session(
            int8.model_dir, args.threads, graph=static_int8_graph(int8.model_dir, keep_fp32=keep)
        )
        rows.append(
            {
                "name": name,
                "share": fp32_share(costs, keep),
                **against_fp32(fp32, int8, prem, hyp, heldout, base_held),
            }
        )
        print(name, f"{rows[-1]['agree']:.4f}", f"{rows[-1]['speed']:.2f}", flush=True)
    qualified = [r for r in rows if r["agree"] >= MIN_AGREEMENT]
    pick = min(qualified, key=lambda r: (r["share"], -r["agree"]))["name"] if qualified else None
    lines = _report(rows, pick, time.time() - t_start)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "choice.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    shutil.rmtree(os.environ["MIRAGE_CACHE"], ignore_errors=True)
    return 0


def _report(rows: list[dict], pick: str | None, seconds: float) -> list[str]:
    lines = [
        "`python -m research.int8_keep`: static int8 NLI graphs (the shipped min / max ranges) "
        "keeping some MatMuls in fp32, against the shipped fp32 graph, both on ONNX Runtime",
        "",
        f"fit: the 2,000 training-source pairs of research.int8_calibration; qualifies at labels "
        f"= fp32 ≥ {100 * MIN_AGREEMENT:.0f}%, the smallest fp32 share of multiply-adds "
        f"({TOKENS} tokens) wins; speed = fp32 seconds / int8 seconds on the same pairs, "
        "interleaved (not chosen on)",
        "",
        "| keeps in fp32 | fp32 share | labels = fp32 | mean abs Δp | speed vs fp32 |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        mark = " (pick)" if r["name"] == pick else ""
        lines.append(
            f"| {r['name']}{mark} | {100 * r['share']:.1f}% | {100 * r['agree']:.1f}% | "
            f"{r['mean_dp']:.4f} | {r['speed']:.2f}× |"
        )
    return lines + closing_lines(rows, "keeps in fp32", pick, seconds)


def closing_lines(
    rows: list[dict], first_column: str, pick: str | None, seconds: float
) -> list[str]:
    """A candidate round's report after its fit table: the held-out table, the pick, the time."""
    tail = ["", f"pick: {pick or 'none qualifies'}", f"total time {seconds:.0f}s"]
    return heldout_table(rows, first_column) + tail


if __name__ == "__main__":
    raise SystemExit(main())
