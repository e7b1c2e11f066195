"""Benchmark inputs: every query as CLEAN / MIXED / FULL evidence with known polluted spans.

:func:`load_dataset` picks the loader by name (each returns a
:class:`~mirage_core.evaluation.instances.Dataset` of
:class:`~mirage_core.evaluation.instances.Instance` values):

- ``gpe`` — :func:`~mirage_core.evaluation.gpe.load_gpe`, gpe-eval's claims and attack types.
- ``poisonedrag-nq`` / ``poisonedrag-hotpotqa`` —
  :func:`~mirage_core.evaluation.poisonedrag.load_poisonedrag`, one gold passage and five
  coordinated poisons per question.
- a file — :func:`load_jsonl`, a user's JSONL of queries with passages, polluted by the protocol
  (rule-based polluter, four families × MIXED / FULL), or rows already polluted by
  ``mirage pollute``.

Every loader takes ``limit`` (a seeded subsample of queries) and ``seed``. Data is found under
``$MIRAGE_DATA_DIR`` or ``../shared/data`` next to the repository; gpe's file through the
installed ``gpe`` package (``$MIRAGE_GPE_FILE`` overrides). The instance types, discovery and
the two benchmark loaders are importable from here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mirage_core.evaluation.gpe import (
    GPE_ATTACKS,
    _gpe_passage,  # noqa: F401  (a re-export for callers that import it from here)
    find_gpe_file,
    load_gpe,
)
from mirage_core.evaluation.instances import (
    CLEAN_FAMILY,
    Dataset,
    Instance,
    find_data_dir,
    subsample,
)
from mirage_core.evaluation.poisonedrag import VARIANTS, load_poisonedrag
from mirage_core.jsonl import iter_jsonl
from mirage_core.pollution.families import (
    FAMILIES,
    LABEL_KEY,
    EvidenceItem,
    Family,
    PollutedPassage,
    Regime,
)
from mirage_core.types import to_passage

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


# -- user JSONL -----------------------------------------------------------------------------


def _answer_text(value: Any) -> str:
    """An answer as the evidence would write it: a whole number without ``.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _answers(row: Mapping[str, Any], *keys: str) -> tuple[str, ...]:
    for key in keys:
        value = row.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            return (value,) if value.strip() else ()
        if isinstance(value, int | float) and not isinstance(value, bool):
            return (_answer_text(value),)  # {"answer": 1889}
        if isinstance(value, Iterable):
            return tuple(_answer_text(v) for v in value if str(v).strip())
    return ()


def _query_key(row: Mapping[str, Any], idx: int) -> str:
    """Which query a row is: its ``id``, else (a row ``mirage pollute`` wrote, one per regime
    and family) its query text, else its position."""
    if "id" in row:
        return str(row["id"])
    return f"query:{row.get('query', row.get('question'))}" if _polluted_row(row) else str(idx)


def _polluted_row(row: Mapping[str, Any]) -> bool:
    """Whether ``row`` was written by ``mirage pollute``: it names its regime, or a passage
    carries pollution labels."""
    return "regime" in row or any(
        isinstance(p, Mapping) and LABEL_KEY in p for p in _raw_passages(row) or ()
    )


#: Where a query row holds its passages, in the order they are looked for.
PASSAGE_KEYS = ("passages", "contexts", "documents")


def _raw_passages(row: Mapping[str, Any]) -> Any:
    """The value of the first of :data:`PASSAGE_KEYS` the row has (``None``: none)."""
    return next((row[k] for k in PASSAGE_KEYS if k in row), None)


def _read_query_rows(path: str | Path) -> list[dict[str, Any]]:
    rows = []
    for lineno, row in iter_jsonl(path):
        query = row.get("query", row.get("question"))
        passages = _raw_passages(row)
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
    # --limit and the counts are of queries: the rows of one query (a file of `mirage
    # pollute` outputs holds one per regime and family) are kept or left out together
    keys = [_query_key(row, i) for i, row in enumerate(rows)]
    distinct = list(dict.fromkeys(keys))
    picked = {distinct[i] for i in subsample(len(distinct), limit, seed)}
    chosen = [i for i, key in enumerate(keys) if key in picked]
    fams = [Family.parse(f) for f in families]
    wanted = {f.value for f in fams}
    background: Corpus | None = None
    instances: list[Instance] = []
    prepolluted = False
    seen_families: dict[str, None] = {}
    for idx in chosen:
        row = rows[idx]
        qid = keys[idx].removeprefix("query:") if "id" not in row else keys[idx]
        query = str(row.get("query", row.get("question")))
        correct = _answers(row, "answer", "answers", "correct_answer", "correct answer")
        incorrect = _answers(row, "incorrect_answer", "incorrect answer", "incorrect_answers")
        raw = _raw_passages(row)
        items = [_row_item(p) for p in raw]
        if _polluted_row(row):
            prepolluted = True
            regime = Regime.parse(row.get("regime", "mixed")).value
            fams_here = {it.family for it in items if isinstance(it, PollutedPassage)}
            if regime != Regime.CLEAN.value and not fams_here <= wanted:
                continue  # polluted by a family the caller did not ask for
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
                    for p in (to_passage(x) for x in _raw_passages(r) or [])
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
            "mixed": f"{rate:.0%} of the passages polluted (seeded)",
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
        n_queries=len(picked),
        n_available=len(distinct),
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
