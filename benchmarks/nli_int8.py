"""Static int8 against fp32 on the torch-free runtime: ``python -m benchmarks.nli_int8``.

Both variants are :class:`~mirage_core.nli.OnnxNLI` on the packaged model: the shipped fp32
graph, and ``quantize="static-int8"`` (built here into a fresh ``$MIRAGE_CACHE``: the build
time is the first-use cost). On the held-out sets that ``benchmarks/nli_runtime.py --parity``
scores (every set of ``benchmarks/eval_nli.py``, a seeded sample of ``--n`` pairs per set):

* accuracy and macro-F1 of each variant (compatible set: accuracy = share *not* called
  contradiction, none of its pairs is one; no F1), label agreement, largest probability change;
* pairs/s of each, measured in one run, the variants alternating chunk by chunk so load from
  other processes hits both alike (compare the ratio, not the seconds);
* **batch mates**: ``--alone`` pairs drawn from every set, scored each alone and all together
  (length-sorted batches of 64 mixing short and long pairs): the largest change of a pair's
  probabilities, per variant.

``--keep-fp32 REGEX,...`` measures an alternative int8 graph in which the MatMuls whose node
name matches stay fp32 (e.g. ``layer\\.\\d+/output/dense``: each layer's FFN down-projection).

Writes ``benchmarks/results/nli_int8.txt`` (with ``--keep-fp32``: ``nli_int8-keep.txt``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
CONTRA = 2


def macro_f1(gold: np.ndarray, pred: np.ndarray) -> float:
    scores = []
    for c in range(3):
        tp = float(((pred == c) & (gold == c)).sum())
        denom = float((pred == c).sum() + (gold == c).sum())
        if denom:  # a label neither in the gold nor predicted does not count
            scores.append(2 * tp / denom)
    return float(np.mean(scores))


def score(name: str, probs: np.ndarray, gold: np.ndarray) -> tuple[float, float | None]:
    pred = probs.argmax(1)
    if name == "compatible":
        return float((pred != CONTRA).mean()), None
    return float((pred == gold).mean()), macro_f1(gold, pred)


def interleaved(variants: dict, prem: list[str], hyp: list[str], chunk: int) -> dict:
    """Each variant's probabilities and seconds, alternating every ``chunk`` pairs."""
    out = {k: [] for k in variants}
    secs = dict.fromkeys(variants, 0.0)
    for i, start in enumerate(range(0, len(prem), chunk)):
        names = list(variants) if i % 2 == 0 else list(variants)[::-1]
        for k in names:
            t0 = time.perf_counter()
            out[k].append(
                variants[k].predict(prem[start : start + chunk], hyp[start : start + chunk])
            )
            secs[k] += time.perf_counter() - t0
    return {k: (np.concatenate(v), secs[k]) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=500, help="pairs per held-out set")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=128, help="pairs per timed chunk")
    parser.add_argument("--alone", type=int, default=240, help="pairs scored alone")
    parser.add_argument("--data-dir", default=None, help="NLI data (default ../shared/data/nli)")
    parser.add_argument("--keep-fp32", default="", help="MatMul name patterns kept fp32")
    parser.add_argument("--out", default=None, help="default benchmarks/results/nli_int8.txt")
    args = parser.parse_args(argv)
    keep = tuple(p for p in args.keep_fp32.split(",") if p)
    name = "nli_int8-keep.txt" if keep else "nli_int8.txt"
    args.out = args.out or str(REPO / "benchmarks" / "results" / name)
    from mirage_core.nli.onnx_nli import OnnxNLI
    from training.data import build_splits, sample
    from training.evaluate import build_eval_sets

    os.environ["MIRAGE_CACHE"] = tempfile.mkdtemp(prefix="mirage-int8-bench-")
    t_start = time.time()
    sets = build_eval_sets(build_splits(args.data_dir), seed=args.seed)
    sets = {k: sample(v, args.n, args.seed) for k, v in sets.items()}
    fp32 = OnnxNLI(cache_size=0, threads=args.threads)
    t0 = time.perf_counter()
    int8 = OnnxNLI(cache_size=0, threads=args.threads, quantize="static-int8")
    if keep:  # the same backend on the alternative graph
        from mirage_core.nli.int8 import static_int8_graph
        from mirage_core.onnx_models import open_session

        t0 = time.perf_counter()
        graph = static_int8_graph(int8.model_dir, keep_fp32=keep)
        int8.session = open_session(int8.model_dir, args.threads, graph=graph)
    build_s = time.perf_counter() - t0
    if not keep:
        graph = next(Path(os.environ["MIRAGE_CACHE"]).rglob("model.static-int8.*.onnx"))
    variants = {"fp32": fp32, "int8": int8}
    for v in variants.values():
        v.predict(["a warm-up pair"], ["outside the clock"])
    lines = [
        "`python -m benchmarks.nli_int8`: OnnxNLI fp32 (the shipped graph) vs "
        "OnnxNLI(quantize='static-int8'), the packaged NLI model"
        + (f"; int8 with the MatMuls matching {list(keep)} kept fp32" if keep else ""),
        f"held-out sets of benchmarks/eval_nli.py, a seeded sample of at most {args.n} pairs per "
        f"set (seed {args.seed}); {args.threads} threads; variants alternating every "
        f"{args.chunk} pairs",
        f"int8 graph: built in {build_s:.1f} s on first use, {graph.stat().st_size / 1e6:.1f} MB "
        "in $MIRAGE_CACHE (word embeddings stay fp32); shipped: int8-ranges.json, "
        f"{(fp32.model_dir / 'int8-ranges.json').stat().st_size / 1e3:.1f} kB",
        "",
        f"{'set':<18}{'pairs':>6}{'acc fp32':>9}{'acc int8':>9}{'Δ':>6}{'F1 fp32':>8}"
        f"{'F1 int8':>8}{'labels =':>9}{'max|Δp|':>8}{'fp32 s':>8}{'int8 s':>8}",
    ]
    print("\n".join(lines), flush=True)
    acc = {k: [] for k in variants}
    f1 = {k: [] for k in variants}
    n_all = agree_all = 0
    worst = 0.0
    secs = dict.fromkeys(variants, 0.0)
    for name, exs in sets.items():
        prem, hyp = [e.premise for e in exs], [e.hypothesis for e in exs]
        gold = np.array([e.label for e in exs])
        got = interleaved(variants, prem, hyp, args.chunk)
        row = {k: score(name, got[k][0], gold) for k in variants}
        for k in variants:
            acc[k].append(row[k][0])
            if row[k][1] is not None:
                f1[k].append(row[k][1])
            secs[k] += got[k][1]
        agree = int((got["fp32"][0].argmax(1) == got["int8"][0].argmax(1)).sum())
        delta = float(np.abs(got["fp32"][0] - got["int8"][0]).max())
        n_all, agree_all, worst = n_all + len(exs), agree_all + agree, max(worst, delta)
        f1s = "".join(
            f"{100 * row[k][1]:>8.1f}" if row[k][1] is not None else f"{'-':>8}" for k in variants
        )
        line = (
            f"{name:<18}{len(exs):>6}{100 * row['fp32'][0]:>9.1f}{100 * row['int8'][0]:>9.1f}"
            f"{100 * (row['int8'][0] - row['fp32'][0]):>+6.1f}{f1s}{100 * agree / len(exs):>8.1f}%"
            f"{delta:>8.3f}{got['fp32'][1]:>8.1f}{got['int8'][1]:>8.1f}"
        )
        print(line, flush=True)
        lines.append(line)
    mean = {k: float(np.mean(acc[k])) for k in variants}
    mf1 = {k: float(np.mean(f1[k])) for k in variants}
    lines += [
        f"{'mean of sets':<18}{n_all:>6}{100 * mean['fp32']:>9.1f}{100 * mean['int8']:>9.1f}"
        f"{100 * (mean['int8'] - mean['fp32']):>+6.1f}{100 * mf1['fp32']:>8.1f}"
        f"{100 * mf1['int8']:>8.1f}{100 * agree_all / n_all:>8.1f}%{worst:>8.3f}"
        f"{secs['fp32']:>8.1f}{secs['int8']:>8.1f}",
        f"throughput: fp32 {n_all / secs['fp32']:.1f} pairs/s, int8 {n_all / secs['int8']:.1f} "
        f"pairs/s: int8 {secs['fp32'] / secs['int8']:.2f}x fp32 (same run, interleaved)",
        f"largest accuracy loss on a set: {100 * max(a - b for a, b in zip(acc['fp32'], acc['int8'], strict=True)):.1f} "
        f"points; mean {100 * (mean['int8'] - mean['fp32']):+.1f}, macro-F1 (sets with 3 labels) "
        f"{100 * (mf1['int8'] - mf1['fp32']):+.1f}",
        "",
    ]
    rng = np.random.default_rng(args.seed)
    pool = [e for exs in sets.values() for e in exs]
    picked = [pool[i] for i in rng.choice(len(pool), min(args.alone, len(pool)), replace=False)]
    prem, hyp = [e.premise for e in picked], [e.hypothesis for e in picked]
    lens = [len(p) + len(h) for p, h in zip(prem, hyp, strict=True)]
    lines.append(
        f"batch mates: {len(picked)} pairs from every set ({min(lens)}-{max(lens)} characters), "
        "scored alone vs all together (length-sorted batches of 64):"
    )
    for k, v in variants.items():
        together = v.predict(prem, hyp)
        alone = np.concatenate([v.predict([p], [h]) for p, h in zip(prem, hyp, strict=True)])
        d = np.abs(together - alone)
        flips = int((together.argmax(1) != alone.argmax(1)).sum())
        lines.append(f"  {k}: max |Δp| {d.max():.2e}, mean {d.mean():.2e}, labels changed {flips}")
    shutil.rmtree(os.environ["MIRAGE_CACHE"], ignore_errors=True)  # the int8 graph built here
    lines.append(f"total time {time.time() - t_start:.0f}s")
    print("\n".join(lines[-4:]))
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
