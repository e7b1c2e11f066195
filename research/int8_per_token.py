"""int8 activations with one scale per token (candidates): ``python -m research.int8_per_token
[--round 2]``.

The shipped fp32 graph rewritten by :func:`quantize_per_token`:
each MatMul with a constant weight reads a uint8 copy of its input, scaled per token from that
token's own row as the graph runs, and int8 weights with one scale per output channel
(``MatMulInteger``); the attention products, the pooler and the classifier stay fp32. A
token's row depends only on its own sequence, so a pair's scores do not depend on its batch
mates, and nothing is calibrated.

Round 1 reads each row symmetric around zero point 128: every weight MatMul int8
(``per-token``), and the same with each layer's FFN down-projection kept fp32
(``per-token+ffn-down``), where the static int8 graph's error sat (``research/int8_keep.py``).
Round 2 gives each row a zero point of its own (``per-token-zero-points``), round 1's pick
printed beside it; it writes ``research/results/int8-per-token-2/``.

**Rule** (declared before any candidate ran, ``docs/decisions.md``, 2026-12-07): on the 2,000
fit pairs of ``research.int8_calibration``, a candidate qualifies when its labels agree with
fp32 on at least :data:`~research.int8_keep.MIN_AGREEMENT` of them and a pair's scores alone
equal its scores among 63 batch mates (max |Δp| ≤ :data:`BATCH_MATES_TOL` over the first
:data:`BATCH_MATES_PAIRS` fit pairs); the pick is the qualifier with the smallest fp32 share of
the graph's multiply-adds, a tie going to the higher agreement. It ships as the opt-in
``OnnxNLI(quantize="per-token-int8")`` only if no held-out set of ``benchmarks/eval_nli.py``
loses more than a point of accuracy (reported here for every candidate) and the pick, run on
the scoreboard's inputs by ``benchmarks.runtime_verdicts`` (``python -m research.int8_per_token
verdicts``), moves no figure by more than a point; neither round's pick met both, so nothing
ships. Speed against the fused fp32 graph (interleaved, the same pairs) is printed and not
chosen on.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from research.int8_calibration import fit_pairs, heldout_sets
from research.int8_keep import (
    _FFN_DOWN,
    _HEAD,
    _SCORES,
    MIN_AGREEMENT,
    TOKENS,
    against_fp32,
    closing_lines,
    fp32_share,
    matmul_costs,
)

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "research" / "results" / "int8-per-token"
BATCH_MATES_PAIRS = 256
BATCH_MATES_TOL = 1e-6
_ZERO_POINT = 128
_LEVELS = 127.0
_EPS = 1e-8


def _weight_int8(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 weights with one scale per output channel (a column of ``w``: [K, N])."""
    scale = np.abs(w).max(axis=0) / _LEVELS
    scale[scale == 0] = 1.0
    return np.clip(np.round(w / scale), -_LEVELS, _LEVELS).astype(np.int8), scale.astype(np.float32)


