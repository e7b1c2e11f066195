"""The one scoreboard: clean evidence must pass, polluted and coordinated evidence must not.

One command runs the default ``MirageConfig()`` and ``MirageConfig.paper()`` (and, with
``--ragdefender``, the RAGDefender baseline; with ``--config``, any other configuration) on the
same inputs in one run and prints one table, each figure beside its goal, on the fit split and
on the report split (a seeded 50/50 split of the queries of every dataset):

- gpe-eval CLEAN / MIXED / FULL at k = 5 (200 claims) and k = 10 (100 claims; seeded; attacks fakegpt
  and poisonedrag, which push the false claim, both at k = 5 and one per claim (seeded) at
  k = 10; MIXED replaces half of the passages);
- gpe-eval short snippets (``gpe-snip-k5``, ``gpe-snip-k10``): the same claims and regimes, each
  passage cut to the one or two sentences most relevant to the query (~150–300 characters, as a
  chunked retriever returns them; ``benchmarks/snippets.py``), with the share of evidence sets
  whose passages the coordination signals flagged (short honest snippets that agree are where
  those signals' false alarms show);
- PoisonedRAG NQ and HotpotQA (100 questions each): gold + 5 poisons, and the 5 poisons alone;
- optionally (``--adaptive``) PoisonedRAG with adaptive poisons (paraphrased, synonym-substituted,
  semantically dispersed);
- shortqa (59 short questions, ``benchmarks/shortqa.py``; ``--no-shortqa`` leaves it out): five
  honest passages from five publishers (CLEAN), five planted poisons alone (FULL), and both
  (MIXED, k = 10), the scoreboard's only honest multi-source evidence for short questions; and
  ``shortqa-one`` / ``shortqa-two``: the five honest passages and one or two poisons (k = 6 /
  7), planted pages too few for the coordination signals to see.

Two more sections follow the table, each printed for every system and split:

- **attack families** (``--families``, default all of ``benchmarks.families.FAMILIES``): for
  PoisonedRAG NQ and HotpotQA, one column per family (GPT-4 poisons, the adaptive rewrites,
  ``poisonedrag-variants``' Gemini / GARAG / blind sets, and the generated token soup,
  question-glued, hedging and several-answers poisons; ``--family-n`` questions each) with
  poisons alone blocked, gold + poisons: wrong answer delivered, correct answer only, and for
  GARAG passes with the correct answer, plus the mean and worst family per measure; then the
  leave-one-family-out picks of ``benchmarks.families`` between the configurations of this run;
- **long form** (``--biogen PATH``; skipped with a message when the file is absent, or with
  ``--no-longform``): biogen-dev at k = 10 and 20 and gpe-eval's benign evidence, polluted by
  the Retrieval Pollution Protocol (rule-based, four families, MIXED and FULL, seeded): clean
  pass, contamination per family, MIXED pass, claims delivered per passing clean query,
  corroborated-claim retention, p50 latency.

NLI scores are kept in a SQLite pair store keyed on the model's weights
(``benchmarks/.cache/pairs.sqlite``, not committed): a rerun after an engine change costs only
the pairs it has never scored. Thresholds are never fitted here (``mirage calibrate`` fits on
the fit split); the report split is what the README quotes.

    python -m benchmarks.scoreboard --out benchmarks/results/scoreboard
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import families as fam
from benchmarks._pair_store import stored_models
from benchmarks.shortqa import FEW_NAMES, load_shortqa, load_shortqa_few
from benchmarks.snippets import SCAN_CHARS as SNIPPET_SCAN_CHARS
from benchmarks.snippets import snippet_dataset
from mirage_core.answer_conflict import answer_conflicts
from mirage_core.config import MirageConfig
from mirage_core.evaluation.datasets import load_dataset, load_rows
from mirage_core.evaluation.gpe import load_gpe
from mirage_core.evaluation.harness import run_benchmark
from mirage_core.evaluation.instances import Dataset, subsample
from mirage_core.evaluation.measures import contains_answer
from mirage_core.evaluation.records import InstanceRecord, _metrics
from mirage_core.evaluation.splits import dataset_split
from mirage_core.pairs import candidate_pairs

GPE_ATTACKS = ("fakegpt", "poisonedrag")
#: Questions of each adaptive and attack-family set whose fit half defaults were chosen on: a
#: larger ``--adaptive-n`` / ``--family-n`` keeps them and their split, and splits the added
#: questions apart (``subsample``'s ``pinned``, ``dataset_split``).
PINNED_QUESTIONS = 20


_SPLITS: dict[tuple[str, int], set[str]] = {}


def split_of(dataset: str, qid: str, seed: int) -> str:
    """The fit/report split of ``mirage calibrate`` (``split_queries``: seeded, 50/50 of the
    dataset's query ids; ``dataset_split`` for a set grown beyond its pinned questions), so
    thresholds it fits on "fit" are reported here on "report"."""
    return "fit" if qid in _SPLITS[(dataset, seed)] else "report"


def gpe(k: int, n: int, seed: int, max_chars: int = 1200) -> Dataset:
    """gpe-eval at ``k`` passages: ``n`` claims, seeded. At k = 5 every claim qualifies and
    this is exactly ``mirage calibrate --dataset gpe --limit n --k 5`` (same queries, same
    split); at larger k the claims with fewer benign passages are skipped first."""
    if k == 5:
        ds = load_gpe(k=k, attacks=GPE_ATTACKS, seed=seed, limit=n, max_chars=max_chars)
        ds.name = f"gpe-k{k}"
        return ds
    ds = load_gpe(k=k, attacks=GPE_ATTACKS, seed=seed, limit=None, max_chars=max_chars)
    qids = sorted({i.qid for i in ds.instances})
    keep = {qids[i] for i in subsample(len(qids), n, seed)}
    # CPU budget: at k > 5 each claim meets one attack type (seeded), not both.
    attack = {q: GPE_ATTACKS[hashlib.sha1(f"{seed}|{q}".encode()).digest()[0] % 2] for q in keep}
    ds.instances = [
        i
        for i in ds.instances
        if i.qid in keep and (i.regime == "clean" or i.family == attack[i.qid])
    ]
    ds.name = f"gpe-k{k}"
    ds.n_queries = len(keep)
    return ds


def gpe_snippets(k: int, n: int, seed: int) -> Dataset:
    """The same claims, passages and regimes as :func:`gpe`, each passage cut to the one or two
    sentences most relevant to the query (``benchmarks/snippets.py``: ~150–300 characters, as
    a chunked retriever returns them), so short honest snippets that agree are measured."""
    return snippet_dataset(gpe(k, n, seed, max_chars=SNIPPET_SCAN_CHARS), f"gpe-snip-k{k}")


# -- goals --------------------------------------------------------------------------------------
# (label, dataset, regime, metric, goal text, test)
Goal = tuple[str, str, str, str, str, Callable[[float], bool]]


def _row(ds: str, what: str, regime: str, metric: str, goal: str = "—", ok=lambda x: True) -> Goal:
    return (f"{ds} {what}", ds, regime, metric, goal, ok)


def goals(datasets: Sequence[str]) -> list[Goal]:
    out: list[Goal] = []
    for ds in datasets:
        if ds.startswith("gpe"):
            clean = _row(ds, "CLEAN pass", "clean", "pass_rate", "≥ 90%", lambda x: x >= 0.9)
            full = _row(ds, "FULL pass", "full", "pass_rate", "≤ 10%", lambda x: x <= 0.1)
            mixed = _row(
                ds,
                "MIXED polluted share of delivered claims",
                "mixed",
                "contamination",
                "≤ 10%",
                lambda x: x <= 0.1,
            )
            if ds.startswith("gpe-snip"):
                flag = "coordination flagged"
                out += [
                    clean,
                    _row(ds, f"CLEAN {flag}", "clean", "coordination_flagged"),
                    full,
                    _row(ds, f"FULL {flag}", "full", "coordination_flagged"),
                    mixed,
                ]
            else:
                out += [
                    clean,
                    full,
                    mixed,
                    _row(ds, "MIXED pass", "mixed", "pass_rate"),
                    _row(ds, "CLEAN corroborated claims delivered", "clean", "retention"),
                ]
        elif ds == "shortqa":
            out += [
                _row(ds, "CLEAN pass", "clean", "pass_rate", "≥ 90%", lambda x: x >= 0.9),
                _row(ds, "CLEAN coordination flagged", "clean", "coordination_flagged"),
                _row(ds, "CLEAN correct answer in evidence", "clean", "correct_in_evidence"),
                _row(ds, "poisons alone blocked", "full", "blocked", "≥ 95%", lambda x: x >= 0.95),
                _row(
                    ds,
                    "honest+5: wrong answer in evidence",
                    "mixed",
                    "incorrect_in_evidence",
                    "≤ 10%",
                    lambda x: x <= 0.1,
                ),
                _row(
                    ds,
                    "honest+5: correct answer only",
                    "mixed",
                    "correct_only",
                    "≥ 30%",
                    lambda x: x >= 0.3,
                ),
                _row(ds, "honest+5 pass", "mixed", "pass_rate"),
            ]
        elif ds in FEW_NAMES.values():
            few = f"honest+{next(n for n, name in FEW_NAMES.items() if name == ds)}"
            out += [
                _row(
                    ds,
                    f"{few}: wrong answer in evidence",
                    "mixed",
                    "incorrect_in_evidence",
                    "≤ 10%",
                    lambda x: x <= 0.1,
                ),
                _row(ds, f"{few}: correct answer only", "mixed", "correct_only"),
                _row(ds, f"{few} pass", "mixed", "pass_rate"),
            ]
        else:
            out += [
                (
                    f"{ds} poisons alone blocked",
                    ds,
                    "full",
                    "blocked",
                    "≥ 95%",
                    lambda x: x >= 0.95,
                ),
                (
                    f"{ds} gold+5: wrong answer in evidence",
                    ds,
                    "mixed",
                    "incorrect_in_evidence",
                    "≤ 10%",
                    lambda x: x <= 0.1,
                ),
                (
                    f"{ds} gold+5: correct answer only",
                    ds,
                    "mixed",
                    "correct_only",
                    "≥ 30%",
                    lambda x: x >= 0.3,
                ),
                (f"{ds} gold+5 pass", ds, "mixed", "pass_rate", "—", lambda x: True),
            ]
    return out


def _pair_conflicts(records: list[InstanceRecord], system: str, kind: str) -> tuple[int, int]:
    """Undirected NLI pairs called contradiction (either direction, after the engine's
    combination) among ``kind`` pairs: ``clean`` = both claims clean (CLEAN regime);
    ``gold_poison`` = one clean and one polluted claim, both query-relevant (MIXED)."""
    hit = total = 0
    for rec in records:
        v = rec.verdicts.get(system)
        if v is None or len(v.graph) == 0:
            continue
        g = v.graph
        polluted = rec.polluted
        relevant = getattr(v, "relevance", None)
        n_dir = len(g) // 2
        contra = (g.w_contr[:n_dir] > 0) | (g.w_contr[n_dir:] > 0)
        a, b = g.premise[:n_dir], g.hypothesis[:n_dir]
        if kind == "clean":
            mask = ~polluted[a] & ~polluted[b]
        else:
            mask = polluted[a] != polluted[b]
            if relevant is not None and len(relevant):
                rel = np.asarray(relevant) > 0
                mask &= rel[a] & rel[b]
        hit += int(contra[mask].sum())
        total += int(mask.sum())
    return hit, total


def answer_bearing(rec: InstanceRecord, claims: Sequence[Any]) -> tuple[list[int], list[int]]:
    """Indices of the clean claims that state the correct answer (and not the poison's), and of
    the polluted claims that state the poison's answer (and not the correct one)."""
    gold, poison = [], []
    for i, c in enumerate(claims):
        right = contains_answer(c.text, rec.correct)
        wrong = contains_answer(c.text, rec.incorrect, rec.correct)
        if not rec.polluted[i] and right and not wrong:
            gold.append(i)
        elif rec.polluted[i] and wrong and not right:
            poison.append(i)
    return gold, poison


def _answer_pairs(
    records: list[InstanceRecord], system: str
) -> tuple[int, int, int, int, int | None]:
    """Answer-bearing gold-vs-poison claim pairs of PoisonedRAG gold + 5: a clean claim that
    states the correct answer (and not the poison's) against a poison claim that states the
    poison's answer (and not the correct one), in different passages. Returns (pairs, pairs
    NLI scored, pairs called contradiction, pairs under τ, pairs the answer-slot rule calls at
    the verdict's ``answer_conflict`` share, or ``None`` when the rule is off): a pair never sent
    to NLI is a conflict missed by the model, either because the two claims are no candidate
    pair (token containment under the verdict's τ: :func:`mirage_core.pairs.candidate_pairs`)
    or because the pair budget cut it. The rule is asked of every pair, whether or not both
    claims reached S* (the engine asks it of S* only)."""
    total = scored = hit = under_tau = 0
    rule: int | None = None
    for rec in records:
        v = rec.verdicts.get(system)
        if v is None or not rec.correct or not rec.incorrect:
            continue
        share = v.thresholds.get("answer_conflict")
        gold, poison = answer_bearing(rec, v.claims)
        if not gold or not poison:
            continue
        g = v.graph
        n_dir = len(g) // 2
        called: dict[tuple[int, int], bool] = {}
        for k in range(n_dir):
            a, b = int(g.premise[k]), int(g.hypothesis[k])
            called[(min(a, b), max(a, b))] = bool(g.w_contr[k] > 0 or g.w_contr[k + n_dir] > 0)
        tau = float(v.thresholds.get("tau", 0.0))
        for x in gold:
            for y in poison:
                key = (min(x, y), max(x, y))
                total += 1
                if share is not None:
                    pair = (v.claims[x], v.claims[y])
                    names = v.thresholds.get("answer_names", "word")
                    found = answer_conflicts(rec.query, pair, [0, 1], share, names=names)
                    rule = (rule or 0) + bool(found)
                if key in called:
                    scored += 1
                    hit += called[key]
                    continue
                # the engine's own prefilter, not a copy of its formula
                if not len(candidate_pairs((v.claims[x], v.claims[y]), tau)):
                    under_tau += 1
    return total, scored, hit, under_tau, rule


def measure(records: list[InstanceRecord], system: str, regime: str, metric: str) -> float | None:
    subset = [r for r in records if r.regime == regime and system in r.routes]
    if not subset:
        return None
    if metric == "coordination_flagged":  # the coordination signals flagged some passages
        verdicts = [r.verdicts.get(system) for r in subset]
        if any(v is None for v in verdicts):  # a baseline without mirage verdicts
            return None
        return sum(bool(v.extras.get("coordination_signals")) for v in verdicts) / len(verdicts)
    m = _metrics(subset, system, qa=bool(subset[0].correct or subset[0].incorrect))
    if metric == "blocked":
        return None if m["pass_rate"] is None else 1.0 - m["pass_rate"]
    return m.get(metric)


def add_dataset_args(p: argparse.ArgumentParser) -> None:
    """The scoreboard's inputs (shared with the benchmarks that report on the scoreboard)."""
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gpe-n", type=int, default=200, help="gpe-eval claims at k = 5 (200)")
    p.add_argument("--gpe-n-large-k", type=int, default=100, help="gpe-eval claims at k > 5 (100)")
    p.add_argument("--prag-n", type=int, default=100, help="PoisonedRAG questions per set (100)")
    p.add_argument("--ks", default="5,10", help="gpe-eval k values (5,10)")
    p.add_argument("--only", default=None, help="comma list of datasets to run (debugging)")
    p.add_argument(
        "--adaptive",
        default="",
        help="adaptive PoisonedRAG poisons to add, e.g. paraphrase,synonym,dispersed",
    )
    p.add_argument("--adaptive-n", type=int, default=50, help="questions per adaptive set (50)")
    p.add_argument("--model", default=None, help="NLI model folder (default: the packaged one)")
    p.add_argument("--store", default="benchmarks/.cache/pairs.sqlite")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--batch-size", type=int, default=16)


def dataset_loaders(
    args: argparse.Namespace, shortqa: bool = False
) -> dict[str, Callable[[], Dataset]]:
    """Name → loader of every dataset the arguments ask for; ``shortqa`` adds the shortqa set
    (the scoreboard's; the benchmarks that fit or study signals leave it out, so nothing is
    fitted to it)."""
    loaders: dict[str, Callable[[], Dataset]] = {}
    for k in (int(x) for x in args.ks.split(",") if x):
        n = args.gpe_n if k <= 5 else args.gpe_n_large_k
        loaders[f"gpe-k{k}"] = lambda k=k, n=n: gpe(k, n, args.seed)
    for k in (int(x) for x in args.ks.split(",") if x):
        n = args.gpe_n if k <= 5 else args.gpe_n_large_k
        loaders[f"gpe-snip-k{k}"] = lambda k=k, n=n: gpe_snippets(k, n, args.seed)
    for name in ("poisonedrag-nq", "poisonedrag-hotpotqa"):
        loaders[name] = lambda name=name: load_dataset(name, limit=args.prag_n, seed=args.seed)
        for kind in (k for k in args.adaptive.split(",") if k):
            loaders[f"{name}:{kind}"] = lambda n=f"{name}:{kind}": load_dataset(
                n, limit=args.adaptive_n, seed=args.seed, pinned=PINNED_QUESTIONS
            )
    if shortqa:
        loaders["shortqa"] = lambda: load_shortqa(seed=args.seed)
        for planted, name in FEW_NAMES.items():
            loaders[name] = lambda p=planted: load_shortqa_few(planted=p, seed=args.seed)
    if args.only:
        wanted = set(args.only.split(","))
        loaders = {k: v for k, v in loaders.items() if k in wanted}
    return loaders


# -- attack families ------------------------------------------------------------------------------

PRAG_SETS = ("poisonedrag-nq", "poisonedrag-hotpotqa")


def output_paths(prefix: str) -> tuple[Path, Path]:
    """The Markdown and JSON files of the output prefix ``prefix``: its suffix is appended, not
    swapped, so "pairs-relevance-0.25" and "pairs-relevance-0.5" name two runs; a prefix
    already ending in ``.md`` or ``.json`` names the pair of files it belongs to."""
    path = Path(prefix)
    if path.suffix in (".md", ".json"):
        path = path.with_suffix("")
    return Path(f"{path}.md"), Path(f"{path}.json")


def family_dataset(base: str, family: str) -> str:
    """The dataset name of one attack family of a PoisonedRAG set (``gpt4``: the set itself)."""
    return base if family == "gpt4" else f"{base}:{family}"


def selected_families(spec: str) -> list[str]:
    if spec.strip().lower() in ("", "none"):
        return []
    if spec.strip().lower() == "all":
        return list(fam.FAMILIES)
    wanted = [f.strip() for f in spec.split(",") if f.strip()]
    unknown = [f for f in wanted if f not in fam.FAMILIES]
    if unknown:
        raise SystemExit(
            f"unknown attack families {unknown}; expected some of {list(fam.FAMILIES)}"
        )
    return [f for f in fam.FAMILIES if f in wanted]


def family_loaders(
    args: argparse.Namespace, have: dict[str, Callable[[], Dataset]]
) -> dict[str, Callable[[], Dataset]]:
    """Loaders of the attack-family datasets not already in ``have`` (the GPT-4 set and any
    ``--adaptive`` set are run once and reused). With ``--only``, a family runs when its
    dataset name or its base set is listed."""
    wanted = set(args.only.split(",")) if args.only else None
    out: dict[str, Callable[[], Dataset]] = {}
    for base in PRAG_SETS:
        for f in selected_families(args.families):
            name = family_dataset(base, f)
            if name in have or (wanted is not None and not ({name, base} & wanted)):
                continue
            n = args.prag_n if f == "gpt4" else min(args.family_n, args.prag_n)
            pinned = None if f == "gpt4" else PINNED_QUESTIONS
            out[name] = lambda name=name, n=n, pinned=pinned: load_dataset(
                name, limit=n, seed=args.seed, pinned=pinned
            )
    return out


def _pass_correct(records: list[InstanceRecord], system: str) -> float | None:
    routes = [r.routes[system] for r in records if system in r.routes]
    if not routes:
        return None
    return sum(x.passed and bool(x.correct) for x in routes) / len(routes)


def family_figures(recs: list[InstanceRecord], system: str, family: str) -> dict[str, Any]:
    """One family's measures on ``recs`` (one split): blocked (FULL), wrong answer delivered and
    correct answer only (MIXED; wrong only where the family plants an answer), passes with the
    correct answer (GARAG, whose evidence is the gold and its typo'd copies)."""
    mixed = [r for r in recs if r.regime == "mixed"]
    out: dict[str, Any] = {m: None for m in fam.MEASURES}
    out["n"] = len({r.qid for r in recs})
    if family == "garag":
        out["pass_correct"] = _pass_correct(mixed, system)
        return out
    out["blocked"] = measure(recs, system, "full", "blocked")
    if any(r.incorrect for r in mixed):
        out["wrong"] = measure(recs, system, "mixed", "incorrect_in_evidence")
    out["correct_only"] = measure(recs, system, "mixed", "correct_only")
    return out


def family_records(
    records: dict[str, list[InstanceRecord]],
    systems: Sequence[str],
    families: Sequence[str],
    seed: int,
) -> list[dict[str, Any]]:
    """One record per system × split × set (``nq``, ``hotpotqa``, ``both`` pooled) × family."""
    out: list[dict[str, Any]] = []
    for s in (x for x in systems if x != "vanilla_rag"):
        for sp in ("fit", "report"):
            for f in families:
                pooled: list[InstanceRecord] = []
                for base in PRAG_SETS:
                    name = family_dataset(base, f)
                    if name not in records:
                        continue
                    part = [r for r in records[name] if split_of(name, r.qid, seed) == sp]
                    pooled += part
                    set_name = base.removeprefix("poisonedrag-")
                    out.append(
                        {
                            "system": s,
                            "split": sp,
                            "set": set_name,
                            "family": f,
                            "dataset": name,
                            **family_figures(part, s, f),
                        }
                    )
                if pooled:
                    out.append(
                        {
                            "system": s,
                            "split": sp,
                            "set": "both",
                            "family": f,
                            "dataset": None,
                            **family_figures(pooled, s, f),
                        }
                    )
    return out


def family_tables(rows: list[dict[str, Any]], systems: Sequence[str]) -> list[str]:
    """Per system and split: rows = set × measure, columns = families, then mean and worst."""
    names = {"mirage": "default", "mirage_paper": "paper()", "ragdefender": "RAGDefender"}
    lines: list[str] = []
    fams = [f for f in fam.FAMILIES if any(r["family"] == f for r in rows)]
    if not fams:
        return lines
    for s in (x for x in systems if x != "vanilla_rag"):
        for sp in ("fit", "report"):
            body: list[str] = []
            for set_name in ("nq", "hotpotqa"):
                by = {
                    r["family"]: r
                    for r in rows
                    if r["system"] == s and r["split"] == sp and r["set"] == set_name
                }
                if not by:
                    continue
                for m in fam.MEASURES:
                    vals = {f: by[f].get(m) for f in fams if f in by}
                    got = [(v, f) for f, v in vals.items() if v is not None]
                    if not got:
                        continue
                    worst = max(got) if m in fam.HIGHER_IS_WORSE else min(got)
                    mean = sum(v for v, _ in got) / len(got)
                    body.append(
                        f"| {set_name} {fam.MEASURE_NAMES[m]} | "
                        + " | ".join(_pc(vals.get(f)) for f in fams)
                        + f" | {_pc(mean)} | {_pc(worst[0])} ({worst[1]}) |"
                    )
            if body:
                lines += [
                    "",
                    f"attack families, {names.get(s, s)}, {sp} split",
                    "",
                    "| measure | " + " | ".join(fams) + " | mean | worst |",
                    "|" + "---|" * (3 + len(fams)),
                    *body,
                ]
    return lines


# -- long form ------------------------------------------------------------------------------------

BIOGEN_DEFAULT = "../shared/data/biogen-dev/biogen-dev.jsonl"
LONGFORM_KS = (10, 20)


def biogen(path: Path, k: int, n: int | None, seed: int) -> Dataset:
    """biogen-dev at ``k`` pages (the first ``k`` in rank order), polluted by the protocol."""
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    for r in rows:
        r["passages"] = list(r.get("passages") or [])[:k]
    return load_rows(rows, name=f"biogen-k{k}", limit=n, seed=seed, file=str(path))


def gpe_longform(n: int, seed: int) -> Dataset:
    """gpe-eval's benign evidence (the gpe loader's CLEAN sets at k = 5, the same claims as
    ``gpe-k5``), as long-form evidence polluted by the protocol."""
    ds = load_gpe(k=5, attacks=(), seed=seed, limit=n)
    rows = [{"id": i.qid, "query": i.query, "passages": i.passages} for i in ds.instances]
    return load_rows(rows, name="gpe-longform", seed=seed)


def longform_loaders(args: argparse.Namespace) -> dict[str, Callable[[], Dataset]]:
    if args.no_longform:
        return {}
    out: dict[str, Callable[[], Dataset]] = {}
    path = Path(args.biogen)
    if not path.is_absolute():
        path = Path(__file__).resolve().parents[1] / path
    if path.is_file():
        for k in LONGFORM_KS:
            out[f"biogen-k{k}"] = lambda k=k: biogen(path, k, args.biogen_n, args.seed)
    else:
        print(f"long form: {path} not found, biogen rows skipped (--biogen PATH)", file=sys.stderr)
    out["gpe-longform"] = lambda: gpe_longform(args.longform_gpe_n, args.seed)
    if args.only:
        wanted = set(args.only.split(","))
        out = {k: v for k, v in out.items() if k in wanted}
    return out


POLLUTION_FAMILIES = ("unambiguous", "conflicting", "misleading", "fabricated")


def longform_figures(recs: list[InstanceRecord], system: str) -> dict[str, Any]:
    """The long-form measures of one system on ``recs`` (one dataset, one split)."""

    def sub(regime: str, family: str | None = None) -> list[InstanceRecord]:
        return [
            r
            for r in recs
            if r.regime == regime and (family is None or r.family == family) and system in r.routes
        ]

    out: dict[str, Any] = {}
    clean = sub("clean")
    out["clean pass"] = measure(recs, system, "clean", "pass_rate")
    for regime in ("mixed", "full"):
        for f in POLLUTION_FAMILIES:
            part = sub(regime, f)
            out[f"{regime.upper()} contamination {f}"] = (
                _metrics(part, system, qa=False)["contamination"] if part else None
            )
    out["MIXED pass"] = measure(recs, system, "mixed", "pass_rate")
    out["FULL pass"] = measure(recs, system, "full", "pass_rate")
    passing = [r for r in clean if r.routes[system].passed]
    out["claims delivered per passing clean query"] = (
        sum(len(r.routes[system].delivered) for r in passing) / len(passing) if passing else None
    )
    out["claims per passing clean query"] = (
        sum(r.n_claims for r in passing) / len(passing) if passing else None
    )
    out["corroborated-claim retention"] = measure(recs, system, "clean", "retention")
    lat = [
        r.routes[system].latency_s
        for r in recs
        if system in r.routes and r.routes[system].latency_s is not None
    ]
    out["latency p50 (s)"] = float(np.percentile(lat, 50)) if lat else None
    return out


def worst_contamination(long_rows: list[dict[str, Any]], regime: str) -> list[dict[str, Any]]:
    """Per dataset, system and split: the highest ``regime`` contamination over the pollution
    families (a rule's ceiling reads it)."""
    worst: dict[tuple[str, str, str], float] = {}
    for r in long_rows:
        if r["measure"].startswith(f"{regime} contamination ") and r["value"] is not None:
            key = (r["dataset"], r["system"], r["split"])
            worst[key] = max(worst.get(key, 0.0), r["value"])
    return [
        {
            "system": system,
            "split": split,
            "measure": f"{ds} {regime} contamination, worst family",
            "value": value,
        }
        for (ds, system, split), value in worst.items()
    ]


LONGFORM_GOALS = {
    "clean pass": "≥ 90%",
    "MIXED pass": "≥ 80%",
    "claims delivered per passing clean query": "≥ 25% of the claims",
}


def longform_tables(
    records: dict[str, list[InstanceRecord]], systems: Sequence[str], seed: int
) -> tuple[list[str], list[dict[str, Any]]]:
    names = {"mirage": "default", "mirage_paper": "paper()", "ragdefender": "RAGDefender"}
    cols = [(s, sp) for s in systems if s != "vanilla_rag" for sp in ("fit", "report")]
    lines: list[str] = []
    rows: list[dict[str, Any]] = []
    for ds, recs in records.items():
        figs = {
            (s, sp): longform_figures([r for r in recs if split_of(ds, r.qid, seed) == sp], s)
            for s, sp in cols
        }
        lines += [
            "",
            f"long form: {ds}",
            "",
            "| measure | goal | " + " | ".join(f"{names.get(s, s)} {sp}" for s, sp in cols) + " |",
            "|" + "---|" * (2 + len(cols)),
        ]
        for m in figs[cols[0]]:
            if m == "claims per passing clean query":
                continue
            goal = LONGFORM_GOALS.get(
                m,
                "≤ 1%"
                if m.startswith("MIXED contamination")
                else "≤ 2% or fallback"
                if m.startswith("FULL contamination")
                else "—",
            )
            cells = []
            for c in cols:
                v = figs[c][m]
                if m == "claims delivered per passing clean query":
                    tot = figs[c]["claims per passing clean query"]
                    cells.append("—" if v is None else f"{v:.1f} of {tot:.1f}")
                elif m.startswith("latency"):
                    cells.append("—" if v is None else f"{v:.2f}")
                else:
                    cells.append(_pc(v))
                rows.append(
                    {"dataset": ds, "measure": m, "system": c[0], "split": c[1], "value": v}
                )
            lines.append(f"| {m} | {goal} | " + " | ".join(cells) + " |")
    return lines, rows


def run_all(
    loaders: dict[str, Callable[[], Dataset]],
    nli: Any,
    config: MirageConfig,
    systems: Sequence[str],
    embedder: Any,
    batch_size: int,
    seed: int,
    skip: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[InstanceRecord]]:
    """Run ``systems`` on every dataset (but those ``skip`` names for it); registers each
    dataset's fit/report split."""
    records: dict[str, list[InstanceRecord]] = {}
    skip = skip or {}
    for name, load in loaders.items():
        ds = load()
        if name.startswith("poisonedrag"):  # a single gold passage is not part of the scoreboard
            ds.instances = [i for i in ds.instances if i.regime != "clean"]
        t = time.perf_counter()
        res = run_benchmark(
            ds,
            nli,
            config=config,
            systems=[s for s in systems if s not in skip.get(name, ())],
            batch_size=batch_size,
            cold_cache=False,
            embedder=embedder,
        )
        records[name] = res.records
        fit_ids, _ = dataset_split(ds, 0.5, seed)
        _SPLITS[(name, seed)] = set(fit_ids)
        print(
            f"{name}: {len(ds.instances)} inputs, {time.perf_counter() - t:.0f} s "
            f"(pair store: {nli.hits} hits, {nli.seeded} seeded, "
            f"{nli.misses} scored so far)",
            file=sys.stderr,
            flush=True,
        )
    return records


def _pc(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def score_rows(
    records: dict[str, list[InstanceRecord]], systems: Sequence[str], seed: int
) -> tuple[list[str], list[dict[str, Any]]]:
    """The scoreboard table of ``systems`` (markdown lines, and one dict per row)."""
    splits = ("fit", "report")
    cols = [(s, sp) for s in systems if s != "vanilla_rag" for sp in splits]
    names = {"mirage": "default", "mirage_paper": "paper()", "ragdefender": "RAGDefender"}
    header = "| measure | goal | " + " | ".join(f"{names[s]} {sp}" for s, sp in cols) + " |"
    lines = [header, "|" + "---|" * (2 + len(cols))]
    table: list[dict[str, Any]] = []
    met = {c: [0, 0] for c in cols}
    for label, ds, regime, metric, goal, ok in goals(list(records)):
        recs = records[ds]
        row: dict[str, Any] = {"measure": label, "goal": goal}
        cells = []
        for s, sp in cols:
            part = [r for r in recs if split_of(ds, r.qid, seed) == sp]
            value = measure(part, s, regime, metric)
            row[f"{s}:{sp}"] = value
            mark = ""
            if goal != "—" and value is not None:
                met[(s, sp)][1] += 1
                if ok(value):
                    met[(s, sp)][0] += 1
                    mark = " ✓"
            cells.append(_pc(value) + mark)
        table.append(row)
        lines.append(f"| {label} | {goal} | " + " | ".join(cells) + " |")
    # conflict detection on real cross-source pairs (model + engine): gold-vs-poison pairs called
    # contradiction vs clean-vs-clean pairs called contradiction
    for label, kind, dss, goal in (
        ("clean-vs-clean pairs called contradiction (gpe CLEAN)", "clean", "gpe", "≤ 5%"),
        (
            "gold-vs-poison relevant pairs called contradiction (PoisonedRAG gold+5)",
            "gold_poison",
            "poisonedrag",
            "≥ 90%",
        ),
    ):
        cells = []
        row = {"measure": label, "goal": goal}
        for s, sp in cols:
            if s == "ragdefender":
                cells.append("—")
                continue
            hit = total = 0
            for ds, recs in records.items():
                if not ds.startswith(dss) or ":" in ds or ds.startswith("gpe-snip"):
                    continue
                regime = "clean" if kind == "clean" else "mixed"
                part = [r for r in recs if r.regime == regime and split_of(ds, r.qid, seed) == sp]
                h, t = _pair_conflicts(part, s, kind)
                hit += h
                total += t
            value = hit / total if total else None
            row[f"{s}:{sp}"] = value
            row[f"{s}:{sp}:pairs"] = total
            cells.append(f"{_pc(value)} of {total}")
        table.append(row)
        lines.append(f"| {label} | {goal} | " + " | ".join(cells) + " |")
    # The same question asked of the pairs that carry the two answers (diagnostic, no goal):
    # how many reach NLI at all (τ, pair budget), and how many are called contradiction.
    cells = []
    row = {"measure": "answer-bearing gold-vs-poison claim pairs called contradiction", "goal": "—"}
    for s, sp in cols:
        if s == "ragdefender":
            cells.append("—")
            continue
        total = scored = hit = under = 0
        rule: int | None = None
        for ds, recs in records.items():
            if not ds.startswith("poisonedrag") or ":" in ds:
                continue
            part = [r for r in recs if r.regime == "mixed" and split_of(ds, r.qid, seed) == sp]
            t, sc, h, u, ru = _answer_pairs(part, s)
            total, scored, hit, under = total + t, scored + sc, hit + h, under + u
            if ru is not None:
                rule = (rule or 0) + ru
        row[f"{s}:{sp}"] = hit / total if total else None
        row[f"{s}:{sp}:pairs"] = total
        row[f"{s}:{sp}:scored"] = scored
        row[f"{s}:{sp}:under_tau"] = under
        row[f"{s}:{sp}:answer_rule"] = rule
        cells.append(
            f"{_pc(hit / total if total else None)} of {total} "
            f"({scored} NLI-scored, {under} under τ"
            + ("" if rule is None else f"; answer-slot rule: {rule}")
            + ")"
        )
    table.append(row)
    lines.append(f"| {row['measure']} (PoisonedRAG gold+5) | — | " + " | ".join(cells) + " |")
    lines.append(
        "| goals met | | " + " | ".join(f"{met[c][0]} of {met[c][1]}" for c in cols) + " |"
    )
    return lines, table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="benchmarks/results/scoreboard", help="output prefix")
    p.add_argument("--config", default=None, help="JSON MirageConfig for the 'mirage' column")
    p.add_argument("--ragdefender", action="store_true", help="add the RAGDefender baseline")
    p.add_argument(
        "--no-paper",
        action="store_true",
        help="leave out the paper() column (a candidate sweep; the committed board has it)",
    )
    p.add_argument(
        "--no-shortqa",
        action="store_true",
        help="leave out shortqa (honest multi-source evidence for short questions)",
    )
    p.add_argument(
        "--families",
        default="all",
        help="attack families of the family table: all (default), none, or a comma list of "
        + ",".join(fam.FAMILIES),
    )
    p.add_argument("--family-n", type=int, default=50, help="questions per attack family (50)")
    p.add_argument(
        "--biogen",
        default=BIOGEN_DEFAULT,
        help=f"biogen-dev JSONL of the long-form section ({BIOGEN_DEFAULT}, from the repo root)",
    )
    p.add_argument("--biogen-n", type=int, default=None, help="biogen questions (all 25)")
    p.add_argument("--longform-gpe-n", type=int, default=50, help="gpe-eval long-form claims (50)")
    p.add_argument("--no-longform", action="store_true", help="leave out the long-form section")
    p.add_argument(
        "--paper-longform",
        default=",".join(["gpe-longform", *(f"biogen-k{k}" for k in LONGFORM_KS)]),
        help="long-form datasets paper() runs on (all of them): paper() has no pair budget, so "
        "it scores every cross-source pair over the overlap threshold, ~240 / ~900 pairs per "
        "biogen query at k = 10 / 20 against the default's ~120 / ~270",
    )
    p.add_argument(
        "--embedder-max-length",
        type=int,
        default=None,
        help="tokens all-MiniLM-L6-v2 reads of a text (default: the embedder's own default)",
    )
    add_dataset_args(p)
    args = p.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    # all-MiniLM-L6-v2 (coordination signals, RAGDefender) is stored like the pairs
    nli, embedder = stored_models(args.store, args.model, args.threads, args.embedder_max_length)
    config = MirageConfig.from_file(args.config) if args.config else MirageConfig()
    systems = (
        ["mirage"]
        + ([] if args.no_paper else ["mirage_paper"])
        + ["vanilla_rag"]
        + (["ragdefender"] if args.ragdefender else [])
    )

    loaders = dataset_loaders(args, shortqa=not args.no_shortqa)
    extra = family_loaders(args, loaders)
    long_loaders = longform_loaders(args)
    t0 = time.perf_counter()
    everything = run_all(
        {**loaders, **extra, **long_loaders},
        nli,
        config,
        systems,
        embedder,
        args.batch_size,
        args.seed,
        skip={k: ["mirage_paper"] for k in long_loaders if k not in args.paper_longform.split(",")},
    )
    records = {k: everything[k] for k in loaders}
    long_records = {k: everything[k] for k in long_loaders}

    splits = ("fit", "report")
    lines, table = score_rows(records, systems, args.seed)
    families = selected_families(args.families)
    fam_rows = family_records(everything, systems, families, args.seed)
    fam_lines = family_tables(fam_rows, systems)
    long_lines, long_rows = longform_tables(long_records, systems, args.seed)
    clean = (
        [
            {"system": s, "split": sp, "measure": row["measure"], "value": row.get(f"{s}:{sp}")}
            for row in table
            if row["measure"] in ("gpe-k5 CLEAN pass", "shortqa CLEAN pass")
            for s in systems
            if s != "vanilla_rag"
            for sp in splits
        ]
        + [
            {
                "system": r["system"],
                "split": r["split"],
                "measure": f"{r['dataset']} {r['measure']}",
                "value": r["value"],
            }
            for r in long_rows
            if r["measure"] == "clean pass"
        ]
        + worst_contamination(long_rows, "MIXED")
    )
    lofo_lines: list[str] = []
    if fam_rows:
        cands = fam.candidates_from_scoreboard({"families": fam_rows, "clean": clean})
        lofo_lines = [
            "",
            "leave-one-family-out (benchmarks/families.py), configurations of this run",
            "",
            *fam.report(cands),
        ]
    wall = time.perf_counter() - t0
    n_q = {
        name: {
            sp: len({r.qid for r in recs if split_of(name, r.qid, args.seed) == sp})
            for sp in splits
        }
        for name, recs in everything.items()
    }
    text = "\n".join(lines + fam_lines + lofo_lines + long_lines)
    print(text)
    print()
    print(
        "queries per split: " + "; ".join(f"{k} {v['fit']}/{v['report']}" for k, v in n_q.items())
    )
    print(f"NLI pairs: {nli.misses} scored, {nli.hits} read from the pair store; {wall:.0f} s")
    md_path, json_path = output_paths(args.out)
    md_path.parent.mkdir(parents=True, exist_ok=True)
    md_path.write_text(
        "# mirage scoreboard\n\n"
        f"`python -m benchmarks.scoreboard {' '.join(argv if argv is not None else sys.argv[1:])}`\n\n"
        f"default = `MirageConfig()`{' from ' + args.config if args.config else ''}; "
        "paper() = `MirageConfig.paper()`; model: "
        f"{nli.inner.name} (digest {nli.digest}); seed {args.seed}; "
        "fit/report = seeded 50/50 split of each dataset's queries.\n\n"
        + text
        + "\n\nqueries per split (fit/report): "
        + "; ".join(f"{k} {v['fit']}/{v['report']}" for k, v in n_q.items())
        + "\n"
    )
    json_path.write_text(
        json.dumps(
            {
                "config": config.to_dict(),
                "systems": systems,
                "seed": args.seed,
                "model_digest": nli.digest,
                "embedder_max_length": embedder.inner.max_length,
                "queries": n_q,
                "rows": table,
                "families": fam_rows,
                "clean": clean,
                "longform": long_rows,
                "pairs_scored": nli.misses,
                "pairs_from_store": nli.hits,
                "pairs_from_seed": nli.seeded,
                "wall_s": round(wall, 1),
            },
            indent=1,
            default=str,
        )
        + "\n"
    )
    print(f"wrote {md_path} and {json_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
