"""Coordination signals alone and combined: `python -m research.coordination_signals`.

Planted groups: PoisonedRAG NQ + HotpotQA, gold + five poisons (all 100 queries of each, each
passage its own publisher), with the original poisons and the three adaptive rewrites
(paraphrase, synonym, dispersed). Honest multi-outlet coverage: gpe-eval claims with ≥ 10 benign
passages (k = 10, first 1,200 characters, publisher = URL host).

For every evidence set, :func:`mirage_core.coordination.candidate_groups` proposes the groups
(passages of ≥ 3 publishers sharing a content token outside the query) and
:func:`~mirage_core.coordination.group_signals` scores each; an evidence set's score for a
signal is its most suspicious group's. A planted set is *caught* when its most suspicious group
reaches the threshold; an honest set is a *false alarm* when any group does. Queries (and gpe
claims) are split in two seeded halves: centers / scales (median / MAD over the honest fit
groups), thresholds (flagging ≤ 5% of honest fit sets) and the choice of combination (the
highest worst-variant catch rate on the fit half) are made on the fit half only; every figure
printed is on the held-out half unless labelled "fit". A combination's score is the mean of its
standardized signals (novelty and detail negated).

Honest gpe pages run to 1,200 characters, poisons to about 300: a *length-matched control* cuts
the same honest passages to 300 characters. Its FPR at the thresholds fit above says whether a
signal only measures length; a second table refits everything against it.

A third honest pool, *query snippets*, cuts each honest page to the one or two sentences most
relevant to the query (``benchmarks/snippets.py``, ~150–300 chars, as chunked retrievers return
them). Last, the shipped models' length floor (``CoordinationModel.min_tokens``) is fit on the
fit half: the largest floor that loses no planted set caught there.

Output committed as research/results/coordination_signals.txt (rerun on 2026-12-02, when the
``insistence`` and ``detail`` signals were added: 866 s on 2 cores with other jobs running; 511
combinations). The length-floor section reads the shipped
models (threshold 2.5, chosen on the scoreboard's fit split on 2026-12-01 by
``research/choose_default.py``); the "recommended" models are this script's fit-half picks,
which the scoreboard then decides on (``research/results/scoreboard-choice.md``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import math
import os
import random
import time
from dataclasses import replace

import numpy as np

from benchmarks.snippets import SCAN_CHARS as SNIPPET_SCAN_CHARS
from benchmarks.snippets import snippet
from mirage_core.coordination import (
    DEFAULT_MODEL,
    LOW_SIDE,
    SIGNALS,
    TEXT_MODEL,
    CoordinationModel,
    candidate_groups,
    evidence_profile,
    group_signals,
)
from research.coordination_data import (
    VARIANTS,
    DiskCachedEmbedder,
    honest_evidence,
    honest_sets,
    planted_sets,
)

FPR_BUDGET = 0.05
#: Reported too, not used to choose: the five poisons alone (FULL), where ``tightness`` has no
#: other passages to compare with.
ALONE = ("original, poisons only", "dispersed, poisons only")
SHOWN = (*VARIANTS, *ALONE)
SHORT_CHARS = 300  # about a PoisonedRAG poison's length (a length-matched honest control)


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """ROC AUC = P(score_pos > score_neg) + ½ P(tie) (Mann–Whitney)."""
    pos, neg = np.asarray(pos, float), np.asarray(neg, float)
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    allv = np.concatenate([pos, neg])
    order = allv.argsort(kind="mergesort")
    ranks = np.empty(allv.size)
    sorted_v = allv[order]
    i = 0
    while i < allv.size:  # average ranks of ties
        j = i
        while j + 1 < allv.size and sorted_v[j + 1] == sorted_v[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    r = ranks[: pos.size].sum()
    return float((r - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


def _threshold(neg: np.ndarray, budget: float = FPR_BUDGET) -> float:
    """Lowest threshold (score ≥ t flags) that flags at most ``budget`` of ``neg``."""
    s = np.sort(np.asarray(neg, float))[::-1]
    allowed = math.floor(budget * s.size)
    if allowed >= s.size:
        return -math.inf
    # flag the top `allowed`; the threshold sits just above the next one
    return float(np.nextafter(s[allowed], math.inf))


def _oriented(g, s: str) -> float:
    v = g.value(s)
    return -v if s in LOW_SIDE else v


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="queries per PoisonedRAG set")
    ap.add_argument("--seed", type=int, default=0, help="seed of the fit / report split")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--stability",
        type=int,
        default=5,
        help="also repeat the fit / report procedure on this many seeded splits, both ways (0: off)",
    )
    ap.add_argument(
        "--shortqa",
        action="store_true",
        help="add shortqa's honest sets (benchmarks/shortqa.py) to the honest pool the "
        "thresholds are fit on (not the centers and scales); their held-out FPR is shown",
    )
    ap.add_argument(
        "--show",
        default="",
        help="semicolon list of extra combinations to print, e.g. 'answer_focus,cosine;novelty'",
    )
    args = ap.parse_args()
    show = tuple(tuple(c.split(",")) for c in args.show.split(";") if c)
    unknown = sorted({s for combo in show for s in combo} - set(SIGNALS))
    if unknown:  # before the data is loaded: a typo costs nothing
        ap.error(f"--show: unknown signals {unknown}; known: {', '.join(SIGNALS)}")
    import torch

    torch.set_num_threads(args.threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    t0 = time.perf_counter()
    emb = DiskCachedEmbedder()
    short = honest_sets(max_chars=SHORT_CHARS)
    for e in short:
        e.variant = "honest-short"
    # honest short snippets as a chunked retriever returns them (benchmarks/snippets.py)
    snips = honest_sets(max_chars=SNIPPET_SCAN_CHARS)
    for e in snips:
        e.variant = "honest-snippet"
        e.texts = [snippet(t, e.query) for t in e.texts]
    alone = planted_sets(args.limit, variants=("original", "dispersed"), regime="full")
    evidence = planted_sets(args.limit) + alone + honest_sets() + short + snips
    if args.shortqa:
        from shortqa import load_shortqa

        clean = [i for i in load_shortqa().instances if i.regime == "clean"]
        evidence += honest_evidence(clean, "shortqa", "honest-shortqa")

    # -- split: by query (all variants of a PoisonedRAG query on one side) and gpe claim --
    keys = sorted({e.key for e in evidence if e.source != "shortqa"})
    rng = random.Random(f"{args.seed}:coordination-split")
    rng.shuffle(keys)
    fit_keys = set(keys[: len(keys) // 2])
    if args.shortqa:  # the scoreboard's split of shortqa, so its report half stays unseen
        from mirage_core.evaluation.splits import split_queries

        qids = [e.key.removeprefix("shortqa:") for e in evidence if e.source == "shortqa"]
        fit_keys |= {f"shortqa:{q}" for q in split_queries(qids, 0.5, args.seed)[0]}

    # -- every candidate group of every evidence set, scored on every signal ---------------
    sets = []  # (evidence, split, groups)
    for e in evidence:
        prof = evidence_profile(e.query, e.texts, e.domains, emb.embed(e.texts))
        groups = [group_signals(prof, m, a) for m, a in candidate_groups(prof)]
        sets.append((e, "fit" if e.key in fit_keys else "report", groups))
    n_groups = sum(len(g) for _, _, g in sets)

    print(
        f"Evidence sets: {len(evidence)}; candidate groups scored: {n_groups}; split by query "
        f"/ claim into two seeded halves ({len(fit_keys)} of {len(keys)} keys fit)."
    )
    print()
    fitted = report(
        sets,
        "honest",
        "honest-short",
        "gpe-eval honest coverage, k = 10, 1,200 chars"
        + (" (thresholds: with shortqa's honest sets)" if args.shortqa else ""),
        extra_neg="honest-shortqa" if args.shortqa else None,
        show=show,
    )[0]
    print()
    report(
        sets,
        "honest-short",
        None,
        f"length-matched control: the same gpe-eval passages cut to {SHORT_CHARS} chars",
        top=5,
    )
    if args.stability:
        print()
        stability(sets, keys, args.stability)
    print()
    floors = fit_floors(sets)
    print()
    print("CoordinationModels recommended (fit above on the 1,200-char honest half):")
    print(fitted)
    print("min_tokens: " + ", ".join(f"{k} {v:g}" for k, v in floors.items()))
    print()
    print(f"({time.perf_counter() - t0:.0f} s)")


HONEST_POOLS = ("honest", "honest-short", "honest-snippet")


def fit_floors(sets) -> dict[str, float]:
    """The shipped models' ``min_tokens``: the largest floor on a group's median content tokens
    that loses no planted set caught on the fit half (any variant, poisons alone included);
    held-out catches and honest false alarms with and without it."""
    out: dict[str, float] = {}
    print("## Length floor (min_tokens) of the shipped models")
    print()
    print(
        "A group whose passages hold a median of fewer content tokens is never flagged. "
        "Chosen on the fit half: the largest floor that loses no planted set caught there. "
        "Held-out: planted sets caught (TPR) and honest sets flagged (FPR: 1,200-char pages, "
        f"the {SHORT_CHARS}-char control, query snippets), without / with the floor."
    )
    for name, base in (("embedding", DEFAULT_MODEL), ("text", TEXT_MODEL)):
        model = replace(base, min_tokens=0.0)
        scored = []  # (evidence, split, [(score, tokens)])
        for e, sp, groups in sets:
            use = [model.score(g) for g in groups]
            scored.append((e, sp, [(g.score, g.tokens) for g in use]))

        def caught(rows, floor: float, thr: float = model.threshold) -> bool:
            return any(sc >= thr and tk >= floor for sc, tk in rows)

        planted = [x for x in scored if x[0].variant in SHOWN]
        fit_hits = [rows for e, sp, rows in planted if sp == "fit" and caught(rows, 0.0)]
        # the floor may rise to the smallest token count among each caught set's best group
        limit = min(max(tk for sc, tk in rows if sc >= model.threshold) for rows in fit_hits)
        floor = float(math.floor(limit))
        out[name] = floor
        print()
        print(f"`{name}` model: floor {floor:g} content tokens (fit-half limit {limit:g})")
        print()
        print("| evidence | held-out sets | caught / flagged without floor | with floor |")
        print("|---|---|---|---|")
        for v in (*SHOWN, *HONEST_POOLS):
            rows = [r for e, sp, r in scored if sp == "report" and e.variant == v]
            if not rows:
                continue
            a = np.mean([caught(r, 0.0) for r in rows])
            b = np.mean([caught(r, floor) for r in rows])
            print(f"| {v} | {len(rows)} | {a:.0%} | {b:.0%} |")
    return out


def stability(sets, keys: list[str], n_seeds: int) -> None:
    """The whole procedure again on ``n_seeds`` seeded splits, each used both ways (fit on one
    half, report on the other, then swapped): how often each combination is chosen, and its
    held-out figures (mean, min–max) — one split's 5% threshold rests on ~6 honest sets."""
    chosen: dict[tuple[str, ...], int] = {}
    held: dict[tuple[str, ...], list[dict]] = {}
    runs = 0
    for seed in range(n_seeds):
        order = list(keys)
        random.Random(f"{seed}:coordination-split").shuffle(order)
        half = set(order[: len(order) // 2])
        for fit_keys in (half, set(order) - half):
            relabeled = [(e, "fit" if e.key in fit_keys else "report", g) for e, _, g in sets]
            with contextlib.redirect_stdout(io.StringIO()):
                _, results, best, _ = report(relabeled, "honest", None, "")
            chosen[best] = chosen.get(best, 0) + 1
            for c, r in results.items():
                held.setdefault(c, []).append(r["report"])
            runs += 1

    def mean_tpr(c, v) -> float:
        return float(np.mean([r[v]["tpr"] for r in held[c]]))

    def worst(c) -> float:
        return min(mean_tpr(c, v) for v in VARIANTS)

    shown = [(s,) for s in SIGNALS]
    shown += sorted((c for c in chosen if len(c) > 1), key=lambda c: -chosen[c])
    shown += [c for c in sorted(held, key=lambda c: -worst(c)) if c not in shown][:4]
    print(f"## Stability: {n_seeds} seeded splits × both ways = {runs} fit / report runs")
    print()
    print(
        "Held-out figures averaged over the runs (honest FPR: mean, min–max); 'chosen': how "
        "often the fit-half rule picked the combination."
    )
    print()
    print(
        "| signals | chosen | honest FPR | "
        + " | ".join(f"{v} TPR" for v in SHOWN)
        + " |\n|"
        + "---|" * (3 + len(SHOWN))
    )
    for c in shown:
        fpr = [r["fpr"] for r in held[c]]
        print(
            f"| {' + '.join(c)} | {chosen.get(c, 0)} | {np.mean(fpr):.0%} "
            f"({min(fpr):.0%}–{max(fpr):.0%}) | "
            + " | ".join(f"{mean_tpr(c, v):.0%}" for v in SHOWN)
            + " |"
        )


def report(
    sets,
    neg: str,
    other: str | None,
    title: str,
    top: int = 12,
    combine: str = "mean",
    extra_neg: str | None = None,
    show: tuple[tuple[str, ...], ...] = (),
) -> tuple[str, dict, tuple[str, ...], tuple[str, ...]]:
    """Fit centers, scales and thresholds on ``neg``'s fit half, print the held-out table;
    ``other``: a second honest pool whose held-out FPR at the same thresholds is shown;
    ``extra_neg``: an honest pool whose fit half joins ``neg``'s for the thresholds (not for
    the centers and scales), its held-out FPR shown too (``--shortqa``)."""

    def subset(split: str, variant: str):
        for e, sp, groups in sets:
            if sp == split and e.variant == variant:
                yield e, groups

    # -- standardization from honest fit groups ---------------------------------------------
    center, scale = {}, {}
    for s in SIGNALS:
        vals = np.array(
            [
                g.value(s)
                for _, groups in subset("fit", neg)
                for g in groups
                if math.isfinite(g.value(s))
            ]
        )
        center[s] = float(np.median(vals))
        scale[s] = max(float(np.median(np.abs(vals - center[s]))) * 1.4826, 1e-3)

    # standardized signals of every group: one (groups × signals) matrix per evidence set
    model = CoordinationModel(SIGNALS, center, scale, threshold=0.0)
    zmats = []
    for _, _, groups in sets:
        z = np.full((len(groups), len(SIGNALS)), np.nan)
        for r, g in enumerate(groups):
            for c, s in enumerate(SIGNALS):
                z[r, c] = model.standardize(g).get(s, np.nan)
        zmats.append(z)
    col = {s: i for i, s in enumerate(SIGNALS)}

    def set_score(k: int, combo: tuple[str, ...]):
        """The evidence set's score (its most suspicious group's) and that group."""
        z = zmats[k][:, [col[s] for s in combo]]
        if z.size == 0:
            return -math.inf, None
        with np.errstate(all="ignore"):
            ok = ~np.isnan(z)
            if combine == "min":  # every signal of the combination must be high
                agg = np.where(ok, z, np.inf).min(1)
            else:
                agg = np.nansum(z, 1) / np.maximum(ok.sum(1), 1)
            score = np.where(ok.any(1), agg, -np.inf)
        r = int(np.argmax(score))
        return float(score[r]), sets[k][2][r]

    def members(split: str, variant: str):
        return [k for k, (e, sp, _) in enumerate(sets) if sp == split and e.variant == variant]

    def evaluate(combo: tuple[str, ...]):
        def scores(keys: list[int]) -> np.ndarray:
            return np.array([set_score(k, combo)[0] for k in keys])

        pool = members("fit", neg) + (members("fit", extra_neg) if extra_neg else [])
        thr = _threshold(scores(pool))
        out = {"threshold": thr, "fit": {}, "report": {}}
        for split in ("fit", "report"):
            negs = scores(members(split, neg))
            row = {"fpr": float((negs >= thr).mean())}
            # the other honest pools: the share of their sets flagged at the same threshold
            for key, variant in (("other_fpr", other), ("extra_fpr", extra_neg)):
                if variant is not None:
                    row[key] = float((scores(members(split, variant)) >= thr).mean())
            for v in SHOWN:
                ks = members(split, v)
                scored = [(sets[k][0], *set_score(k, combo)) for k in ks]
                pos = np.array([sc for _, sc, _ in scored])
                caught = pos >= thr
                # the flagged group is the planted one: ≥ 4 of its members are poisons, and
                # it holds no more than one honest passage
                pure = [
                    bg is not None
                    and sum(e.planted[i] for i in bg.passages) >= 4
                    and sum(not e.planted[i] for i in bg.passages) <= 1
                    for e, _, bg in scored
                ]
                row[v] = {
                    "auc": _auc(pos, negs),
                    "tpr": float(caught.mean()),
                    "pure": float(np.mean([p for p, c in zip(pure, caught, strict=True) if c]))
                    if caught.any()
                    else float("nan"),
                }
            out[split] = row
        return out

    combos = [c for r in range(1, len(SIGNALS) + 1) for c in itertools.combinations(SIGNALS, r)]
    results = {c: evaluate(c) for c in combos}

    def worst_fit_tpr(c) -> float:
        return min(results[c]["fit"][v]["tpr"] for v in VARIANTS)

    def mean_fit_tpr(c) -> float:
        return float(np.mean([results[c]["fit"][v]["tpr"] for v in VARIANTS]))

    no_embed = [c for c in results if "cosine" not in c and "tightness" not in c]
    best_any = max(results, key=lambda c: (worst_fit_tpr(c), mean_fit_tpr(c), -len(c)))
    best_lex = max(no_embed, key=lambda c: (worst_fit_tpr(c), mean_fit_tpr(c), -len(c)))

    n_pos = {v: len(members("report", v)) for v in SHOWN}
    n_neg = len(members("report", neg))
    print(f"## Honest side: {title}")
    print()
    print(
        f"Report half: {n_neg} honest sets, "
        + ", ".join(f"{n_pos[v]} {v}" for v in SHOWN)
        + ' PoisonedRAG sets (NQ + HotpotQA; gold + 5 poisons unless "poisons only").'
    )
    print("Honest-group centers / scales (median / MAD over honest fit groups):")
    print("  " + ", ".join(f"{s} {center[s]:.3f} / {scale[s]:.3f}" for s in SIGNALS))
    print()
    print(
        "Held-out half. AUC: planted set vs honest set (most suspicious group). TPR: planted "
        f"sets caught at the threshold fit to flag ≤ {FPR_BUDGET:.0%} of honest fit sets; "
        "FPR: honest held-out sets flagged. pure: of the caught sets, the flagged group is "
        "the poisons (≥ 4 of 5, ≤ 1 honest passage)."
    )
    print()
    extra = " | FPR, length-matched honest |" if other else " |"
    if extra_neg:
        extra += f" FPR, {extra_neg} |"
    head = "| signals | threshold | honest FPR | " + " | ".join(f"{v} AUC | {v} TPR" for v in SHOWN)
    print(head + " | pure (all variants)" + extra)
    print("|" + "---|" * (3 + 2 * len(SHOWN) + 1 + (1 if other else 0) + (1 if extra_neg else 0)))

    def line(c) -> str:
        r = results[c]
        rep = r["report"]
        pure = np.nanmean([rep[v]["pure"] for v in VARIANTS])
        cells = " | ".join(f"{rep[v]['auc']:.3f} | {rep[v]['tpr']:.0%}" for v in SHOWN)
        name = " + ".join(c)
        if len(c) == 1:  # the threshold in the signal's own units too
            s = c[0]
            raw = center[s] + (-1 if s in LOW_SIDE else 1) * r["threshold"] * scale[s]
            name += f" ({'≤' if s in LOW_SIDE else '≥'} {raw:.3f} raw)"
        tail = f" {rep['other_fpr']:.0%} |" if other else ""
        if extra_neg:
            tail += f" {rep['extra_fpr']:.0%} |"
        return f"| {name} | {r['threshold']:.2f} | {rep['fpr']:.0%} | {cells} | {pure:.0%} |" + tail

    for s in SIGNALS:
        print(line((s,)))
    ranked = sorted(
        [c for c in combos if len(c) > 1],
        key=lambda c: (-worst_fit_tpr(c), -mean_fit_tpr(c), len(c)),
    )
    for c in ranked[:top]:
        print(line(c))
    for c in show:
        if c not in ranked[:top] and len(c) > 1:
            print(line(c) + " (asked for)")
    print()
    print(
        "Combinations ranked on the fit half by their worst variant's TPR (then the mean); "
        f"the top {top} of {len(ranked)} shown. Scores of combinations: the mean of "
        "the standardized signals (novelty and detail negated); thresholds in those units."
    )
    for label, c in (("best overall", best_any), ("best without embeddings", best_lex)):
        r = results[c]
        print(
            f"{label}: {' + '.join(c)} at {r['threshold']:.3f} — fit worst TPR "
            f"{worst_fit_tpr(c):.0%}, fit FPR {r['fit']['fpr']:.0%}; held-out FPR "
            f"{r['report']['fpr']:.0%}, TPR "
            + ", ".join(f"{v} {r['report'][v]['tpr']:.0%}" for v in SHOWN)
        )
    text = "\n".join(
        f"{label}: CoordinationModel(signals={c!r}, "
        f"center={ {s: round(center[s], 4) for s in SIGNALS} }, "
        f"scale={ {s: round(scale[s], 4) for s in SIGNALS} }, "
        f"threshold={results[c]['threshold']:.3f})"
        for label, c in (("with embeddings", best_any), ("without embeddings", best_lex))
    )
    return text, results, best_any, best_lex


if __name__ == "__main__":
    main()
