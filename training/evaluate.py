"""Evaluation of a 3-way NLI cross-encoder on the held-out sets.

Sets (built by :func:`build_eval_sets` from :func:`training.data.build_splits`):

* ``mnli-heldout`` — the half of MNLI dev-matched never trained on (grouped by premise);
* ``sick`` — SICK (evaluation only);
* ``minimal-edit`` — built by :class:`~training.augment.Augmenter` from held-out
  sentences only (MNLI held-out half, SNLI dev, ConjNLI dev, ANLI dev premises): one minimal
  factual edit (contradiction), one entailing rewrite and one unrelated (neutral) pair per
  sentence;
* ``compatible`` — pairs that must *not* come out contradiction, from held-out sources only
  (MNLI held-out half, SNLI dev, VitaminC held-out pages, ANLI dev paragraphs, the held-out
  sentences of ``minimal-edit``): entailment pairs in both directions, VitaminC SUPPORTS pairs
  in both directions, rule paraphrases, two different sentences of one page / paragraph
  ("related but different"), and a question against a statement on the same topic (same fact,
  another fact, or an edited fact); see :func:`compatible_set` and :func:`compatible_metrics`;
* ``vitaminc-heldout`` — VitaminC real-revision pairs of the held-out pages (3-way);
* ``breaking-heldout``, ``snli-dev``, ``conjnli-dev``, ``anli-dev`` — extra context.

torch / transformers are imported inside functions only.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from training.data import LABELS, NLIExample, Splits, sample

__all__ = [
    "build_eval_sets",
    "classification_metrics",
    "compatible_metrics",
    "compatible_set",
    "format_table",
    "minimal_edit_metrics",
    "predict",
    "run_evaluation",
    "throughput",
]


def predict(
    model: Any,
    tokenizer: Any,
    premises: Sequence[str],
    hypotheses: Sequence[str],
    *,
    batch_size: int = 64,
    max_length: int = 128,
    sort_by_length: bool = True,
    label_order: Sequence[int] | None = None,
) -> np.ndarray:
    """``(n, 3)`` probabilities in the model's own label order (use ``label_order`` to permute).

    ``model`` is a torch module returning ``.logits`` or any callable taking the tokenizer's
    numpy/torch batch (the ONNX wrapper in ``benchmarks/eval_nli.py``).
    """
    import torch

    n = len(premises)
    if n == 0:
        return np.zeros((0, 3), dtype=np.float32)
    order = list(range(n))
    if sort_by_length:
        order.sort(key=lambda i: len(premises[i]) + len(hypotheses[i]))
    out = np.zeros((n, 3), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            enc = tokenizer(
                [premises[i] for i in idx],
                [hypotheses[i] for i in idx],
                truncation=True,
                max_length=max_length,
                padding=True,
                return_tensors="pt",
            )
            res = model(**enc)
            logits = res.logits if hasattr(res, "logits") else res
            probs = torch.softmax(torch.as_tensor(logits).float(), dim=-1).numpy()
            out[idx] = probs
    if label_order is not None:
        out = out[:, list(label_order)]
    return out


def classification_metrics(y_true: Sequence[int], probs: np.ndarray) -> dict[str, Any]:
    y = np.asarray(y_true, dtype=int)
    pred = probs.argmax(axis=1)
    conf = np.zeros((3, 3), dtype=int)
    for t, p in zip(y, pred, strict=True):
        conf[t, p] += 1
    res: dict[str, Any] = {"n": len(y), "accuracy": float((pred == y).mean()) if len(y) else 0.0}
    for k, name in enumerate(LABELS):
        support = conf[k].sum()
        res[f"recall_{name}"] = float(conf[k, k] / support) if support else float("nan")
        called = conf[:, k].sum()
        res[f"precision_{name}"] = float(conf[k, k] / called) if called else float("nan")
    res["confusion"] = conf.tolist()
    return res


def minimal_edit_metrics(examples: Sequence[NLIExample], probs: np.ndarray) -> dict[str, Any]:
    """Contradiction recall on edits, entailment precision, and false-alarm rates."""
    res = classification_metrics([e.label for e in examples], probs)
    pred = probs.argmax(axis=1)
    y = np.array([e.label for e in examples])
    ent = y == 0
    neu = y == 1
    res["contra_recall"] = res["recall_contradiction"]
    res["entail_precision"] = res["precision_entailment"]
    res["entail_called_contra"] = float((pred[ent] == 2).mean()) if ent.any() else float("nan")
    res["neutral_called_contra"] = float((pred[neu] == 2).mean()) if neu.any() else float("nan")
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for e, p in zip(examples, pred, strict=True):
        if e.label != 2:
            continue
        kind = e.source.split(":", 1)[1] if ":" in e.source else e.source
        kind = "entity" if kind.startswith("entity") else kind
        per_kind[kind][0] += int(p == 2)
        per_kind[kind][1] += 1
    res["contra_recall_by_kind"] = {k: (v[0] / v[1], v[1]) for k, v in sorted(per_kind.items())}
    return res


def compatible_metrics(examples: Sequence[NLIExample], probs: np.ndarray) -> dict[str, Any]:
    """False-contradiction rates on pairs none of which is a contradiction: the share whose
    argmax is contradiction and the share with p_contra >= 0.5, overall and per kind."""
    res = classification_metrics([e.label for e in examples], probs)
    pred = probs.argmax(axis=1)
    pc = probs[:, 2]
    res["false_contra"] = float((pred == 2).mean()) if len(pred) else float("nan")
    res["false_contra_p50"] = float((pc >= 0.5).mean()) if len(pc) else float("nan")
    res["mean_p_contra"] = float(pc.mean()) if len(pc) else float("nan")
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for e, p, c in zip(examples, pred, pc, strict=True):
        kind = e.source.split(":", 1)[1] if ":" in e.source else e.source
        per_kind[kind][0] += int(p == 2)
        per_kind[kind][1] += int(c >= 0.5)
        per_kind[kind][2] += 1
    res["false_contra_by_kind"] = {
        k: (v[0] / v[2], v[1] / v[2], v[2]) for k, v in sorted(per_kind.items())
    }
    return res


def compatible_set(
    splits: Splits, *, seed: int = 13, per_kind: int = 300, source: str = "compatible"
) -> list[NLIExample]:
    """Held-out pairs that agree or speak of different facts (none is a contradiction).

    Kinds (``source`` is ``compatible:<kind>``; gold label 0 or 1, only "not contradiction"
    is scored): ``entail`` / ``entail-reversed`` (MNLI held-out half and SNLI dev entailment
    pairs, and the two sentences swapped: the reverse of an entailment cannot contradict),
    ``vitaminc-supports`` / ``vitaminc-supports-reversed`` (held-out pages), ``paraphrase``
    (rule paraphrases of held-out sentences, both orders), ``related-different`` (two
    different sentences of one held-out VitaminC page or ANLI dev paragraph), ``question-same``
    / ``question-related`` / ``question-edited`` (a question and a statement on one topic).
    Everything comes from sources that neither v1 nor v2 trained on."""
    from training.augment import Augmenter, paraphrase_pairs, question_pairs
    from training.data import related_neutral_pairs

    out: list[NLIExample] = []

    def tag(exs: Sequence[NLIExample], kind: str) -> list[NLIExample]:
        return [NLIExample(e.premise, e.hypothesis, e.label, f"{source}:{kind}") for e in exs]

    ent = [
        e
        for name in ("mnli-heldout", "snli-dev")
        for e in splits.eval.get(name, [])
        if e.label == 0 and e.premise != e.hypothesis
    ]
    fwd = sample(ent, per_kind, seed)
    taken = set(fwd)
    rev_pool = [e for e in ent if e not in taken]
    rev = sample(rev_pool, per_kind, seed + 1)
    out += tag(fwd, "entail")
    out += tag([NLIExample(e.hypothesis, e.premise, 1) for e in rev], "entail-reversed")
    sup = [e for e in splits.eval.get("vitaminc-heldout", []) if e.label == 0]
    sup_f = sample(sup, per_kind, seed + 2)
    taken = set(sup_f)
    sup_r = sample([e for e in sup if e not in taken], per_kind, seed + 3)
    out += tag(sup_f, "vitaminc-supports")
    out += tag(
        [NLIExample(e.hypothesis, e.premise, 1) for e in sup_r], "vitaminc-supports-reversed"
    )
    held = splits.heldout_sentences() + [
        s for k, v in splits.eval_groups.items() if k.startswith("vitaminc:") for s in v
    ]
    out += tag(paraphrase_pairs(held, per_kind, seed + 4), "paraphrase")
    out += tag(related_neutral_pairs(splits.eval_groups, per_kind, seed + 5), "related-different")
    aug = Augmenter(held)
    qs = question_pairs(splits.eval_groups, 3 * per_kind, seed + 6, augmenter=aug)
    out += [
        NLIExample(e.premise, e.hypothesis, 1, f"{source}:question-{e.source.split(':', 1)[1]}")
        for e in qs
    ]
    return out


def build_eval_sets(
    splits: Splits,
    *,
    seed: int = 13,
    snli_dev_n: int = 3000,
    minimal_edit_sentences: int = 1500,
    compatible_per_kind: int = 300,
    vitaminc_n: int = 3000,
    anli_n: int = 0,
    names: Sequence[str] | None = None,
) -> dict[str, list[NLIExample]]:
    """The evaluation sets, in report order; ``names`` restricts which are built."""
    from training.augment import Augmenter

    want = set(names) if names is not None else None

    def ok(name: str) -> bool:
        return want is None or name in want

    sets: dict[str, list[NLIExample]] = {}
    if ok("mnli-heldout"):
        sets["mnli-heldout"] = splits.eval["mnli-heldout"]
    if ok("sick") and "sick" in splits.eval:
        sets["sick"] = splits.eval["sick"]
    if ok("minimal-edit"):
        aug = Augmenter(splits.heldout_sentences())
        sets["minimal-edit"] = aug.minimal_edit_set(minimal_edit_sentences, seed=seed)
    if ok("compatible"):
        sets["compatible"] = compatible_set(splits, seed=seed, per_kind=compatible_per_kind)
    if ok("vitaminc-heldout") and "vitaminc-heldout" in splits.eval:
        sets["vitaminc-heldout"] = sample(splits.eval["vitaminc-heldout"], vitaminc_n, seed)
    if ok("breaking-heldout"):
        sets["breaking-heldout"] = splits.eval["breaking-heldout"]
    if ok("snli-dev") and "snli-dev" in splits.eval:
        sets["snli-dev"] = sample(splits.eval["snli-dev"], snli_dev_n, seed)
    if ok("conjnli-dev") and "conjnli-dev" in splits.eval:
        sets["conjnli-dev"] = splits.eval["conjnli-dev"]
    if anli_n and ok("anli-dev") and "anli-dev" in splits.eval:
        sets["anli-dev"] = sample(splits.eval["anli-dev"], anli_n, seed)
    return sets


def _label_order(model: Any) -> list[int] | None:
    """Column permutation from the model's id2label to mirage's [entail, neutral, contra]."""
    cfg = getattr(model, "config", None)
    id2label = getattr(cfg, "id2label", None)
    if not id2label:
        return None
    name2id = {str(v).lower(): int(k) for k, v in id2label.items()}
    try:
        return [name2id[name] for name in LABELS]
    except KeyError:
        return None


def run_evaluation(
    model: Any,
    tokenizer: Any,
    sets: dict[str, list[NLIExample]],
    *,
    batch_size: int = 64,
    max_length: int = 128,
    label_order: Sequence[int] | None = None,
    progress: bool = False,
) -> dict[str, dict[str, Any]]:
    """Metrics per set (``minimal-edit`` gets :func:`minimal_edit_metrics`)."""
    order = label_order if label_order is not None else _label_order(model)
    results: dict[str, dict[str, Any]] = {}
    for name, exs in sets.items():
        t0 = time.perf_counter()
        probs = predict(
            model,
            tokenizer,
            [e.premise for e in exs],
            [e.hypothesis for e in exs],
            batch_size=batch_size,
            max_length=max_length,
            label_order=order,
        )
        dt = time.perf_counter() - t0
        if name == "minimal-edit":
            res = minimal_edit_metrics(exs, probs)
        elif name == "compatible":
            res = compatible_metrics(exs, probs)
        else:
            res = classification_metrics([e.label for e in exs], probs)
        res["seconds"] = dt
        results[name] = res
        if progress:
            print(f"  evaluated {name}: {len(exs)} pairs in {dt:.0f}s", flush=True)
    return results


def throughput(
    model: Any,
    tokenizer: Any,
    examples: Sequence[NLIExample],
    *,
    batch_size: int = 64,
    max_length: int = 128,
    sort_by_length: bool = False,
    repeats: int = 1,
) -> float:
    """Pairs per second at ``batch_size`` (tokenization included), best of ``repeats``."""
    prem = [e.premise for e in examples]
    hyp = [e.hypothesis for e in examples]
    predict(
        model,
        tokenizer,
        prem[:batch_size],
        hyp[:batch_size],
        batch_size=batch_size,
        max_length=max_length,
    )  # warm-up
    best = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        predict(
            model,
            tokenizer,
            prem,
            hyp,
            batch_size=batch_size,
            max_length=max_length,
            sort_by_length=sort_by_length,
        )
        best = max(best, len(prem) / (time.perf_counter() - t0))
    return best


def _pct(x: float) -> str:
    return "  n/a" if x != x else f"{100 * x:5.1f}"


def format_table(results: dict[str, dict[str, Any]], title: str = "") -> str:
    """A plain-text table: accuracy and per-class recall per set, then minimal-edit figures."""
    lines = []
    if title:
        lines.append(title)
    lines.append(
        f"{'set':<18}{'n':>7}{'acc%':>7}{'R_ent':>7}{'R_neu':>7}{'R_con':>7}"
        f"{'P_ent':>7}{'P_con':>7}"
    )
    for name, r in results.items():
        lines.append(
            f"{name:<18}{r['n']:>7}{_pct(r['accuracy']):>7}"
            f"{_pct(r['recall_entailment']):>7}{_pct(r['recall_neutral']):>7}"
            f"{_pct(r['recall_contradiction']):>7}{_pct(r['precision_entailment']):>7}"
            f"{_pct(r['precision_contradiction']):>7}"
        )
    me = results.get("minimal-edit")
    if me:
        lines.append(
            "minimal-edit: contradiction recall {}%  entailment precision {}%  "
            "entailing pairs called contradiction {}%  unrelated pairs called contradiction {}%".format(
                *(
                    _pct(me[k]).strip()
                    for k in (
                        "contra_recall",
                        "entail_precision",
                        "entail_called_contra",
                        "neutral_called_contra",
                    )
                )
            )
        )
        lines.append(
            "  contradiction recall by edit kind: "
            + ", ".join(
                f"{k} {100 * v[0]:.1f}% (n={v[1]})" for k, v in me["contra_recall_by_kind"].items()
            )
        )
    co = results.get("compatible")
    if co:
        lines.append(
            f"compatible pairs: false contradictions (argmax) {_pct(co['false_contra']).strip()}%"
            f"  p_contra>=0.5 {_pct(co['false_contra_p50']).strip()}%"
            f"  mean p_contra {co['mean_p_contra']:.3f}"
        )
        lines.append(
            "  by kind (argmax / p>=0.5): "
            + ", ".join(
                f"{k} {100 * v[0]:.1f}/{100 * v[1]:.1f}% (n={v[2]})"
                for k, v in co["false_contra_by_kind"].items()
            )
        )
    return "\n".join(lines)


def load_model(path: str | Path, *, threads: int | None = 2) -> tuple[Any, Any]:
    """Load a saved classifier in float32 for CPU evaluation."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    if threads:
        torch.set_num_threads(threads)
    tok = AutoTokenizer.from_pretrained(str(path))
    model = AutoModelForSequenceClassification.from_pretrained(str(path), dtype=torch.float32)
    model.eval()
    return model, tok
