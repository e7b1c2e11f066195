"""The Retrieval Pollution Protocol (docs/method.md): families, regimes and polluted passages.

From a clean passage set D_clean(q) = {p_1..p_k}, polluted variants p̃_i are made by a minimal,
fluent, topical edit of one of four :class:`Family` values. :func:`apply_regime` builds the
evidence of a :class:`Regime` at constant size k: CLEAN = D_clean, MIXED = half of the passages
(rate 0.5, seeded) replaced by their polluted variants, FULL = every passage polluted.

Every :class:`PollutedPassage` records its family, its original text and the edited span(s), so
metrics can tell which claims are polluted. The defense never sees these labels:
:meth:`PollutedPassage.to_passage` hands the engine the text and provenance only.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from mirage_core.types import Passage, PassageLike, to_passage

__all__ = [
    "FAMILIES",
    "Edit",
    "Family",
    "PollutedPassage",
    "Polluter",
    "Regime",
    "apply_regime",
    "diff_edits",
    "mixed_count",
    "polluted_spans",
    "rng_for",
]

#: Metadata key under which a polluted JSONL row keeps its labels (stripped before the engine).
LABEL_KEY = "mirage_pollution"


class Family(StrEnum):
    """The four pollution families of the protocol."""

    UNAMBIGUOUS = "unambiguous"  # one atomic fact changed: a number, date, name, place
    CONFLICTING = "conflicting"  # the polarity of a claim flipped
    MISLEADING = "misleading"  # the framing changed so the passage leads to a false conclusion
    FABRICATED = "fabricated"  # a non-existent but plausible detail introduced

    @classmethod
    def parse(cls, value: str | Family) -> Family:
        if isinstance(value, Family):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ValueError(
                f"unknown pollution family {value!r}; expected one of {[f.value for f in cls]}"
            ) from None

    def __str__(self) -> str:
        return self.value


FAMILIES: tuple[Family, ...] = tuple(Family)


class Regime(StrEnum):
    """How much of the evidence is polluted, at constant evidence size k."""

    CLEAN = "clean"
    MIXED = "mixed"
    FULL = "full"

    @classmethod
    def parse(cls, value: str | Regime) -> Regime:
        if isinstance(value, Regime):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ValueError(
                f"unknown regime {value!r}; expected one of {[r.value for r in cls]}"
            ) from None

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit: ``text[start:end]`` of the *polluted* passage replaced ``original``.

    ``kind`` names what was edited (``number``, ``year``, ``month``, ``name``, ``negation``,
    ``antonym``, ``quantifier``, ``frame``, ``detail``, ``rewrite``, ...). An insertion has
    ``original == ""``; a deletion has ``start == end``.
    """

    start: int
    end: int
    original: str
    replacement: str
    kind: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "original": self.original,
            "replacement": self.replacement,
            "kind": self.kind,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Edit:
        return cls(
            start=int(data["start"]),
            end=int(data["end"]),
            original=str(data.get("original", "")),
            replacement=str(data.get("replacement", "")),
            kind=str(data.get("kind", "edit")),
        )


@dataclass(frozen=True)
class PollutedPassage:
    """A polluted variant p̃ of a clean passage p.

    Attributes:
        text: the polluted text (what the defense sees).
        original: the clean text it was made from.
        family: the pollution family (a :class:`Family` value, or a free label such as a
            dataset's attack type, e.g. ``"fakegpt"``).
        edits: the edited span(s), offsets into ``text``.
        source / domain / score / metadata: provenance copied from the clean passage.
        polluter: which polluter made it (``"rules"``, ``"llm"``, ``"dataset"``).
    """

    text: str
    original: str
    family: str
    edits: tuple[Edit, ...]
    source: str | None = None
    domain: str | None = None
    score: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    polluter: str = "rules"

    @property
    def spans(self) -> list[tuple[int, int]]:
        """Character spans of ``text`` that are polluted (a deletion marks one character)."""
        out = []
        for e in self.edits:
            start, end = e.start, e.end
            if end <= start:  # a deletion: mark the character where text was removed
                pos = min(max(start, 0), max(len(self.text) - 1, 0))
                start, end = pos, pos + 1
            out.append((start, end))
        return out

    def to_passage(self) -> Passage:
        """The engine's view: text and provenance, no pollution labels."""
        return Passage(
            self.text,
            source=self.source,
            domain=self.domain,
            score=self.score,
            metadata=dict(self.metadata),
        )

    def labels(self) -> dict[str, Any]:
        """The labels a JSONL row carries under ``"mirage_pollution"``."""
        return {
            "family": str(self.family),
            "polluter": self.polluter,
            "original": self.original,
            "edits": [e.to_dict() for e in self.edits],
        }

    def to_row(self) -> dict[str, Any]:
        """A JSONL passage row: provenance plus the labels under ``"mirage_pollution"``."""
        row: dict[str, Any] = {"text": self.text}
        if self.source is not None:
            row["source"] = self.source
        if self.domain is not None:
            row["domain"] = self.domain
        if self.score is not None:
            row["score"] = self.score
        if self.metadata:
            row["metadata"] = dict(self.metadata)
        row[LABEL_KEY] = self.labels()
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PollutedPassage:
        labels = row[LABEL_KEY]
        passage = to_passage({k: v for k, v in row.items() if k != LABEL_KEY})
        return cls(
            text=passage.text,
            original=str(labels.get("original", "")),
            family=str(labels.get("family", "")),
            edits=tuple(Edit.from_dict(e) for e in labels.get("edits", [])),
            source=passage.source,
            domain=passage.domain,
            score=passage.score,
            metadata=dict(passage.metadata),
            polluter=str(labels.get("polluter", "rules")),
        )

    @classmethod
    def whole(
        cls, passage: PassageLike, family: str, *, original: str = "", polluter: str = "dataset"
    ) -> PollutedPassage:
        """A passage polluted as a whole (a dataset's adversarial passage)."""
        p = to_passage(passage)
        edit = Edit(0, len(p.text), original, p.text, "rewrite")
        return cls.from_passage(p, p.text, family, (edit,), original=original, polluter=polluter)

    @classmethod
    def from_passage(
        cls,
        passage: Passage,
        text: str,
        family: str,
        edits: Sequence[Edit],
        *,
        original: str | None = None,
        polluter: str,
    ) -> PollutedPassage:
        """``passage`` edited into ``text``, keeping its provenance (source, domain, score and a
        copy of its metadata); ``original`` defaults to the passage's own text."""
        return cls(
            text=text,
            original=passage.text if original is None else original,
            family=str(family),
            edits=tuple(edits),
            source=passage.source,
            domain=passage.domain,
            score=passage.score,
            metadata=dict(passage.metadata),
            polluter=polluter,
        )


