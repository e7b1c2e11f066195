"""Benchmark inputs: every query as CLEAN / MIXED / FULL evidence with known polluted spans.

Loaders (each returns a :class:`Dataset` of :class:`Instance` values):

- :func:`load_gpe` — ``gpe-eval`` (PyPI, MIT): the benign multi-source evidence of each claim
  is CLEAN; each of its four attack types (``fakegpt``, ``poisonedrag``, ``ata``, ``ignore`` —
  the last one is prompt injection) is a pollution family of its own, in MIXED and FULL regimes
  at constant k (attack passages replace benign ones, as gpe's own loader does; ``ata``
  rewrites replace the passage they were written from).
- :func:`load_poisonedrag` — ../shared/data/poisonedrag (NQ, HotpotQA): one gold passage and
  five coordinated poisons per question; CLEAN = gold only, FULL = the five poisons,
  MIXED = gold + five poisons. These sets carry correct / incorrect answers.
- :func:`load_jsonl` — a user's JSONL of queries with passages, polluted by the protocol
  (rule-based polluter, four families × MIXED / FULL), or rows already polluted by
  ``mirage pollute``.

Every loader takes ``limit`` (a seeded subsample of queries) and ``seed``. Data is found under
``$MIRAGE_DATA_DIR`` or ``../shared/data`` next to the repository; gpe's file through the
installed ``gpe`` package (``$MIRAGE_GPE_FILE`` overrides).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import site
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirage_core.jsonl import iter_jsonl
from mirage_core.pollution.families import (
    FAMILIES,
    LABEL_KEY,
    EvidenceItem,
    Family,
    PollutedPassage,
    Regime,
    mixed_count,
    polluted_spans,
    rng_for,
)
from mirage_core.types import Passage, to_passage

__all__ = [
    "GPE_ATTACKS",
    "VARIANTS",
    "Dataset",
    "Instance",
    "find_data_dir",
    "find_gpe_file",
    "load_dataset",
    "load_gpe",
    "load_jsonl",
    "load_poisonedrag",
    "load_rows",
    "subsample",
]

#: gpe-eval attack types, in report order (``ignore`` is prompt injection).
GPE_ATTACKS: tuple[str, ...] = ("fakegpt", "poisonedrag", "ata", "ignore")
CLEAN_FAMILY = "none"


@dataclass
class Instance:
    """One defense input: a query and its evidence in one regime, with the pollution labels.

    ``items`` are clean :class:`~mirage_core.types.Passage` values or
    :class:`~mirage_core.pollution.PollutedPassage` values; the engine only ever sees
    :attr:`passages` (text and provenance, no labels).
    """

    qid: str
    query: str
    regime: str
    family: str
    items: list[EvidenceItem]
    correct: tuple[str, ...] = ()
    incorrect: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def passages(self) -> list[Passage]:
        return [it.to_passage() if isinstance(it, PollutedPassage) else it for it in self.items]

    @property
    def spans(self) -> list[list[tuple[int, int]]]:
        """Polluted character spans per passage (empty list: a clean passage)."""
        return [polluted_spans(it) for it in self.items]

    @property
    def n_polluted(self) -> int:
        return sum(isinstance(it, PollutedPassage) for it in self.items)

    @property
    def key(self) -> str:
        return f"{self.qid}|{self.regime}|{self.family}"


@dataclass
class Dataset:
    """Instances plus what a report needs to say about how they were built."""

    name: str
    instances: list[Instance]
    description: str = ""
    regimes: dict[str, str] = field(default_factory=dict)  # regime -> what it holds here
    families: list[str] = field(default_factory=list)  # pollution labels, in report order
    family_notes: dict[str, str] = field(default_factory=dict)
    qa: bool = False
    n_queries: int = 0
    n_available: int = 0
    settings: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.instances)

    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "regimes": dict(self.regimes),
            "families": list(self.families),
            "family_notes": dict(self.family_notes),
            "qa": self.qa,
            "n_queries": self.n_queries,
            "n_available": self.n_available,
            "n_instances": len(self.instances),
            "settings": dict(self.settings),
        }


# -- discovery -------------------------------------------------------------------------------

_REPO_ROOT = Path(__file__).resolve().parents[2]


def find_data_dir(required: bool = True) -> Path | None:
    """``$MIRAGE_DATA_DIR``, else ``../shared/data`` beside the repository (or the cwd)."""
    env = os.environ.get("MIRAGE_DATA_DIR")
    candidates = [Path(env).expanduser()] if env else []
    candidates += [
        _REPO_ROOT.parent / "shared" / "data",
        Path.cwd().parent / "shared" / "data",
        Path.cwd() / "data",
    ]
    for c in candidates:
        if c.is_dir():
            return c
    if required:
        raise FileNotFoundError(
            "benchmark data not found: set MIRAGE_DATA_DIR to the folder that holds poisonedrag/ "
            f"(looked in {[str(c) for c in candidates]})"
        )
    return None


def find_gpe_file(required: bool = True) -> Path | None:
    """The ``gpe/data/gpe.jsonl`` file of the installed gpe-eval (``$MIRAGE_GPE_FILE`` wins).

    Found without importing ``gpe`` (its declared dependencies need not be installed).
    """
    env = os.environ.get("MIRAGE_GPE_FILE")
    candidates: list[Path] = [Path(env).expanduser()] if env else []
    try:
        spec = importlib.util.find_spec("gpe")
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        for loc in spec.submodule_search_locations or []:
            candidates.append(Path(loc) / "data" / "gpe.jsonl")
    roots = list(sys.path)
    try:
        roots += [*site.getsitepackages(), site.getusersitepackages()]
    except AttributeError:  # some embedded interpreters
        pass
    candidates += [Path(r) / "gpe" / "data" / "gpe.jsonl" for r in roots if r]
    for c in candidates:
        if c.is_file():
            return c
    if required:
        raise FileNotFoundError(
            "gpe-eval data not found: pip install --no-deps gpe-eval (it ships gpe/data/gpe.jsonl) "
            "or set MIRAGE_GPE_FILE"
        )
    return None


def subsample(n: int, limit: int | None, seed: int | str, pinned: int | None = None) -> list[int]:
    """Seeded subsample of ``range(n)`` of size ``limit`` (all when None), in index order.

    Two sizes give unrelated subsamples (``random.sample`` draws differently for large
    ``limit``). With ``pinned``, a larger ``limit`` keeps the subsample of size ``pinned`` and
    adds seeded draws from the rest, so a set grows without its first questions changing."""
    if limit is None or limit >= n:
        return list(range(n))
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    if pinned is not None and 0 < pinned < limit:
        base = subsample(n, pinned, seed)
        rest = sorted(set(range(n)) - set(base))
        rng_for(seed, "subsample-beyond", n, pinned).shuffle(rest)
        return sorted(base + rest[: limit - pinned])
    return sorted(rng_for(seed, "subsample", n).sample(range(n), limit))


def _truncate(sentences: Sequence[str], max_chars: int | None) -> str:
    """Whole sentences up to ``max_chars`` (at least the first one, cut if it alone is longer)."""
    out: list[str] = []
    total = 0
    for s in sentences:
        s = " ".join(str(s).split())
        if not s:
            continue
        if max_chars is not None and out and total + 1 + len(s) > max_chars:
            break
        out.append(s)
        total += len(s) + (1 if len(out) > 1 else 0)
    text = " ".join(out)
    return text if max_chars is None else text[:max_chars]


# -- gpe-eval ----------------------------------------------------------------------------------


def _gpe_text(item: Mapping[str, Any], max_chars: int | None) -> str:
    contents = item.get("contents") or []
    if isinstance(contents, str):
        contents = [contents]
    if len(contents) == 1 and max_chars is not None and len(contents[0]) > max_chars:
        from mirage_core.claims import split_sentences

        text = contents[0]
        contents = [text[s:e] for s, e in split_sentences(text)]
    text = _truncate(contents, max_chars)
    return text or " ".join(str(item.get("summary") or item.get("title") or "").split())


def _gpe_passage(item: Mapping[str, Any], max_chars: int | None) -> Passage:
    url = item.get("url") or item.get("evidence_id") or None
    return Passage(
        _gpe_text(item, max_chars),
        source=str(url) if url else None,
        metadata={"evidence_id": item.get("evidence_id"), "title": item.get("title")},
    )


def load_gpe(
    path: str | Path | None = None,
    *,
    limit: int | None = None,
    seed: int | str = 0,
    k: int = 5,
    attacks: Sequence[str] = GPE_ATTACKS,
    max_chars: int | None = 1200,
    rate: float = 0.5,
) -> Dataset:
    """gpe-eval claims: CLEAN = the first ``k`` benign passages; for each attack type, MIXED
    replaces ``round(k · rate)`` of them (seeded positions) and FULL all ``k``.

    ``max_chars`` keeps whole sentences of each passage up to that length (benign pages run to
    tens of thousands of characters); ``None`` keeps everything.
    """
    file = Path(path) if path is not None else find_gpe_file()
    assert file is not None
    for a in attacks:
        if a not in GPE_ATTACKS:
            raise ValueError(f"unknown gpe attack {a!r}; expected some of {list(GPE_ATTACKS)}")
    with open(file, encoding="utf-8") as fh:
        lines = [ln for ln in fh if ln.strip()]
    chosen = subsample(len(lines), limit, seed)
    instances: list[Instance] = []
    skipped: dict[str, int] = {}
    for idx in chosen:
        rec = json.loads(lines[idx])
        qid = str(rec.get("claim_id") or idx)
        env = rec.get("evidence_environment") or {}
        benign = list(env.get("benign") or [])[:k]
        if len(benign) < k:
            skipped["too few benign passages"] = skipped.get("too few benign passages", 0) + 1
            continue
        clean = [_gpe_passage(b, max_chars) for b in benign]
        meta = {"ground_truth": rec.get("ground_truth"), "category": rec.get("category")}
        query = str(rec.get("original_claim") or "")
        instances.append(
            Instance(qid, query, Regime.CLEAN.value, CLEAN_FAMILY, list(clean), meta=meta)
        )
        poisoned = env.get("poisoned") or {}
        for attack in attacks:
            pool = list(poisoned.get(attack) or [])
            for regime in (Regime.MIXED, Regime.FULL):
                want = k if regime is Regime.FULL else mixed_count(k, rate)
                rng = rng_for(seed, qid, attack, regime.value)
                items: list[EvidenceItem] = list(clean)
                if attack == "ata":  # a rewrite of benign passage i replaces passage i
                    by_source = {str(p.get("source_evidence_id")): p for p in pool}
                    positions = [
                        i for i, b in enumerate(benign) if str(b.get("evidence_id")) in by_source
                    ]
                    if len(positions) < want:
                        skipped[f"{attack}: too few rewrites"] = (
                            skipped.get(f"{attack}: too few rewrites", 0) + 1
                        )
                        continue
                    for i in sorted(rng.sample(positions, want)):
                        adv = by_source[str(benign[i].get("evidence_id"))]
                        items[i] = PollutedPassage.whole(
                            _gpe_passage(adv, max_chars), attack, original=clean[i].text
                        )
                else:
                    if len(pool) < want:
                        skipped[f"{attack}: too few poisons"] = (
                            skipped.get(f"{attack}: too few poisons", 0) + 1
                        )
                        continue
                    positions = sorted(rng.sample(range(k), want))
                    for i, adv in zip(positions, rng.sample(pool, want), strict=True):
                        items[i] = PollutedPassage.whole(_gpe_passage(adv, max_chars), attack)
                instances.append(Instance(qid, query, regime.value, attack, items, meta=meta))
    n_queries = len({i.qid for i in instances})
    return Dataset(
        name="gpe",
        instances=instances,
        description=(
            "gpe-eval (PyPI, MIT): fact-checking claims with benign multi-source web evidence and "
            "four attack types. Query = the claim text."
        ),
        regimes={
            "clean": f"the first {k} benign passages",
            "mixed": f"{mixed_count(k, rate)} of {k} benign passages replaced by attack passages (seeded positions)",
            "full": f"all {k} passages replaced by attack passages",
        },
        families=list(attacks),
        family_notes={
            "fakegpt": "LLM-written fake news supporting the claim",
            "poisonedrag": "PoisonedRAG-style passages crafted for retrieval and the target answer",
            "ata": "adversarial rewrites of the benign passage they replace",
            "ignore": "prompt injection ('ignore previous instructions'-style directives)",
        },
        qa=False,
        n_queries=n_queries,
        n_available=len(lines),
        settings={
            "k": k,
            "max_chars": max_chars,
            "rate": rate,
            "limit": limit,
            "seed": seed,
            "file": str(file),
            "skipped": skipped,
        },
    )


# -- PoisonedRAG ----------------------------------------------------------------------------


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
    :func:`~mirage_core.evaluation.calibrate.dataset_split` splits as it split them alone.
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
        correct, incorrect = (str(q["correct answer"]),), (str(q["incorrect answer"]),)
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


# -- user JSONL -----------------------------------------------------------------------------


def _answers(row: Mapping[str, Any], *keys: str) -> tuple[str, ...]:
    for key in keys:
        value = row.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            return (value,) if value.strip() else ()
        if isinstance(value, Iterable):
            return tuple(str(v) for v in value if str(v).strip())
    return ()


def _read_query_rows(path: str | Path) -> list[dict[str, Any]]:
    rows = []
    for lineno, row in iter_jsonl(path):
        query = row.get("query", row.get("question"))
        passages = row.get("passages", row.get("contexts", row.get("documents")))
        if not isinstance(query, str) or not isinstance(passages, list):
            raise ValueError(
                f"{path}:{lineno}: each row needs 'query' (or 'question') and a 'passages' list"
            )
        rows.append(row)
    return rows


def _row_item(p: Any) -> EvidenceItem:
    if isinstance(p, Mapping) and LABEL_KEY in p:
        return PollutedPassage.from_row(p)
    return to_passage(p)


def load_jsonl(
    path: str | Path,
    *,
    limit: int | None = None,
    seed: int | str = 0,
    families: Sequence[Family | str] = FAMILIES,
    rate: float = 0.5,
    polluter: Any = None,
) -> Dataset:
    """A user's JSONL: one row per query ``{"id"?, "query", "passages": [...], "answer"?,
    "incorrect_answer"?}``; passages are strings or ``{"text", "source"|"url", "score", ...}``.

    Rows whose passages are clean become CLEAN plus MIXED and FULL for each family, polluted by
    ``polluter`` (default: :class:`~mirage_core.pollution.RulePolluter` over the row's passages,
    with the whole file as background corpus). Rows written by ``mirage pollute`` (passages
    carrying ``"mirage_pollution"`` labels) are used as they are.
    """
    return load_rows(
        _read_query_rows(path),
        name=Path(path).stem,
        limit=limit,
        seed=seed,
        families=families,
        rate=rate,
        polluter=polluter,
        file=str(path),
    )


def load_rows(
    rows: Sequence[Mapping[str, Any]],
    *,
    name: str,
    limit: int | None = None,
    seed: int | str = 0,
    families: Sequence[Family | str] = FAMILIES,
    rate: float = 0.5,
    polluter: Any = None,
    file: str | None = None,
) -> Dataset:
    """:func:`load_jsonl` on rows already in memory (``{"id"?, "query", "passages", ...}``):
    the same protocol, the same seeds, named ``name``."""
    from mirage_core.pollution.families import apply_regime
    from mirage_core.pollution.rules import Corpus, RulePolluter

    rows = list(rows)
    chosen = subsample(len(rows), limit, seed)
    fams = [Family.parse(f) for f in families]
    background: Corpus | None = None
    instances: list[Instance] = []
    prepolluted = False
    seen_families: dict[str, None] = {}
    for idx in chosen:
        row = rows[idx]
        qid = str(row.get("id", idx))
        query = str(row.get("query", row.get("question")))
        correct = _answers(row, "answer", "answers", "correct_answer", "correct answer")
        incorrect = _answers(row, "incorrect_answer", "incorrect answer", "incorrect_answers")
        raw = row.get("passages", row.get("contexts", row.get("documents")))
        items = [_row_item(p) for p in raw]
        if any(isinstance(it, PollutedPassage) for it in items) or "regime" in row:
            prepolluted = True
            regime = Regime.parse(row.get("regime", "mixed")).value
            fams_here = {it.family for it in items if isinstance(it, PollutedPassage)}
            family = str(
                row.get("family") or (fams_here.pop() if len(fams_here) == 1 else "mixed-families")
            )
            if regime == Regime.CLEAN.value:
                family = CLEAN_FAMILY
            else:
                seen_families[family] = None
            instances.append(Instance(qid, query, regime, family, items, correct, incorrect))
            continue
        clean = [to_passage(p) for p in raw]
        instances.append(
            Instance(qid, query, Regime.CLEAN.value, CLEAN_FAMILY, list(clean), correct, incorrect)
        )
        if polluter is None:
            if background is None:
                background = Corpus(
                    p.text
                    for r in (rows[i] for i in chosen)
                    for p in (
                        to_passage(x)
                        for x in r.get("passages", r.get("contexts", r.get("documents"))) or []
                    )
                )
            row_polluter = RulePolluter([p.text for p in clean], background=background)
        else:
            row_polluter = polluter
        for fam in fams:
            seen_families[fam.value] = None
            for regime in (Regime.MIXED, Regime.FULL):
                items = apply_regime(
                    clean, regime, fam, row_polluter, seed=seed, rate=rate, key=qid
                )
                instances.append(
                    Instance(qid, query, regime.value, fam.value, items, correct, incorrect)
                )
    return Dataset(
        name=name,
        instances=instances,
        description=(
            (f"user JSONL {Path(file).name}" if file else f"{name} rows")
            + (
                ""
                if prepolluted
                else " polluted by the Retrieval Pollution Protocol (rule-based polluter)"
            )
        ),
        regimes={
            "clean": "the row's passages",
            "mixed": f"{int(rate * 100)}% of the passages polluted (seeded)",
            "full": "every passage polluted",
        },
        families=list(seen_families),
        family_notes={
            "unambiguous": "one atomic fact changed (number, date, name, place)",
            "conflicting": "the polarity of a claim flipped",
            "misleading": "a framing that leads to a false conclusion",
            "fabricated": "a plausible non-existent detail added",
        },
        qa=any(i.correct or i.incorrect for i in instances),
        n_queries=len(chosen),
        n_available=len(rows),
        settings={
            "limit": limit,
            "seed": seed,
            "rate": rate,
            "file": file,
            "polluter": "given" if polluter is not None else "rules",
        },
    )


def load_dataset(
    spec: str | Path, *, limit: int | None = None, seed: int | str = 0, **kwargs: Any
) -> Dataset:
    """``gpe``, ``poisonedrag-nq``, ``poisonedrag-hotpotqa`` (with an optional adaptive-poison
    suffix ``:paraphrase``, ``:synonym`` or ``:dispersed``) or the path of a JSONL file."""
    name = str(spec)
    low = name.lower()
    if low in ("gpe", "gpe-eval"):
        return load_gpe(limit=limit, seed=seed, **kwargs)
    base = low.partition(":")[0]
    if (
        base in ("poisonedrag-nq", "poisonedrag-hotpotqa", "nq", "hotpotqa")
        and not Path(name).is_file()
    ):
        return load_poisonedrag(low, limit=limit, seed=seed, **kwargs)
    if Path(name).is_file():
        return load_jsonl(name, limit=limit, seed=seed, **kwargs)
    raise ValueError(
        f"unknown dataset {name!r}: expected gpe, poisonedrag-nq, poisonedrag-hotpotqa "
        "(optionally :paraphrase, :synonym or :dispersed) or a JSONL file"
    )
