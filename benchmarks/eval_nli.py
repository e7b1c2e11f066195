"""Evaluate mirage's shipped NLI model (or any saved 3-way classifier) on held-out data.

    python -m benchmarks.eval_nli [--model DIR] [--variants fp32,int8,onnx] [--data-dir DIR]

Prints, per variant (fp32; dynamic int8 quantization of nn.Linear; ONNX Runtime if installed):
accuracy and per-class recall on held-out MNLI dev-matched (the half never trained on) and on
SICK; contradiction recall, entailment precision and the share of entailing pairs called
contradiction on the held-out minimal-edit set (built by the augmenter from held-out sentences
only); throughput in pairs/s at batch 64 on this CPU. fp32 is also scored on held-out Breaking
NLI, an SNLI dev sample, ConjNLI dev and (``--anli N``) ANLI dev. Ends with the recommendation:
the fastest variant whose accuracy stays within 0.5 point of fp32 on MNLI, SICK and minimal-edit.
onnxruntime is optional (``pip install onnxruntime onnx``); it is never needed at runtime.

Also scored (fp32): the held-out **compatible-pair** set (paraphrases, entailment pairs both
ways, related-but-different sentences, question vs statement; none is a contradiction), with
its false-contradiction rate (argmax == contradiction, and p_contra >= 0.5), and VitaminC
held-out pages. ``--baseline DIR`` scores a second model (fp32) on the same sets in the same
run and ends with a side-by-side table (``--names`` labels the two columns):

    python -m benchmarks.eval_nli --model NEW --baseline OLD --names v1,v2 --variants fp32
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from training.data import LABELS, build_splits, sample
from training.evaluate import (
    build_eval_sets,
    format_table,
    load_model,
    run_evaluation,
    throughput,
)

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = REPO / "mirage_core" / "models" / "mirage-nli-minilm-l6"
KEY_SETS = ("mnli-heldout", "sick", "minimal-edit")


class OnnxClassifier:
    """mirage's ONNX Runtime session (mirage_core.nli.onnx_runtime) with the call signature of
    a transformers classifier, as the evaluation loop expects."""

    def __init__(
        self, model: Any, tokenizer: Any, workdir: Path, threads: int, quantize: bool = False
    ) -> None:
        from mirage_core.nli.onnx_runtime import OnnxClassifier as Session

        self.config = model.config
        self.session = Session(model, tokenizer, workdir, threads=threads, quantize=quantize)
        self.size_mb = self.session.path.stat().st_size / 1e6

    def __call__(self, **enc: Any) -> Any:
        return self.session.logits(enc)


def _summary_line(name: str, res: dict[str, dict[str, Any]], pps: float, pps_sorted: float) -> str:
    def acc(k: str) -> str:
        return f"{100 * res[k]['accuracy']:.1f}" if k in res else "n/a"

    me = res.get("minimal-edit", {})
    return (
        f"{name:<10} MNLI-heldout {acc('mnli-heldout'):>5}  SICK {acc('sick'):>5}  "
        f"minimal-edit acc {acc('minimal-edit'):>5}  contra-recall "
        f"{100 * me.get('contra_recall', float('nan')):.1f}  entail->contra "
        f"{100 * me.get('entail_called_contra', float('nan')):.1f}  | "
        f"{pps:6.1f} pairs/s (batch 64, input order)  {pps_sorted:6.1f} pairs/s (length-sorted)"
    )


#: (label, set, metric, higher is better) rows of the side-by-side table
COMPARE_ROWS: tuple[tuple[str, str, str, bool], ...] = (
    ("MNLI dev-matched held-out: accuracy", "mnli-heldout", "accuracy", True),
    ("compatible pairs: false contradictions (argmax)", "compatible", "false_contra", False),
    ("compatible pairs: p_contra >= 0.5", "compatible", "false_contra_p50", False),
    ("minimal-edit: contradiction recall", "minimal-edit", "contra_recall", True),
    (
        "minimal-edit: entailing pairs called contradiction",
        "minimal-edit",
        "entail_called_contra",
        False,
    ),
    (
        "minimal-edit: unrelated pairs called contradiction",
        "minimal-edit",
        "neutral_called_contra",
        False,
    ),
    ("minimal-edit: accuracy", "minimal-edit", "accuracy", True),
    ("VitaminC held-out pages: accuracy", "vitaminc-heldout", "accuracy", True),
    (
        "VitaminC held-out pages: contradiction recall",
        "vitaminc-heldout",
        "recall_contradiction",
        True,
    ),
    ("SICK: accuracy", "sick", "accuracy", True),
    ("SICK: neutral recall", "sick", "recall_neutral", True),
    ("SNLI dev (3,000): accuracy", "snli-dev", "accuracy", True),
    ("Breaking NLI held-out: accuracy", "breaking-heldout", "accuracy", True),
    ("ConjNLI dev: accuracy", "conjnli-dev", "accuracy", True),
    ("ANLI dev: accuracy", "anli-dev", "accuracy", True),
)


def compare_table(side: dict[str, dict[str, dict[str, Any]]]) -> str:
    """Key figures of two (or more) models on the same sets, one column per model."""
    names = list(side)
    lines = [
        "side by side (fp32, same sets, same run)",
        f"{'figure':<60}" + "".join(f"{n:>10}" for n in names),
    ]
    for label, set_name, metric, _higher in COMPARE_ROWS:
        vals = [side[n].get(set_name, {}).get(metric) for n in names]
        if all(v is None for v in vals):
            continue
        cells = "".join(f"{'n/a' if v is None else f'{100 * v:.1f}%':>10}" for v in vals)
        lines.append(f"{label:<60}{cells}")
    kinds: dict[str, None] = {}
    for n in names:
        for k in side[n].get("compatible", {}).get("false_contra_by_kind", {}):
            kinds.setdefault(k)
    for k in kinds:
        vals = [side[n].get("compatible", {}).get("false_contra_by_kind", {}).get(k) for n in names]
        cells = "".join(f"{'n/a' if v is None else f'{100 * v[0]:.1f}%':>10}" for v in vals)
        n_pairs = next((v[2] for v in vals if v is not None), 0)
        lines.append(f"{'  false contradictions: ' + k + f' (n={n_pairs})':<60}{cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--model", default=str(DEFAULT_MODEL))
    p.add_argument("--data-dir", default=None)
    p.add_argument(
        "--variants", default="fp32,int8,onnx", help="comma list of fp32, int8, onnx, onnx-int8"
    )
    p.add_argument(
        "--baseline", default=None, help="also score this model (fp32) and compare side by side"
    )
    p.add_argument(
        "--names", default="baseline,model", help="column labels: BASELINE,MODEL (with --baseline)"
    )
    p.add_argument(
        "--json", default=None, help="also write the metrics (per model and set) to this file"
    )
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--anli", type=int, default=0, help="also score N ANLI dev pairs (fp32)")
    p.add_argument("--limit", type=int, default=0, help="cap every set (quick check)")
    p.add_argument("--speed-pairs", type=int, default=1024)
    p.add_argument("--speed-rounds", type=int, default=3)
    p.add_argument(
        "--speed-only", action="store_true", help="skip the accuracy sets, time the variants only"
    )
    args = p.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    import torch
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    torch.set_num_threads(args.threads)
    t0 = time.time()
    splits = build_splits(args.data_dir)
    sets = build_eval_sets(
        splits,
        seed=args.seed,
        anli_n=args.anli,
        names=["mnli-heldout"] if args.speed_only else None,
    )
    if args.limit:
        sets = {k: sample(v, args.limit, args.seed) for k, v in sets.items()}
    speed_set = sample(splits.eval["mnli-heldout"], args.speed_pairs, args.seed + 1)
    print(f"model: {args.model}")
    print(
        f"held-out sets built in {time.time() - t0:.0f}s: "
        + ", ".join(f"{k} {len(v)}" for k, v in sets.items())
    )
    print(
        f"speed: {len(speed_set)} MNLI held-out pairs, batch 64, {args.threads} threads, "
        f"tokenization included"
    )

    side: dict[str, dict[str, dict[str, Any]]] = {}
    name_base, name_model = ([*args.names.split(","), "model"])[:2]
    if args.baseline and not args.speed_only:
        t1 = time.time()
        bmodel, btok = load_model(args.baseline, threads=args.threads)
        bid2label = {int(k): v for k, v in bmodel.config.id2label.items()}
        side[name_base] = run_evaluation(
            bmodel,
            btok,
            sets,
            batch_size=64,
            label_order=[{v: k for k, v in bid2label.items()}[n] for n in LABELS],
        )
        print()
        print(
            format_table(
                side[name_base],
                title=f"[{name_base}: {args.baseline}, fp32]  ({time.time() - t1:.0f}s)",
            )
        )
        del bmodel
    base, tok = load_model(args.model, threads=args.threads)
    id2label = {int(k): v for k, v in base.config.id2label.items()}
    print(f"id2label: {id2label}  (reported in {list(LABELS)} order)")
    summaries: dict[str, tuple[dict[str, dict[str, Any]], float, float]] = {}
    models: dict[str, Any] = {}
    results: dict[str, dict[str, dict[str, Any]]] = {}
    tmp = Path(tempfile.mkdtemp(prefix="mirage-nli-onnx-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # the exported graphs, once read
    for variant in [v.strip() for v in args.variants.split(",") if v.strip()]:
        t1 = time.time()
        try:
            if variant == "fp32":
                model: Any = base
            elif variant == "int8":
                import copy

                model = torch.ao.quantization.quantize_dynamic(
                    copy.deepcopy(base), {torch.nn.Linear}, dtype=torch.qint8
                )
            elif variant in ("onnx", "onnx-int8"):
                try:
                    import onnxruntime  # noqa: F401
                except ImportError:
                    print(f"\n[{variant}] skipped: onnxruntime is not installed")
                    continue
                model = OnnxClassifier(
                    base, tok, tmp, args.threads, quantize=variant == "onnx-int8"
                )
            else:
                print(f"unknown variant {variant}")
                continue
        except Exception as exc:  # an exporter failure must not hide the other figures
            print(f"\n[{variant}] failed to build: {type(exc).__name__}: {exc}")
            continue
        models[variant] = model
        if args.speed_only:
            continue
        use = sets if variant == "fp32" else {k: v for k, v in sets.items() if k in KEY_SETS}
        res = run_evaluation(
            model,
            tok,
            use,
            batch_size=64,
            label_order=[{v: k for k, v in id2label.items()}[n] for n in LABELS],
        )
        print()
        label = f"{name_model}: {args.model}, {variant}" if args.baseline else variant
        print(format_table(res, title=f"[{label}]  ({time.time() - t1:.0f}s)"))
        results[variant] = res

    # Speed: the variants are timed in alternation, several rounds, best round kept, so that
    # load from other processes on a shared machine affects all of them alike.
    speed: dict[str, list[float]] = {v: [0.0, 0.0] for v in models}
    for _ in range(args.speed_rounds):
        for variant, model in models.items():
            for j, sort in enumerate((False, True)):
                pps = throughput(model, tok, speed_set, batch_size=64, sort_by_length=sort)
                speed[variant][j] = max(speed[variant][j], pps)
    # agreement with fp32 on the timing sample (a cheap accuracy check for --speed-only)
    if "fp32" in models:
        from training.evaluate import predict

        prem = [e.premise for e in speed_set]
        hyp = [e.hypothesis for e in speed_set]
        gold = [e.label for e in speed_set]
        preds = {v: predict(m, tok, prem, hyp).argmax(1) for v, m in models.items()}
        print()
        for v, pr in preds.items():
            agree = float((pr == preds["fp32"]).mean())
            acc = float((pr == gold).mean())
            print(
                f"[{v}] on the {len(gold)} timing pairs: accuracy {100 * acc:.1f}%, "
                f"same label as fp32 {100 * agree:.1f}%"
            )
    print()
    for variant, (pps, pps_sorted) in speed.items():
        print(
            f"throughput [{variant}]: {pps:.1f} pairs/s at batch 64 (input order), "
            f"{pps_sorted:.1f} pairs/s (length-sorted); best of {args.speed_rounds} "
            "interleaved rounds"
        )
        summaries[variant] = (results.get(variant, {}), pps, pps_sorted)

    print("\nsummary")
    for name, (res, pps, pps_sorted) in summaries.items():
        print(_summary_line(name, res, pps, pps_sorted))
    if "fp32" in summaries and not args.speed_only:
        ref = summaries["fp32"][0]
        ok = []
        for name, (res, pps, _) in summaries.items():
            gaps = [
                abs(res[k]["accuracy"] - ref[k]["accuracy"]) * 100
                for k in KEY_SETS
                if k in res and k in ref
            ]
            within = all(g <= 0.5 for g in gaps)
            ok.append((within, pps, name, max(gaps) if gaps else 0.0))
        best = max((o for o in ok if o[0]), key=lambda o: o[1])
        print(
            "equal accuracy (within 0.5 point of fp32 on "
            + ", ".join(KEY_SETS)
            + "): "
            + ", ".join(f"{n} (max gap {g:.2f})" for w, _, n, g in ok if w)
        )
        print(f"recommendation: {best[2]} ({best[1]:.1f} pairs/s at batch 64)")
    if side and "fp32" in results:
        side[name_model] = results["fp32"]
        print()
        print(compare_table(side))
    if args.json:
        import json

        dump = {f"{name_base}": side.get(name_base)} if side else {}
        dump.update({f"{name_model}:{v}" if side else v: r for v, r in results.items()})
        Path(args.json).write_text(json.dumps(dump, indent=2, default=str) + "\n")
    print(f"total time {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