EvidenceItem = Passage | PollutedPassage


def polluted_spans(item: EvidenceItem) -> list[tuple[int, int]]:
    """Polluted character spans of an evidence item (none for a clean passage)."""
    return item.spans if isinstance(item, PollutedPassage) else []


@runtime_checkable
class Polluter(Protocol):
    """Anything that makes a polluted variant of a passage (``None`` when it cannot)."""

    def pollute(
        self, passage: PassageLike, family: Family | str, *, seed: int | str = 0
    ) -> PollutedPassage | None: ...


def _family_label(family: Family | str) -> Family | str:
    """A :class:`Family` when ``family`` names one, else the free label as given."""
    if isinstance(family, Family):
        return family
    try:
        return Family.parse(family)
    except ValueError:
        return str(family)


def rng_for(seed: int | str, *parts: object) -> random.Random:
    """A ``random.Random`` seeded by ``seed`` and ``parts`` (stable across processes)."""
    key = ":".join([str(seed), *(str(p) for p in parts)])
    return random.Random(int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big"))


def mixed_count(k: int, rate: float = 0.5) -> int:
    """Passages polluted in MIXED: ``round(k · rate)`` (half up), at least 1 when k ≥ 1."""
    if not 0 < rate <= 1:
        raise ValueError(f"rate must be in (0, 1], got {rate!r}")
    return 0 if k <= 0 else min(k, max(1, math.floor(k * rate + 0.5)))


def apply_regime(
    passages: Sequence[PassageLike],
    regime: Regime | str,
    family: Family | str,
    polluter: Polluter,
    *,
    seed: int | str = 0,
    rate: float = 0.5,
    key: str = "",
) -> list[EvidenceItem]:
    """The evidence of ``regime`` built from clean ``passages`` (size k kept constant).

    MIXED pollutes ``mixed_count(k, rate)`` passages at seeded positions; a chosen passage the
    polluter cannot edit is swapped for another one it can (so MIXED stays half polluted when
    possible). FULL pollutes every passage the polluter can edit; a passage it cannot edit stays
    clean (check with :func:`polluted_spans`). ``key`` (e.g. the query id) varies the seed per
    query.
    """
    regime = Regime.parse(regime)
    clean = [to_passage(p) for p in passages]
    if regime is Regime.CLEAN or not clean:
        return list(clean)
    fam = _family_label(family)
    out: list[EvidenceItem] = list(clean)
    k = len(clean)
    if regime is Regime.FULL:
        for i, p in enumerate(clean):
            made = polluter.pollute(p, fam, seed=f"{seed}:{key}:{i}")
            if made is not None:
                out[i] = made
        return out
    want = mixed_count(k, rate)
    order = list(range(k))
    rng_for(seed, key, "mixed", fam, k).shuffle(order)
    done = 0
    for i in order:
        if done >= want:
            break
        made = polluter.pollute(clean[i], fam, seed=f"{seed}:{key}:{i}")
        if made is not None:
            out[i] = made
            done += 1
    return out


def diff_edits(original: str, edited: str, kind: str = "edit") -> tuple[Edit, ...]:
    """The edits turning ``original`` into ``edited``, as spans of ``edited`` (word-level diff)."""
    import re

    def tokens(s: str) -> list[tuple[str, int, int]]:
        return [(m.group(0), m.start(), m.end()) for m in re.finditer(r"\w+|[^\w\s]", s)]

    ta, tb = tokens(original), tokens(edited)
    matcher = SequenceMatcher(a=[t for t, _, _ in ta], b=[t for t, _, _ in tb], autojunk=False)
    edits = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        a0 = ta[i1][1] if i1 < len(ta) else len(original)
        a1 = ta[i2 - 1][2] if i2 > i1 else a0
        if j2 > j1:
            b0, b1 = tb[j1][1], tb[j2 - 1][2]
        else:  # deletion: an empty span where the text was removed
            b0 = b1 = tb[j1][1] if j1 < len(tb) else len(edited)
        edits.append(Edit(b0, b1, original[a0:a1], edited[b0:b1], kind))
    return tuple(edits)
