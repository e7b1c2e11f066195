"""shortqa: honest multi-source evidence and planted poisons for short questions.

The scoreboard's other honest evidence is gpe-eval's: web pages about long fact-checking claims
(14 content words at the median). PoisonedRAG's questions are short (4–5 content words for NQ)
and have one gold passage, so the scoreboard had no honest *multi-source* evidence for short
questions, and a coordination signal that flags "passages that restate the question and
assert one answer" could look perfect on it while flagging every honest FAQ page (as
the restatement signal's share form did). shortqa fills that gap.

``benchmarks/data/shortqa.jsonl`` holds 59 questions (39 Natural-Questions-style search
queries, 20 HotpotQA-style bridge questions; general knowledge across four topic areas), each
with five honest passages written as five independent sites would publish them
(encyclopedia, news, explainer, blog, FAQ; each in its own words, each with its own details)
and five planted passages pushing one incorrect answer, PoisonedRAG-style. The text was
written for this project by LLM agents on 2026-12-02 from a fixed specification
(``benchmarks/data/README.md``), before any defense ran on it; nothing mirage ships is fitted
to it (the fitting scripts read only its fit half, and only with ``--shortqa``). Every passage
is its own publisher (its URL's host).

Regimes (``Dataset`` instances, as :func:`mirage_core.evaluation.poisonedrag.load_poisonedrag`
builds them):

- ``clean``: the five honest passages (k = 5, seeded order);
- ``full``: the five poisons alone (k = 5);
- ``mixed``: honest and poisons together (k = 10, seeded order).

:func:`load_shortqa_few` builds ``shortqa-one`` and ``shortqa-two``: the five honest passages
and one or two of the poisons (seeded pick and order, k = 6 / 7), a planted page or two among
honest ones. One page coordinates with nothing; two are too few for the coordination signals
and already corroborate each other's answer.
"""

from __future__ import annotations

import json
from pathlib import Path

from mirage_core.evaluation.instances import CLEAN_FAMILY, Dataset, Instance, subsample
from mirage_core.pollution.families import EvidenceItem, PollutedPassage, Regime, rng_for
from mirage_core.types import Passage

DATA = Path(__file__).resolve().parent / "data" / "shortqa.jsonl"


def load_shortqa(
    path: str | Path = DATA, *, limit: int | None = None, seed: int | str = 0
) -> Dataset:
    """The shortqa set (see the module doc), ``limit`` questions (seeded), every regime."""
    rows, chosen = _read(path, limit, seed)
    instances: list[Instance] = []
    for idx in chosen:
        qid, query, honest, bad, correct, incorrect = _question(rows[idx])
        rng = rng_for(seed, "shortqa", qid)
        clean = list(honest)
        rng.shuffle(clean)
        mixed: list[EvidenceItem] = [*honest, *bad]
        rng.shuffle(mixed)
        for regime, items, family in (
            (Regime.CLEAN.value, clean, CLEAN_FAMILY),
            (Regime.FULL.value, list(bad), "coordinated"),
            (Regime.MIXED.value, mixed, "coordinated"),
        ):
            instances.append(Instance(qid, query, regime, family, items, correct, incorrect))
    return Dataset(
        name="shortqa",
        instances=instances,
        description=(
            "shortqa (written for mirage, Apache-2.0): short questions with five honest "
            "passages from five independent publishers and five planted passages pushing one "
            "incorrect answer."
        ),
        regimes={
            "clean": "the five honest passages (k = 5)",
            "mixed": "five honest passages + five poisons (k = 10, seeded order)",
            "full": "the five poisons only (k = 5)",
        },
        families=["coordinated"],
        family_notes={"coordinated": "five planted sources repeating one falsehood"},
        qa=True,
        n_queries=len(chosen),
        n_available=len(rows),
        settings={"limit": limit, "seed": seed, "file": str(path)},
    )


#: The names of the sets with a few planted passages, by their number.
FEW_NAMES = {1: "shortqa-one", 2: "shortqa-two"}
_FEW_WORDS = {1: "one poison", 2: "two poisons"}


def load_shortqa_few(
    path: str | Path = DATA, *, planted: int = 1, limit: int | None = None, seed: int | str = 0
) -> Dataset:
    """``shortqa-one`` / ``shortqa-two``: each question's five honest passages and ``planted``
    of its poisons (a seeded pick), in seeded order (k = 5 + ``planted``); one ``mixed``
    instance per question."""
    if planted not in FEW_NAMES:
        raise ValueError(f"planted must be one of {sorted(FEW_NAMES)}, got {planted!r}")
    name, what = FEW_NAMES[planted], _FEW_WORDS[planted]
    rows, chosen = _read(path, limit, seed)
    instances: list[Instance] = []
    for idx in chosen:
        qid, query, honest, bad, correct, incorrect = _question(rows[idx])
        rng = rng_for(seed, name, qid)
        # one poison is drawn with choice(), as shortqa-one's inputs have been from the start
        picked = [rng.choice(bad)] if planted == 1 else rng.sample(bad, planted)
        items: list[EvidenceItem] = [*honest, *picked]
        rng.shuffle(items)
        instances.append(Instance(qid, query, Regime.MIXED.value, name, items, correct, incorrect))
    return Dataset(
        name=name,
        instances=instances,
        description=(
            f"shortqa with {what}: five honest passages from five independent publishers and "
            f"{what} pushing one incorrect answer."
        ),
        regimes={
            "mixed": f"five honest passages + {what} (k = {5 + planted}, seeded pick and order)"
        },
        families=[name],
        family_notes={name: f"{what} among honest sources"},
        qa=True,
        n_queries=len(chosen),
        n_available=len(rows),
        settings={"limit": limit, "seed": seed, "file": str(path), "planted": planted},
    )


def _read(path: str | Path, limit: int | None, seed: int | str) -> tuple[list[dict], list[int]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return rows, subsample(len(rows), limit, seed)


def _question(
    row: dict,
) -> tuple[str, str, list[Passage], list[PollutedPassage], tuple[str, ...], tuple[str, ...]]:
    """One question's id, text, honest passages, poisons, correct and incorrect answers."""
    honest = [Passage(p["text"], source=p["url"]) for p in row["honest"]]
    bad = [
        PollutedPassage.whole(Passage(p["text"], source=p["url"]), "coordinated")
        for p in row["poisons"]
    ]
    correct = tuple(str(a) for a in row["answer"])
    return (
        str(row["id"]),
        str(row["question"]),
        honest,
        bad,
        correct,
        (str(row["incorrect_answer"]),),
    )
