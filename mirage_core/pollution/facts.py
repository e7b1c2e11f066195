"""Fact tokens of a text: :func:`find_facts` finds its numbers, years, months, weekdays and
proper names, each with its span and kind (the values the rule-based polluter swaps).

Names get a kind from their words and context: an all-capital word is an acronym; an
organisation or place suffix (``University``, ``River``), a title before the name (``Dr``) or a
place preposition (``in``) decides the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mirage_core.claims import split_sentences

__all__ = ["Fact", "find_facts"]

_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_MONTH_SET = frozenset(m.lower() for m in _MONTHS)
_WEEKDAY_SET = frozenset(d.lower() for d in _WEEKDAYS)

# A number not glued to letters, hyphens or brackets (COVID-19, [3], A4 are not facts).
_NUMBER = re.compile(
    r"(?<![\w\-\[\].,/:])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%| percent)?(?![\w\]:]|[.,]\d)"
)
# Upper-case letters of the alphabets a name is written in here (Latin with its accents, Greek,
# Cyrillic, …): "Zoë", "Łukasz" and "Gödel" are read whole, not up to their first accent.
_UPPER = "[" + "".join(re.escape(c) for c in map(chr, range(0x2000)) if c.isupper()) + "]"
_LETTER = r"[^\W\d_]"
_CAP_WORD = rf"{_UPPER}(?:{_LETTER}|['’\-])*{_LETTER}|{_UPPER}\.?"
# Connectors that join one name's words ("University of Oxford", "Ludwig van Beethoven"). Not
# "and" or "on": on real pages "Fela Kuti and Chaka Demus" lists two names and "Paris on May"
# is a name and a date, and a swap replaces one name.
_NAME = re.compile(
    rf"(?:{_CAP_WORD})(?:\s+(?:(?:of|the|de|del|da|von|van|der|la|le|for)\s+)?(?:{_CAP_WORD}))*"
)

# Capitalized words that are not names on their own (sentence starters, pronouns, titles).
_NOT_NAMES = frozenset(
    """a an the this that these those it its he she they we i you his her their our my your
    in on at for from by with of to and or but if when while after before during since until
    as however although though because so then there here what which who whom whose where why
    how also yet still some many most all both each every no not one two three first second
    new according mr mrs ms dr prof sir st""".split()
)
_TITLES = frozenset(
    "mr mrs ms dr prof president senator governor minister king queen prince princess general captain judge sir lord lady pope bishop mayor".split()
)
_ORG_SUFFIX = frozenset(
    """university college institute institution school academy inc corp corporation company co
    ltd llc group association society foundation council committee commission agency department
    ministry bureau office party union league club bank fund trust network times post journal
    news press records studios studio airlines airways organization organisation center centre
    museum hospital church court parliament congress senate army navy force police service
    board federation alliance laboratory laboratories labs""".split()
)
_PLACE_SUFFIX = frozenset(
    """river city county state province island islands mountain mountains lake sea ocean bay
    valley street avenue road park district region republic kingdom empire desert peninsula
    coast falls canyon village town tower bridge building palace cathedral castle stadium
    airport station square hall""".split()
)
_PLACE_PREPS = frozenset("in at from near into across outside inside throughout".split())


@dataclass(frozen=True, slots=True)
class Fact:
    """A fact token of a text: its span, surface form and kind."""

    start: int
    end: int
    text: str
    kind: str  # year, number, percent, decimal, month, weekday, person, place, org, name
    tokens: int = 1


def _name_kind(text: str, before: str) -> str:
    words = text.split()
    last = words[-1].lower().strip(".")
    first = words[0].lower().strip(".")
    prev = before.split()[-1].lower().strip(".,;:") if before.split() else ""
    if len(words) == 1 and len(text) >= 2 and text.isupper():
        return "acronym"  # NASA, ATP: swapped only for other acronyms
    if last in _ORG_SUFFIX or (first in _ORG_SUFFIX and len(words) > 2 and words[1] == "of"):
        return "org"
    if last in _PLACE_SUFFIX:
        return "place"
    if prev in _TITLES:
        return "person"
    if prev in _PLACE_PREPS:
        return "place"
    return "name"


def find_facts(text: str) -> list[Fact]:
    """Numbers, years, months, weekdays and proper names of ``text`` with their spans."""
    facts: list[Fact] = []
    for m in _NUMBER.finditer(text):
        whole, frac, pct = m.group(1), m.group(2), m.group(3)
        if pct:
            kind = "percent"
        elif frac:
            kind = "decimal"
        elif len(whole) == 4 and whole.isdigit() and 1000 <= int(whole) <= 2099:
            kind = "year"
        else:
            kind = "number"
        facts.append(Fact(m.start(), m.end(), m.group(0), kind))
    sentence_starts = {s for s, _ in split_sentences(text)} | {0}
    for m in _NAME.finditer(text):
        start, surface = m.start(), m.group(0)
        words = surface.split()
        # Drop a leading non-name word ("The", "In") and any trailing connector.
        while words and words[0].lower().strip(".") in _NOT_NAMES:
            start += len(words[0])
            start += len(surface[len(words[0]) :]) - len(surface[len(words[0]) :].lstrip())
            surface = surface[len(words[0]) :].lstrip()
            words = surface.split()
        if surface.endswith(("'s", "’s")):
            surface = surface[:-2]
            words = surface.split()
        if not words:
            continue
        low = surface.lower()
        if low in _MONTH_SET or low in _WEEKDAY_SET or low.removesuffix("s") in _WEEKDAY_SET:
            kind = "month" if low in _MONTH_SET else "weekday"
            facts.append(Fact(start, start + len(surface), surface, kind))
            continue
        if any(w.lower() in _MONTH_SET | _WEEKDAY_SET for w in words):
            continue  # "May 2020" style runs: the month alone is handled above
        if len(words) == 1 and (
            start in sentence_starts or len(surface) < 2 or (surface.isupper() and len(surface) < 3)
        ):
            continue  # a sentence-initial capital is not evidence of a name
        before = text[max(0, start - 30) : start]
        facts.append(
            Fact(start, start + len(surface), surface, _name_kind(surface, before), len(words))
        )
    facts.sort(key=lambda f: f.start)
    return facts