def quantize_per_token(
    model: Any, keep_fp32: tuple[str, ...] = (), zero_points: bool = False
) -> Any:
    """Rewrite ``model`` (an ``onnx.ModelProto`` whose weights are initializers) in place: every
    MatMul whose second input is a constant reads a per-token int8 copy of its first input.
    Inputs read by several MatMuls (an attention layer's query, key and value) are quantized
    once. MatMuls whose node name matches one of the regular expressions ``keep_fp32`` stay
    fp32. ``zero_points`` (round 2): each token's range, widened to hold 0, maps to 0..255, and
    its zero point times each weight column's integer sum is subtracted from the integer
    product (ONNX Runtime's kernel takes one zero point per tensor); else (round 1) each row is
    read symmetric around the fixed zero point 128. Returns ``model``."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    weights = {i.name: i for i in graph.initializer}
    opset = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    const = {
        "pt.eps": np.array(_EPS, np.float32),
        "pt.levels": np.array(_LEVELS, np.float32),
        "pt.shift": np.array(float(_ZERO_POINT), np.float32),
        "pt.zero": np.array(_ZERO_POINT, np.uint8),
        "pt.axes": np.array([-1], np.int64),
        "pt.0": np.array(0.0, np.float32),
        "pt.255": np.array(255.0, np.float32),
    }
    nodes: list[Any] = []
    added: list[Any] = [numpy_helper.from_array(v, k) for k, v in const.items()]
    # input name -> (uint8 copy, per-token scale, per-token zero point or None)
    quantized: dict[str, tuple[str, str, str | None]] = {}

    def reduce(op: str, x: str, out: str) -> Any:
        if opset >= 18:  # the reductions read their axes from an input from opset 18 on
            return helper.make_node(op, [x, "pt.axes"], [out], keepdims=1)
        return helper.make_node(op, [x], [out], axes=[-1], keepdims=1)

    def quantize_input(x: str) -> tuple[str, str, str | None]:
        if x in quantized:
            return quantized[x]
        p = f"pt.{len(quantized)}"
        if zero_points:
            nodes.extend(
                [
                    reduce("ReduceMin", x, f"{p}.min"),
                    reduce("ReduceMax", x, f"{p}.max"),
                    helper.make_node("Min", [f"{p}.min", "pt.0"], [f"{p}.lo"]),
                    helper.make_node("Max", [f"{p}.max", "pt.0"], [f"{p}.hi"]),
                    helper.make_node("Sub", [f"{p}.hi", f"{p}.lo"], [f"{p}.range"]),
                    helper.make_node("Max", [f"{p}.range", "pt.eps"], [f"{p}.range+"]),
                    helper.make_node("Div", [f"{p}.range+", "pt.255"], [f"{p}.scale"]),
                    helper.make_node("Div", [f"{p}.lo", f"{p}.scale"], [f"{p}.lo/s"]),
                    helper.make_node("Neg", [f"{p}.lo/s"], [f"{p}.-lo/s"]),
                    helper.make_node("Round", [f"{p}.-lo/s"], [f"{p}.zero"]),
                    helper.make_node("Div", [x, f"{p}.scale"], [f"{p}.scaled"]),
                    helper.make_node("Round", [f"{p}.scaled"], [f"{p}.rounded"]),
                    helper.make_node("Add", [f"{p}.rounded", f"{p}.zero"], [f"{p}.shifted"]),
                    # rounding the zero point can push the ends half a step out of 0..255
                    helper.make_node("Clip", [f"{p}.shifted", "pt.0", "pt.255"], [f"{p}.held"]),
                    helper.make_node("Cast", [f"{p}.held"], [f"{p}.u8"], to=TensorProto.UINT8),
                ]
            )
            quantized[x] = (f"{p}.u8", f"{p}.scale", f"{p}.zero")
            return quantized[x]
        nodes.extend(
            [
                helper.make_node("Abs", [x], [f"{p}.abs"]),
                reduce("ReduceMax", f"{p}.abs", f"{p}.max"),
                helper.make_node("Max", [f"{p}.max", "pt.eps"], [f"{p}.max+"]),
                helper.make_node("Div", [f"{p}.max+", "pt.levels"], [f"{p}.scale"]),
                helper.make_node("Div", [x, f"{p}.scale"], [f"{p}.scaled"]),
                helper.make_node("Round", [f"{p}.scaled"], [f"{p}.rounded"]),
                # |rounded| <= 127, so rounded + 128 fits uint8 with no clipping
                helper.make_node("Add", [f"{p}.rounded", "pt.shift"], [f"{p}.shifted"]),
                helper.make_node("Cast", [f"{p}.shifted"], [f"{p}.u8"], to=TensorProto.UINT8),
            ]
        )
        quantized[x] = (f"{p}.u8", f"{p}.scale", None)
        return quantized[x]

    for node in graph.node:
        w = weights.get(node.input[1]) if node.op_type == "MatMul" else None
        if any(re.search(k, node.name) for k in keep_fp32):
            w = None
        if w is None or len(numpy_helper.to_array(w).shape) != 2:
            nodes.append(node)
            continue
        w_q, w_scale = _weight_int8(numpy_helper.to_array(w).astype(np.float32))
        m = f"{node.output[0]}.pt"
        added += [
            numpy_helper.from_array(w_q, f"{m}.w"),
            numpy_helper.from_array(w_scale, f"{m}.ws"),
        ]
        x_q, x_scale, x_zero = quantize_input(node.input[0])
        to_float = TensorProto.FLOAT
        if x_zero is None:
            nodes += [
                helper.make_node("MatMulInteger", [x_q, f"{m}.w", "pt.zero"], [f"{m}.i32"]),
                helper.make_node("Cast", [f"{m}.i32"], [f"{m}.f32"], to=to_float),
            ]
        else:
            added.append(numpy_helper.from_array(w_q.sum(axis=0).astype(np.float32), f"{m}.wsum"))
            nodes += [
                helper.make_node("MatMulInteger", [x_q, f"{m}.w"], [f"{m}.i32"]),
                helper.make_node("Cast", [f"{m}.i32"], [f"{m}.raw"], to=to_float),
                helper.make_node("Mul", [x_zero, f"{m}.wsum"], [f"{m}.offset"]),
                helper.make_node("Sub", [f"{m}.raw", f"{m}.offset"], [f"{m}.f32"]),
            ]
        nodes.extend(
            [
                helper.make_node("Mul", [f"{m}.f32", x_scale], [f"{m}.row"]),
                helper.make_node("Mul", [f"{m}.row", f"{m}.ws"], [node.output[0]], name=node.name),
            ]
        )
    read = {i for n in nodes for i in n.input}
    kept = [i for i in graph.initializer if i.name in read]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + [i for i in added if i.name in read])
    return model


#: what each candidate keeps in fp32 besides what the rewrite never quantizes (the attention
#: products and the Gemm head)
CANDIDATES: dict[str, tuple[str, ...]] = {
    "per-token": (),
    "per-token+ffn-down": (_FFN_DOWN,),
}
#: the second round (``--round 2``): rows read with a zero point per token; the first round's
#: pick is printed beside it and is not a candidate
CANDIDATES_2: dict[str, tuple[str, ...]] = {"per-token-zero-points": ()}
BESIDE_2 = ("per-token",)


def candidate_graph(
    model_dir: Path, keep: tuple[str, ...], into: Path, zero_points: bool = False
) -> Path:
    """The rewritten graph of ``model_dir`` keeping ``keep`` in fp32, written to ``into``."""
    import onnx

    from mirage_core.nli.int8 import preprocess

    pre = into.with_name(f"pre.{into.name}")
    if not pre.exists():
        preprocess(model_dir, pre)
    onnx.save(quantize_per_token(onnx.load(str(pre)), keep, zero_points), str(into))
    return into


def batch_mates(nli, prem: list[str], hyp: list[str]) -> float:
    """Largest change of a pair's probabilities between scored alone and in batches of 64."""
    size = nli.batch_size
    try:
        nli.batch_size = 64
        together = nli.predict(prem, hyp)
        alone = np.concatenate([nli.predict([p], [h]) for p, h in zip(prem, hyp, strict=True)])
    finally:
        nli.batch_size = size
    return float(np.abs(together - alone).max())


