"""PoisonedRAG benchmark inputs: one gold passage and coordinated poisons per question.

:func:`load_poisonedrag` reads ../shared/data/poisonedrag (NQ, HotpotQA): one gold passage and
five coordinated poisons per question; CLEAN = gold only, FULL = the five poisons, MIXED = gold +
five poisons. These sets carry correct / incorrect answers. The poisons can be rewritten offline
(:mod:`mirage_core.evaluation.adaptive`) or replaced by another attack family's passages for
the same questions (:data:`VARIANTS`, read from ``poisonedrag-variants/``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mirage_core.evaluation.instances import (
    CLEAN_FAMILY,
    Dataset,
    Instance,
    find_data_dir,
    subsample,
)
from mirage_core.jsonl import iter_jsonl
from mirage_core.pollution.families import (
    EvidenceItem,
    PollutedPassage,
    Regime,
    rng_for,
)
from mirage_core.types import Passage

__all__ = [
    "VARIANTS",
    "load_poisonedrag",
]


#: Attack families read from ``poisonedrag-variants/`` (same questions), in report order.
VARIANTS: tuple[str, ...] = ("gemini", "gemini_100", "gemini_100_x", "garag", "blind")

_VARIANT_NOTES = {
    "gemini": " Poisons: five Gemini-written passages pushing the same incorrect answer.",
    "gemini_100": " Poisons: five (seeded) of the first 25 Gemini poisons per question.",
    "gemini_100_x": (
        " Poisons: five (seeded) of 25 Gemini forum/FAQ/review-style poisons pushing another "
        "incorrect answer; the incorrect answers are the first clauses of the row's "
        "'incorrect statements' (preambles and any naming the correct answer or found in the "
        "question dropped), and the poisons that state one of them are chosen first."
    ),
    "garag": (
        " GARAG: the gold passage (a ground truth that states the correct answer) with its "
        "typo-level perturbed copies; MIXED only, no incorrect answer."
    ),
    "blind": (
        " Blind: misleading documents that argue around the answer without planting one; "
        "no incorrect answer."
    ),
}


def _stated_answers(row: Mapping[str, Any], correct: str, question: str) -> tuple[str, ...]:
    """``gemini_100_x``: the incorrect answers a row's ``"incorrect statements"`` name: the first
    clause of each statement, leaving out the generator's preamble ("Here are 10 …:") and any
    clause that names the correct answer or appears in the question."""
    from mirage_core.evaluation.adaptive import _contains

    out: list[str] = []
    for st in row.get("incorrect statements") or []:
        st = " ".join(str(st).split())
        if not st or st.lower().startswith("here are") or st.endswith(":"):
            continue
        first = re.split(r"[,.;:!?(]|\s[—–-]\s", st, maxsplit=1)[0].strip().strip("\"'“”")
        if first and not _contains(first, correct) and not _contains(question, first):
            out.append(first)
    return tuple(dict.fromkeys(out))


def _variant_rows(folder: Path, name: str, family: str) -> list[dict[str, Any]]:
    file = folder / f"{name}_{family}.jsonl"
    if not file.is_file():
        raise FileNotFoundError(f"attack family {family!r}: {file} not found")
    return [row for _, row in iter_jsonl(file)]


def _variant_evidence(
    family: str,
    rows: list[dict[str, Any]],
    q: Mapping[str, Any],
    gold_text: str,
    seed: int | str,
) -> tuple[str, list[str], tuple[str, ...]] | None:
    """(gold text, attack passages, incorrect answers) of one question, or ``None`` to skip."""
    from mirage_core.evaluation.adaptive import _contains

    qid, question, correct = str(q["id"]), str(q["question"]), str(q["correct answer"])
    if family in ("garag", "blind"):
        mine = [
            r
            for r in rows
            if " ".join(str(r.get("query", "")).split()) == " ".join(question.split())
        ]
        if family == "blind":
            docs = [str(r["adversarial_document"]) for r in mine]
            return (gold_text, docs, ()) if docs else None
        by_gold: dict[str, list[str]] = {}
        for r in mine:
            by_gold.setdefault(str(r["ground_truth"]).strip(), []).append(
                str(r["adversarial_document"])
            )
        for gt, copies in by_gold.items():  # file order: the first gold that states the answer
            if _contains(gt, correct):
                return gt, copies, ()
        return None
    row = next((r for r in rows if str(r.get("id")) == qid), None)
    if row is None:
        return None
    adv = [str(t) for t in row.get("adv_texts") or []]
    rng = rng_for(seed, family, qid)
    if family == "gemini":
        return (gold_text, adv, (str(q["incorrect answer"]),)) if adv else None
    if family == "gemini_100":
        return (
            (gold_text, rng.sample(adv, min(5, len(adv))), (str(q["incorrect answer"]),))
            if adv
            else None
        )
    wrong = _stated_answers(row, correct, question)
    stating = [t for t in adv if any(_contains(t, w) for w in wrong)]
    if not stating:
        return None
    chosen = rng.sample(stating, min(5, len(stating)))
    rest = [t for t in adv if t not in stating]
    chosen += rng.sample(rest, min(5 - len(chosen), len(rest)))
    return gold_text, chosen, wrong


def load_poisonedrag(
    name: str,
    root: str | Path | None = None,
    *,
    limit: int | None = None,
    seed: int | str = 0,
    adaptive: str | None = None,
    variants_root: str | Path | None = None,
    pinned: int | None = None,
) -> Dataset:
    """PoisonedRAG ``nq`` or ``hotpotqa``: gold passage and five coordinated poisons per query.

    Every passage is its own publisher (``publisher-<j>.example``, ``j`` shuffled so the
    domain gives nothing away): the attacker is assumed to control five independent sources,
    the hardest case for a consistency defense.

    ``adaptive`` (``"paraphrase"``, ``"synonym"`` or ``"dispersed"``; also written
    ``name="nq:dispersed"``) rewrites the five poisons offline and seeded, keeping the incorrect
    answer and never adding the correct one (:mod:`mirage_core.evaluation.adaptive`); the
    generated attack families (``token_soup``, ``question_appended``, ``question_prepended``,
    ``hedging``, ``several_answers``, ``padded``) are written the same way.

    An attack family of :data:`VARIANTS` (``name="nq:gemini"``) replaces the poisons by that
    family's passages for the same questions, read from ``poisonedrag-variants/`` (beside
    ``poisonedrag/``, or ``variants_root``): ``gemini``, ``gemini_100`` and ``gemini_100_x``
    (five seeded of 25) against the gold passage; ``garag`` (the gold with its typo'd copies,
    MIXED only) and ``blind`` (misleading passages without a planted answer), whose instances
    carry no incorrect answer. Questions a family has no evidence for are skipped
    (``settings["skipped"]``). Instances of a generated or variant family carry its name as
    their pollution family.

    ``pinned`` keeps the questions of ``limit=pinned`` when ``limit`` is larger
    (:func:`subsample`); their ids are ``settings["pinned_qids"]``, which
    :func:`~mirage_core.evaluation.splits.dataset_split` splits as it split them alone.
    """
    name = name.lower().removeprefix("poisonedrag-")
    if ":" in name:
        name, _, suffix = name.partition(":")
        if adaptive is not None and adaptive != suffix:
            raise ValueError(f"adaptive={adaptive!r} conflicts with the name suffix {suffix!r}")
        adaptive = suffix or None
    from mirage_core.evaluation.adaptive import ADAPTIVE, KINDS, adapt_poisons

    if adaptive is not None and adaptive not in KINDS + VARIANTS:
        raise ValueError(
            f"unknown adaptive poison {adaptive!r}; expected one of {list(KINDS + VARIANTS)}"
        )
    if name not in ("nq", "hotpotqa"):
        raise ValueError(f"poisonedrag set must be 'nq' or 'hotpotqa', got {name!r}")
    folder = Path(root) if root is not None else find_data_dir() / "poisonedrag"  # type: ignore[operator]
    if not (folder / f"{name}_queries.json").is_file() and (folder / "poisonedrag").is_dir():
        folder = folder / "poisonedrag"
    queries = json.loads((folder / f"{name}_queries.json").read_text(encoding="utf-8"))
    golden = (folder / f"{name}_golden.txt").read_text(encoding="utf-8").split("\n")
    adv = json.loads((folder / f"{name}_adv.json").read_text(encoding="utf-8"))
    chosen = subsample(len(queries), limit, seed, pinned)
    pinned_qids = (
        [str(queries[i]["id"]) for i in subsample(len(queries), pinned, seed)]
        if pinned is not None and len(chosen) > pinned
        else None
    )
    instances: list[Instance] = []
    variant_rows: list[dict[str, Any]] = []
    if adaptive in VARIANTS:
        vfolder = (
            Path(variants_root)
            if variants_root is not None
            else folder.parent / "poisonedrag-variants"
        )
        variant_rows = _variant_rows(vfolder, name, adaptive)
    label = "coordinated" if adaptive is None or adaptive in ADAPTIVE else adaptive
    skipped = 0
    for idx in chosen:
        q = queries[idx]
        qid = str(q["id"])
        gold_text = golden[idx].strip()
        poisons = list(adv.get(qid, {}).get("adv_texts") or [])
        correct: tuple[str, ...] = (str(q["correct answer"]),)
        incorrect: tuple[str, ...] = (str(q["incorrect answer"]),)
        if adaptive in VARIANTS:
            got = _variant_evidence(adaptive, variant_rows, q, gold_text, seed)
            if got is None:
                skipped += 1
                continue
            gold_text, poisons, incorrect = got
        elif adaptive is not None:
            decoys: tuple[str, ...] = ()
            if adaptive == "several_answers":  # other questions' false answers, seeded
                others = [str(x["incorrect answer"]) for x in queries if str(x["id"]) != qid]
                decoys = tuple(rng_for(seed, "decoys", qid).sample(others, min(6, len(others))))
            poisons = adapt_poisons(
                poisons,
                str(q["question"]),
                str(q["incorrect answer"]),
                correct,
                kind=adaptive,
                seed=seed,
                key=qid,
                decoys=decoys,
            )
        rng = rng_for(seed, "poisonedrag", qid)
        publishers = list(range(len(poisons) + 1))
        rng.shuffle(publishers)

        def passage(text: str, j: int, qid: str = qid) -> Passage:
            return Passage(text, source=f"doc-{qid}-{j}", domain=f"publisher-{j}.example")

        gold = passage(gold_text, publishers[0])
        bad = [
            PollutedPassage.whole(passage(t, publishers[i + 1]), label)
            for i, t in enumerate(poisons)
        ]
        gold_at = rng.randrange(len(bad) + 1)
        regimes: list[tuple[str, list[EvidenceItem]]] = [
            (Regime.CLEAN.value, [gold]),
            (Regime.FULL.value, list(bad)),
            (Regime.MIXED.value, [*bad[:gold_at], gold, *bad[gold_at:]]),
        ]
        if adaptive == "garag":  # typo'd copies of the gold are no lie on their own
            regimes = [r for r in regimes if r[0] != Regime.FULL.value]
        for regime, items in regimes:
            family = CLEAN_FAMILY if regime == Regime.CLEAN.value else label
            instances.append(
                Instance(qid, str(q["question"]), regime, family, items, correct, incorrect)
            )
    adaptive_note = (
        _VARIANT_NOTES.get(str(adaptive))
        or {
            None: "",
            "token_soup": " Poisons as token soup: a lead sentence stating the incorrect answer, then junk tokens and WordPiece fragments.",
            "question_appended": " Poisons with the question glued after them (with or without a space).",
            "question_prepended": " Poisons with the question glued before them (with or without a space).",
            "hedging": " Poisons rewritten as hedges (some sources say the incorrect answer, others disagree).",
            "several_answers": " Poisons rewritten as lists of candidate answers, the incorrect one among them.",
            "padded": " Poisons padded with neutral filler sentences to 160 content tokens.",
            "paraphrase": " Poisons paraphrased (sentence reorder, clause rewrites; rule-based, seeded).",
            "synonym": " Poisons synonym-substituted (built-in table, query words kept; seeded).",
            "dispersed": (
                " Poisons dispersed: the same incorrect answer framed differently in each (news "
                "report, Q&A snippet, encyclopedic line, list entry, quote; rule-based, seeded)."
            ),
        }[adaptive]
    )
    return Dataset(
        name=f"poisonedrag-{name}" + (f":{adaptive}" if adaptive else ""),
        instances=instances,
        description=(
            f"PoisonedRAG {name.upper() if name == 'nq' else 'HotpotQA'} (MIT; PoisonedRAG adversarial "
            "passages, RAGDefender gold passages): one gold passage and five LLM-written passages "
            "that all push the same incorrect answer. Each passage counts as its own publisher."
            + adaptive_note
        ),
        regimes={
            "clean": "the gold passage only (k = 1)",
            "mixed": "gold passage + five poisons (k = 6, gold at a seeded position)",
            "full": "the five poisons only (k = 5)",
        },
        families=[label],
        family_notes={
            label: "five near-duplicate sources repeating one falsehood"
            if label == "coordinated"
            else adaptive_note.strip()
        },
        qa=True,
        n_queries=len(chosen) - skipped,
        n_available=len(queries),
        settings={
            "limit": limit,
            "seed": seed,
            "folder": str(folder),
            "adaptive": adaptive,
            **({"skipped": skipped} if skipped else {}),
            **({"pinned_qids": pinned_qids} if pinned_qids is not None else {}),
        },
    )
