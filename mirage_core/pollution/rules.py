"""The rule-based polluter: minimal, fluent, topical edits that run offline.

One edit per passage, in one sentence, chosen with a seeded generator:

- **unambiguous** — a number, year, month / weekday or proper name replaced by another of the
  same kind found in the corpus (a year by a year, a percentage by a percentage, a place by a
  place, ...); numbers with no such partner are perturbed (same format, similar magnitude);
- **conflicting** — a polarity flip: an antonym swap (``increased`` → ``decreased``), a negation
  inserted after an auxiliary (``was`` → ``was not``) or removed (``did not`` → ``did``);
- **misleading** — a frame that leads the reader to the wrong conclusion about a true
  sentence (``Early reports claimed that …, but this was later disputed.``) or a
  degree / scope shift (``most`` → ``few``, ``significantly`` → ``slightly``);
- **fabricated** — a plausible but non-existent detail attached to a sentence (an attribution to
  an organisation of the corpus, a date, a cost), built from names and numbers of the corpus so
  it stays topical.

Replacement pools come from the corpus the polluter was given (``RulePolluter(texts)``): first
the query's own passages, then an optional background corpus.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mirage_core.claims import STOPWORDS, content_tokens, split_sentences
from mirage_core.pollution.facts import _MONTHS, _WEEKDAY_SET, _WEEKDAYS, Fact, find_facts
from mirage_core.pollution.families import Edit, Family, PollutedPassage, rng_for
from mirage_core.pollution.vocabulary import (
    _ANTONYM_RE,
    _ANTONYMS,
    _DEGREE,
    _DEGREE_RE,
    _DEGREE_VERB_BEFORE,
    _EVENT_VERB,
    _FRAMES,
    _GENERIC_ORGS,
    _LOWER_FIRST,
    _NEG_INSERT,
    _NEG_REMOVE,
    _NEGATED_BEFORE,
    _NO_ARTICLE,
    _SUPERLATIVE_MOST,
)
from mirage_core.types import PassageLike, to_passage

__all__ = ["Corpus", "RulePolluter", "find_facts"]


class Corpus:
    """Pools of fact values by kind, collected from texts (replacement candidates)."""

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self.pools: dict[str, dict[str, None]] = {}
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        for fact in find_facts(text):
            self.pools.setdefault(fact.kind, {})[fact.text] = None

    def values(self, kind: str) -> list[str]:
        return list(self.pools.get(kind, {}))

    def __len__(self) -> int:
        return sum(len(v) for v in self.pools.values())


def _match_case(src: str, repl: str) -> str:
    if len(src) > 1 and src.isupper():
        return repl.upper()
    if src[:1].isupper():
        return repl[:1].upper() + repl[1:]
    return repl


@dataclass(frozen=True, slots=True)
class _Op:
    start: int  # in the original text
    end: int
    replacement: str


@dataclass(frozen=True, slots=True)
class _Candidate:
    ops: tuple[_Op, ...]
    kind: str


def _apply(text: str, ops: Sequence[_Op], kind: str) -> tuple[str, tuple[Edit, ...]]:
    out, edits, cursor, shift = [], [], 0, 0
    for op in sorted(ops, key=lambda o: o.start):
        out.append(text[cursor : op.start])
        new_start = op.start + shift
        out.append(op.replacement)
        edits.append(
            Edit(
                new_start,
                new_start + len(op.replacement),
                text[op.start : op.end],
                op.replacement,
                kind,
            )
        )
        shift += len(op.replacement) - (op.end - op.start)
        cursor = op.end
    out.append(text[cursor:])
    return "".join(out), tuple(edits)


class RulePolluter:
    """Offline polluter of the four families (see the module docstring).

    Args:
        corpus: texts (or a :class:`Corpus`) whose names and numbers replace the edited ones —
            typically the passages of the query being polluted.
        background: a second, larger corpus used when ``corpus`` has no partner of the
            right kind (e.g. every passage of the dataset).
        min_claim_tokens: sentences with fewer content tokens are never edited (they are not
            claims for the engine either).

    ``pollute(passage, family, seed=...)`` returns a :class:`PollutedPassage` (one minimal edit,
    recorded) or ``None`` when the passage offers nothing to edit for that family. The same
    text, family and seed always give the same edit.
    """

    name = "rules"

    def __init__(
        self,
        corpus: Iterable[str] | Corpus | None = None,
        *,
        background: Iterable[str] | Corpus | None = None,
        min_claim_tokens: int = 2,
    ) -> None:
        self.corpus = corpus if isinstance(corpus, Corpus) else Corpus(corpus or ())
        self.background = background if isinstance(background, Corpus) else Corpus(background or ())
        self.min_claim_tokens = min_claim_tokens

    def __repr__(self) -> str:
        return f"RulePolluter(corpus={len(self.corpus)} facts, background={len(self.background)} facts)"

    # -- public ----------------------------------------------------------------------------
    def pollute(
        self, passage: PassageLike, family: Family | str, *, seed: int | str = 0
    ) -> PollutedPassage | None:
        p = to_passage(passage)
        fam = Family.parse(family)
        digest = hashlib.sha256(p.text.encode("utf-8")).hexdigest()[:16]
        rng = rng_for(seed, fam.value, digest)
        candidates = self.candidates(p.text, fam, rng)
        if not candidates:
            return None
        chosen = candidates[rng.randrange(len(candidates))]
        text, edits = _apply(p.text, chosen.ops, chosen.kind)
        if text == p.text:
            return None
        return PollutedPassage.from_passage(p, text, fam.value, edits, polluter=self.name)

    def candidates(self, text: str, family: Family | str, rng=None) -> list[_Candidate]:
        """Every edit this polluter could make to ``text`` for ``family`` (replacement
        values drawn from ``rng``; deterministic order)."""
        fam = Family.parse(family)
        rng = rng or rng_for(0, fam.value, text)
        out: list[_Candidate] = []
        for s, e in self._sentences(text):
            sentence = text[s:e]
            maker = {
                Family.UNAMBIGUOUS: self._unambiguous,
                Family.CONFLICTING: self._conflicting,
                Family.MISLEADING: self._misleading,
                Family.FABRICATED: self._fabricated,
            }[fam]
            for cand in maker(sentence, rng):
                out.append(
                    _Candidate(
                        tuple(_Op(op.start + s, op.end + s, op.replacement) for op in cand.ops),
                        cand.kind,
                    )
                )
        return out

    # -- helpers ---------------------------------------------------------------------------
    def _sentences(self, text: str) -> list[tuple[int, int]]:
        return [
            (s, e)
            for s, e in split_sentences(text)
            if len(content_tokens(text[s:e])) >= self.min_claim_tokens
        ]

    def _pool(self, kind: str, exclude: str) -> list[str]:
        low = exclude.lower()

        def ok(v: str) -> bool:
            vl = v.lower()
            return vl != low and vl not in low and low not in vl

        for corpus in (self.corpus, self.background):
            values = [v for v in corpus.values(kind) if ok(v)]
            if values:
                return values
        return []

    def _number_options(self, fact: Fact, rng) -> list[str]:
        text = fact.text
        if fact.kind == "year":
            year = int(text)
            pool = [v for v in self._pool("year", text) if abs(int(v) - year) <= 30]
            return pool or [
                str(year + d) for d in (-3, -2, -1, 1, 2, 3) if 1000 <= year + d <= 2099
            ]
        if fact.kind == "month":
            pool = self._pool("month", text)
            return pool or [m for m in _MONTHS if m.lower() != text.lower()]
        if fact.kind == "weekday":
            plural = text.lower().endswith("s") and text.lower() not in _WEEKDAY_SET
            base = text[:-1] if plural else text
            return [d + ("s" if plural else "") for d in _WEEKDAYS if d.lower() != base.lower()]
        value = _to_float(text)
        if value is None:
            return []
        pool = [v for v in self._pool(fact.kind, text) if _similar(_to_float(v), value)]
        if pool:
            return pool
        return _perturb(text, fact.kind, value)

    def _unambiguous(self, sentence: str, rng) -> list[_Candidate]:
        out = []
        for fact in find_facts(sentence):
            if fact.kind in ("person", "place", "org", "name", "acronym"):
                # Same kind and length, then same kind, then (for a person, place or
                # organisation) a name of unknown kind and the same length.
                same_kind = self._pool(fact.kind, fact.text)
                options = [v for v in same_kind if len(v.split()) == fact.tokens] or same_kind
                if not options and fact.kind in ("person", "place", "org"):
                    options = [
                        v for v in self._pool("name", fact.text) if len(v.split()) == fact.tokens
                    ]
                kind = "name"
            else:
                options = self._number_options(fact, rng)
                kind = fact.kind
            if options:
                repl = options[rng.randrange(len(options))]
                end = fact.end
                if kind == "name" and _abbreviation_period(sentence, fact.text, end):
                    end += 1  # "Mike Adenuga Jr., born" -> "Ada Byron, born", not "Ada Byron.,"
                out.append(_Candidate((_Op(fact.start, end, repl),), kind))
        return out

    def _conflicting(self, sentence: str, rng) -> list[_Candidate]:
        out = []
        for m in _ANTONYM_RE.finditer(sentence):
            word = m.group(0)
            if _NEGATED_BEFORE.search(sentence[max(0, m.start() - 20) : m.start()]):
                continue  # "not successful" -> "not unsuccessful" is no flip
            out.append(
                _Candidate(
                    (_Op(m.start(), m.end(), _match_case(word, _ANTONYMS[word.lower()])),),
                    "antonym",
                )
            )
        negated = {m.start() for m in _NEG_REMOVE.finditer(sentence)}
        for m in _NEG_REMOVE.finditer(sentence):
            aux = next(g for g in m.groups() if g)
            full = {"wo": "will", "ca": "can"}.get(aux.lower(), aux)
            out.append(_Candidate((_Op(m.start(), m.end(), _match_case(aux, full)),), "negation"))
        for m in _NEG_INSERT.finditer(sentence):
            if m.start() in negated:
                continue
            aux = next(g for g in m.groups() if g)
            end = m.start() + len(aux)
            repl = aux + ("not" if aux.lower() == "can" else " not")
            out.append(_Candidate((_Op(m.start(), end, repl),), "negation"))
        return out

    def _misleading(self, sentence: str, rng) -> list[_Candidate]:
        out = []
        for m in _DEGREE_RE.finditer(sentence):
            word = m.group(0)
            after = sentence[m.end() :].split(None, 1)
            if after and after[0].lower() in _DEGREE_VERB_BEFORE.get(word.lower(), ()):
                continue  # "leading to …" is a verb: "marginal to …" is no degree shift
            shifted = _DEGREE[word.lower()]
            if word.lower() == "most" and _SUPERLATIVE_MOST.search(sentence[: m.start()]):
                shifted = "least"  # "the most famous" -> "the least famous", not "the few"
            out.append(
                _Candidate((_Op(m.start(), m.end(), _match_case(word, shifted)),), "quantifier")
            )
        period = _final_period(sentence)
        if period is not None and "?" not in sentence:
            prefix, suffix = _FRAMES[rng.randrange(len(_FRAMES))]
            first = sentence.split(" ", 1)[0]
            ops = []
            if first.lower() in _LOWER_FIRST or first.lower() in STOPWORDS:
                ops.append(_Op(0, len(first), prefix + first.lower()))
            else:
                ops.append(_Op(0, 0, prefix))
            if suffix != "." and _abbreviation_at(sentence, period):
                ops.append(_Op(period + 1, period + 1, suffix))  # "the U.S., although …"
            elif suffix != ".":
                ops.append(_Op(period, period + 1, suffix))
            out.append(_Candidate(tuple(ops), "frame"))
        return out

    def _fabricated(self, sentence: str, rng) -> list[_Candidate]:
        period = _final_period(sentence)
        if period is None or period < 20:
            return []
        facts = find_facts(sentence)
        years = [f.text for f in facts if f.kind == "year"]
        # Attributions come from the passage's own corpus (topical) or stay generic.
        orgs = self.corpus.values("org")
        people = self.corpus.values("person")
        in_sentence = {f.text.lower() for f in facts}
        orgs = [o for o in orgs if o.lower() not in in_sentence] or list(_GENERIC_ORGS)
        people = [p for p in people if p.lower() not in in_sentence]
        year_pool = self._pool("year", "\0")
        report_year = (
            years[0] if years else (year_pool[rng.randrange(len(year_pool))] if year_pool else None)
        )
        details = []
        org = orgs[rng.randrange(len(orgs))]
        if org[:1].isupper() and org.split()[-1].lower().strip(".") not in _NO_ARTICLE:
            org = "the " + org
        if report_year:
            year = str(int(report_year) + rng.choice((1, 2)))
            article = "an" if year.startswith(("8", "11", "18")) else "a"
            details.append(f", according to {article} {year} report by {org}")
        else:
            details.append(f", according to a report by {org}")
        if people:
            details.append(f", as later confirmed by {people[rng.randrange(len(people))]}")
        event = _EVENT_VERB.search(sentence) is not None
        if event and not any(f.kind in ("number", "decimal", "percent") for f in facts):
            amount = rng.choice((1.2, 2.5, 3.8, 4.6, 7.5, 12, 18, 26, 40))
            details.append(f", at an estimated cost of ${amount:g} million")
        if event and not any(f.kind in ("month", "year") for f in facts):
            month = _MONTHS[rng.randrange(12)]
            in_year = year_pool[rng.randrange(len(year_pool))] if year_pool else None
            details.append(f" in {month} {in_year}" if in_year else f" in {month}")
        if _abbreviation_at(sentence, period):  # "Washington D.C., according to … ."
            return [_Candidate((_Op(period + 1, period + 1, d + "."),), "detail") for d in details]
        return [_Candidate((_Op(period, period, d),), "detail") for d in details]


# A name's closing abbreviation whose period does not end the sentence: the period goes with
# the name when another name replaces it.
_ABBREVIATIONS = frozenset("jr sr inc corp co ltd st bros mt ft".split())
_INNER_PERIOD = re.compile(r"\.(?=\s*[,;:)]|\s+[a-z])")


def _abbreviation_period(sentence: str, name: str, end: int) -> bool:
    """Whether ``name``, ending at ``end``, closes with an abbreviation whose period follows it
    inside the sentence."""
    return (
        name.split()[-1].lower() in _ABBREVIATIONS
        and _INNER_PERIOD.match(sentence, end) is not None
    )


_TRAILING_CITES = re.compile(r"(?:\[[^\]\s]{1,8}\])+$")
_INITIALISM_END = re.compile(r"(?:\b[A-Za-z]\.){2,}$")


def _abbreviation_at(sentence: str, period: int) -> bool:
    """Whether the sentence's closing period (at ``period``) also closes an abbreviation
    ("U.S.", "D.C.", "Inc."): it stays where it is when text is added after it."""
    head = sentence[: period + 1]
    last = head.split()[-1] if head.split() else ""
    return bool(_INITIALISM_END.search(head)) or last[:-1].lower() in _ABBREVIATIONS


def _final_period(sentence: str) -> int | None:
    """Index of the sentence's closing period (before citation marks such as ``[3][4]``), or
    None when it does not end with a plain period (a question, a quote, an ellipsis)."""
    body = _TRAILING_CITES.sub("", sentence.rstrip())
    if not body.endswith(".") or body.endswith("..") or body[-2:-1] in ('"', "'", "”"):
        return None
    return len(body) - 1


def _to_float(text: str) -> float | None:
    m = re.match(r"[\d,]+(?:\.\d+)?", text)
    if not m:
        return None
    try:
        return float(m.group(0).replace(",", ""))
    except ValueError:
        return None


def _similar(a: float | None, b: float) -> bool:
    if a is None or a == b:
        return False
    if b == 0 or a == 0:
        return abs(a - b) <= 10
    ratio = a / b
    return 0.2 <= ratio <= 5


def _perturb(text: str, kind: str, value: float) -> list[str]:
    """Same-format numbers near ``value`` (used when the corpus has none)."""
    m = re.match(r"([\d,]+)(\.(\d+))?(.*)$", text)
    if not m:
        return []
    decimals = len(m.group(3) or "")
    suffix = m.group(4)
    commas = "," in m.group(1)
    factors = (0.5, 0.75, 1.25, 1.5, 2.0) if value >= 20 else None
    options = []
    candidates = (
        [value * f for f in factors]
        if factors
        else [value + d for d in (-2, -1, 1, 2, 3) if value + d > 0]
    )
    for v in candidates:
        if decimals:
            s = f"{v:,.{decimals}f}" if commas else f"{v:.{decimals}f}"
        else:
            iv = round(v)
            if iv == round(value) or iv <= 0:
                continue
            s = f"{iv:,}" if commas else str(iv)
        if s != text[: len(text) - len(suffix)] and s not in options:
            options.append(s)
    if kind == "percent":
        options = [o for o in options if (pct := _to_float(o)) is not None and pct <= 100]
    return [o + suffix for o in options]