def verdicts(argv: list[str]) -> int:
    """``python -m research.int8_per_token verdicts [benchmarks.runtime_verdicts options]``: the
    second round's pick on the scoreboard's inputs against torch fp32, written to
    ``research/results/int8-per-token-2/runtime_verdicts.txt`` (unless ``--out`` says)."""
    from benchmarks import runtime_verdicts
    from mirage_core.nli.onnx_nli import OnnxNLI
    from mirage_core.onnx_models import open_session

    work = Path(tempfile.mkdtemp(prefix="mirage-int8-per-token-"))
    try:
        nli = OnnxNLI(None, batch_size=64)
        graph = candidate_graph(nli.model_dir, (), work / "graph.onnx", zero_points=True)
        nli.graph, nli.session = graph, open_session(nli.model_dir, None, graph=graph)
        out = ["--out", str(OUT.with_name(f"{OUT.name}-2") / "runtime_verdicts.txt")]
        return runtime_verdicts.main(
            [*argv, *([] if "--out" in argv else out)],
            nli=nli,
            nli_name=next(iter(CANDIDATES_2)),
            command="python -m research.int8_per_token verdicts",
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["verdicts"]:
        return verdicts(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="NLI data (default ../shared/data/nli)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--round", type=int, choices=(1, 2), default=1)
    args = parser.parse_args(argv)
    # round -> (name -> (kept fp32, zero points, a candidate))
    runs = {
        1: {k: (v, False, True) for k, v in CANDIDATES.items()},
        2: {
            **{k: (v, True, True) for k, v in CANDIDATES_2.items()},
            **{k: (CANDIDATES[k], False, False) for k in BESIDE_2},
        },
    }[args.round]
    from mirage_core.nli.onnx_nli import OnnxNLI
    from mirage_core.onnx_models import open_session

    work = Path(tempfile.mkdtemp(prefix="mirage-int8-per-token-"))
    t_start = time.time()
    fp32 = OnnxNLI(cache_size=0, threads=args.threads)
    costs = matmul_costs(fp32.model_dir)
    fit = fit_pairs(args.data_dir)
    prem, hyp = [p for (p, _), _ in fit], [h for (_, h), _ in fit]
    heldout, base_held = heldout_sets(args.data_dir, fp32)
    rows = []
    for name, (keep, zero_points, candidate) in runs.items():
        graph = candidate_graph(fp32.model_dir, keep, work / f"{name}.onnx", zero_points)
        int8 = OnnxNLI(cache_size=0, threads=args.threads)
        int8.graph, int8.session = graph, open_session(int8.model_dir, args.threads, graph=graph)
        rows.append(
            {
                "name": name if candidate else f"{name} (beside, not a candidate)",
                "candidate": candidate,
                "share": fp32_share(costs, (*keep, _SCORES, _HEAD)),
                "mates": batch_mates(int8, prem[:BATCH_MATES_PAIRS], hyp[:BATCH_MATES_PAIRS]),
                **against_fp32(fp32, int8, prem, hyp, heldout, base_held),
            }
        )
        print(name, f"{rows[-1]['agree']:.4f}", f"{rows[-1]['speed']:.2f}", flush=True)
    qualified = [
        r
        for r in rows
        if r["candidate"] and r["agree"] >= MIN_AGREEMENT and r["mates"] <= BATCH_MATES_TOL
    ]
    pick = min(qualified, key=lambda r: (r["share"], -r["agree"]))["name"] if qualified else None
    lines = _report(rows, pick, time.time() - t_start, args.round)
    out = OUT if args.round == 1 else OUT.with_name(f"{OUT.name}-{args.round}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "choice.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _report(rows: list[dict], pick: str | None, seconds: float, round_: int) -> list[str]:
    command = "`python -m research.int8_per_token" + (f" --round {round_}`" if round_ > 1 else "`")
    lines = [
        f"{command}: NLI graphs with int8 activations scaled per token "
        "(research/int8_per_token.py: quantize_per_token), against the shipped fused fp32 "
        "graph, both on "
        "ONNX Runtime",
        "",
        f"fit: the 2,000 training-source pairs of research.int8_calibration; qualifies at labels "
        f"= fp32 ≥ {100 * MIN_AGREEMENT:.0f}% and scores alone = scores among 63 batch mates "
        f"(max |Δp| ≤ {BATCH_MATES_TOL:g}, first {BATCH_MATES_PAIRS} pairs); the smallest fp32 "
        f"share of multiply-adds ({TOKENS} tokens) wins; speed = fp32 seconds / int8 seconds on "
        "the same pairs, interleaved in chunks of 128, batches of 16 (not chosen on)",
        "",
        "| candidate | fp32 share | labels = fp32 | mean abs Δp | max abs Δp | batch mates max abs Δp "
        "| speed vs fp32 |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        mark = " (pick)" if r["name"] == pick else ""
        lines.append(
            f"| {r['name']}{mark} | {100 * r['share']:.1f}% | {100 * r['agree']:.1f}% | "
            f"{r['mean_dp']:.4f} | {r['max_dp']:.4f} | {r['mates']:.1e} | {r['speed']:.2f}× |"
        )
    return lines + closing_lines(rows, "candidate", pick, seconds)


if __name__ == "__main__":
    raise SystemExit(main())
