"""gpe-eval benchmark inputs: fact-checking claims with benign multi-source web evidence and
four attack types.

:func:`load_gpe` reads ``gpe-eval`` (PyPI, MIT): the benign multi-source evidence of each claim
is CLEAN; each of its four attack types (``fakegpt``, ``poisonedrag``, ``ata``, ``ignore`` — the
last one is prompt injection) is a pollution family of its own, in MIXED and FULL regimes at
constant k (attack passages replace benign ones, as gpe's own loader does; ``ata`` rewrites
replace the passage they were written from). The file is found through the installed ``gpe``
package (``$MIRAGE_GPE_FILE`` overrides), see :func:`find_gpe_file`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import site
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mirage_core.evaluation.instances import CLEAN_FAMILY, Dataset, Instance, subsample
from mirage_core.pollution.families import (
    EvidenceItem,
    PollutedPassage,
    Regime,
    mixed_count,
    rng_for,
)
from mirage_core.types import Passage

__all__ = [
    "GPE_ATTACKS",
    "find_gpe_file",
    "load_gpe",
]

#: gpe-eval attack types, in report order (``ignore`` is prompt injection).
GPE_ATTACKS: tuple[str, ...] = ("fakegpt", "poisonedrag", "ata", "ignore")


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
