"""One fact written two ways: the forms a sentence states beyond its own tokens.

Fact coverage (:mod:`mirage_core.corroboration`) and the answer-slot rule
(:mod:`mirage_core.answer_conflict`) compare fact tokens (:func:`mirage_core.factcheck.fact_tokens`)
as written, so two honest pages that give one fact in different forms neither corroborate each
other in it nor agree on it: "3 km" / "3,000 metres", "two" / "2", "García Márquez" / "Garcia
Marquez". With ``MethodSettings.fact_forms="equivalent"`` they read these forms alike:

- a token without accents and, for a decimal number, without trailing zeros (:func:`fold`);
- a number with a scale word as its value: "1.5 million" states 1500000 (:func:`scaled_facts`
  gives a claim's facts that way too, so "1.5 million" and "1,500,000" state the same fact);
- a number word as its digits: "twenty-five" states 25, "thirteenth" and "twenty-first" state
  13 and 21, as "13th" and "21st" do (number words are not facts of their own: a claim with
  "two" asks no supporter to state it);
- a percentage in words or with the sign: "40 percent" states 40%, "40%" states 40;
- a measure in the other units of its kind: "3 km" states 3000 (metres) and 300000
  (centimetres); across metric and imperial units the converted value is rounded (to a whole
  number from 100 up, else to one decimal), so "8,849 m" states 29032 (feet);
- an ISO date's month: "1969-07-20" states July;
- a number given as approximate ("c. 500", "about 1,100 feet") is a fact of its own,
  "~500" (:func:`approximate_facts`), and every number states itself rounded to one, two and
  three significant figures as such a fact: "505" states ~500 and ~510, so "c. 500" and "505"
  agree, while a plain "500" still needs a source that states 500.

Forms are only ever *added* to what a text states (:func:`stated_forms`), so the reading
vouches for more and calls fewer conflicts; it never makes a fact of a word that was none.
"""

from __future__ import annotations

import math
import re
import unicodedata

from mirage_core.factcheck import MONTH_NAMES, fact_tokens
from mirage_core.memo import text_memo

__all__ = [
    "added_forms",
    "approximate_facts",
    "fact_form",
    "fold",
    "number_form",
    "scaled_facts",
    "stated_forms",
]

_UNITS = "zero one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_VALUE = {w: i for i, w in enumerate(_UNITS)} | {w: 10 + i for i, w in enumerate(_TEENS)}
_TENS_VALUE = {w: 20 + 10 * i for i, w in enumerate(_TENS)}
#: ordinal number words; a lone "first" or "second" is left out: more often an adverb or a unit
#: of time than a rank ("at first", "a second"), while in "twenty-first" it is a number
_ORDINAL_UNITS = "first second third fourth fifth sixth seventh eighth ninth".split()
_ORDINAL_TEENS = (
    "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
    "nineteenth"
).split()
_ORDINAL_TENS = (
    "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split()
)
_ORDINAL_VALUE = (
    {w: 1 + i for i, w in enumerate(_ORDINAL_UNITS)}
    | {w: 10 + i for i, w in enumerate(_ORDINAL_TEENS)}
    | {w: 20 + 10 * i for i, w in enumerate(_ORDINAL_TENS)}
)
# Alternatives in this order: at one position a compound ordinal ("twenty-first") is read
# before the cardinal it starts with ("twenty").
_NUMBER_WORD = re.compile(
    rf"\b(?:(?P<otens>{'|'.join(_TENS)})[- ](?P<ounit>{'|'.join(_ORDINAL_UNITS)})"
    rf"|(?P<tens>{'|'.join(_TENS)})(?:[- ](?P<unit>{'|'.join(_UNITS[1:])}))?"
    rf"|(?P<ordinal>{'|'.join(_ORDINAL_UNITS[2:] + _ORDINAL_TEENS + _ORDINAL_TENS)})"
    rf"|(?P<word>{'|'.join(_UNITS + _TEENS)}))\b"
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}
_NUMERAL = r"\d+(?:,\d{3})*(?:\.\d+)?"
_SCALED = re.compile(
    rf"(?P<num>{_NUMERAL})\s*(?P<scale>thousand|million|billion|trillion|bn)\b"
    rf"|[$£€](?P<cur>{_NUMERAL})m\b"
)
# "c." after a period is an initial ("Washington, D.C. 2005"), not "circa"
_APPROXIMATE = re.compile(
    rf"(?:(?<!\.)\bc\.|(?<!\.)\bca\.|\bcirca|\babout|\baround|\bapproximately|\broughly|\bnearly"
    rf"|\balmost|\bestimated|~)\s*[$£€]?(?P<num>{_NUMERAL})"
)
_PERCENT_WORDS = re.compile(rf"(?P<num>{_NUMERAL})\s*(?:percent|per cent)\b")
_PERCENT_SIGN = re.compile(rf"(?P<num>{_NUMERAL})%")
_ISO_DATE = re.compile(r"\b\d{4}-(?P<month>0[1-9]|1[0-2])-\d{2}\b")

# unit → (kind, system, size in the kind's base unit)
_UNIT_SIZES: dict[str, tuple[str, str, float]] = {}
for names, kind, system, size in (
    ("mm millimetre millimetres millimeter millimeters", "length", "metric", 0.001),
    ("cm centimetre centimetres centimeter centimeters", "length", "metric", 0.01),
    ("m metre metres meter meters", "length", "metric", 1.0),
    ("km kilometre kilometres kilometer kilometers", "length", "metric", 1000.0),
    ("inch inches", "length", "imperial", 0.0254),
    ("ft foot feet", "length", "imperial", 0.3048),
    ("yd yard yards", "length", "imperial", 0.9144),
    ("mi mile miles", "length", "imperial", 1609.344),
    ("g gram grams", "mass", "metric", 0.001),
    ("kg kilogram kilograms", "mass", "metric", 1.0),
    ("tonne tonnes", "mass", "metric", 1000.0),
    ("lb lbs pound pounds", "mass", "imperial", 0.45359237),
    ("oz ounce ounces", "mass", "imperial", 0.028349523125),
):
    for name in names.split():
        _UNIT_SIZES[name] = (kind, system, size)
#: Each unit once (its aliases share one entry), for the conversions of a measure.
_DISTINCT_UNITS = sorted(set(_UNIT_SIZES.values()))
_MEASURE = re.compile(
    rf"(?<![$£€\w.,])(?P<num>{_NUMERAL})[ -]?(?P<unit>{'|'.join(sorted(_UNIT_SIZES, key=len, reverse=True))})\b"
)
_DEGREES = re.compile(
    rf"(?P<num>-?{_NUMERAL})\s*(?:°\s*|degrees?\s+)(?P<scale>c|f|celsius|fahrenheit)\b"
)


def fold(token: str) -> str:
    """``token`` (lower-cased, as :func:`~mirage_core.factcheck.fact_tokens` gives it) without
    accents, and for a decimal number without trailing zeros: "márquez" → "marquez",
    "3.50" → "3.5"."""
    if token[:1].isdigit():
        if "." in token and not token.endswith("%"):
            token = token.rstrip("0").rstrip(".")
        return token
    if token.isascii():
        return token
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def number_form(value: float) -> str:
    """``value`` written as :func:`fold` writes a number token: 1500000.0 → "1500000",
    3.10 → "3.1"."""
    if not math.isfinite(value):  # a numeral of hundreds of digits
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _value(numeral: str) -> float:
    return float(numeral.replace(",", ""))


@text_memo()
def scaled_facts(text: str) -> dict[str, str]:
    """Number tokens of ``text`` that a scale word follows, with their value: "1.5 million" →
    ``{"1.5": "1500000"}``; "$28m" → ``{"28": "28000000"}``."""
    out = {}
    for m in _SCALED.finditer(text.lower()):
        numeral = m.group("num") or m.group("cur")
        scale = _SCALES[m.group("scale")] if m.group("num") else 1e6
        out[fold(numeral.replace(",", ""))] = number_form(_value(numeral) * scale)
    return out


@text_memo()
def approximate_facts(text: str) -> frozenset[str]:
    """The number tokens of ``text`` (folded) given as approximate: "c. 500", "about 1,100
    feet", "roughly $3 million" (its numeral, "3")."""
    return frozenset(
        fold(m.group("num").replace(",", "")) for m in _APPROXIMATE.finditer(text.lower())
    )


def fact_form(token: str, text: str) -> str:
    """The form one fact token of ``text`` is compared in: folded, a number with a scale word
    as its value, and an approximate number marked as such ("c. 500" → "~500")."""
    folded = fold(token)
    value = scaled_facts(text).get(folded, folded)
    return approximate_form(value) if folded in approximate_facts(text) else value


def approximate_form(value: str) -> str:
    """The fact an approximate number ``value`` (a folded number token) is: ``"~" + value``."""
    return "~" + value


def _rounded_forms(value: float) -> set[str]:
    """``value`` as an approximate fact, itself and rounded half up to one, two and three
    significant figures: 505 → ~505, ~500, ~510; nothing for a numeral too large for a float."""
    if not math.isfinite(value):
        return set()
    out = {approximate_form(number_form(value))}
    if value <= 0:
        return out
    magnitude = math.floor(math.log10(value))
    for figures in (1, 2, 3):
        step = 10.0 ** (magnitude - figures + 1)
        out.add(approximate_form(number_form(round(math.floor(value / step + 0.5) * step, 6))))
    return out


def _measure_forms(value: float, unit: str) -> set[str]:
    kind, system, size = _UNIT_SIZES[unit]
    base = value * size
    out: set[str] = set()
    if not math.isfinite(base):
        return out
    for other_kind, other_system, other_size in _DISTINCT_UNITS:
        if other_kind != kind:
            continue
        x = base / other_size
        if other_system == system:
            if x >= 0.001 and abs(x - round(x, 3)) < 1e-9 * max(1.0, x):
                out.add(number_form(round(x, 3)))
        elif x >= 100:
            out.add(number_form(round(x)))
        elif x >= 1:
            out.add(number_form(round(x, 1)))
    return out


def _degree_forms(value: float, scale: str) -> set[str]:
    other = value * 9 / 5 + 32 if scale.startswith("c") else (value - 32) * 5 / 9
    if not math.isfinite(other):
        return set()
    return {number_form(round(other)), number_form(round(other, 1))}


@text_memo()
def added_forms(text: str) -> frozenset[str]:
    """The forms ``text`` states beyond its own tokens: the values its scale words, number
    words (cardinal and ordinal), percentages, measures and ISO dates give, and its numbers as
    approximate facts ("3 km" → 3000, 300000, …; "two" → 2; "505" → ~500, ~510, ~505)."""
    out: set[str] = set(scaled_facts(text).values())
    low = text.lower()
    for m in _NUMBER_WORD.finditer(low):
        if m.group("word"):
            out.add(str(_WORD_VALUE[m.group("word")]))
        elif m.group("ordinal"):
            out.add(str(_ORDINAL_VALUE[m.group("ordinal")]))
        elif m.group("otens"):
            out.add(str(_TENS_VALUE[m.group("otens")] + _ORDINAL_VALUE[m.group("ounit")]))
        else:
            unit = _WORD_VALUE[m.group("unit")] if m.group("unit") else 0
            out.add(str(_TENS_VALUE[m.group("tens")] + unit))
    for m in _PERCENT_WORDS.finditer(low):
        out.add(number_form(_value(m.group("num"))) + "%")
    for m in _PERCENT_SIGN.finditer(low):
        out.add(number_form(_value(m.group("num"))))
    for m in _MEASURE.finditer(low):
        out.update(_measure_forms(_value(m.group("num")), m.group("unit")))
    for m in _DEGREES.finditer(low):
        out.update(_degree_forms(_value(m.group("num")), m.group("scale")))
    for m in _ISO_DATE.finditer(low):
        out.add(MONTH_NAMES[int(m.group("month")) - 1])
    numbers = {t for t, kind in fact_tokens(text) if kind == "number" and not t.endswith("%")}
    for number in numbers | set(scaled_facts(text).values()):
        try:
            out.update(_rounded_forms(float(number)))
        except ValueError:  # "1.2.3": no single value
            continue
    return frozenset(out)


@text_memo()
def stated_forms(text: str) -> frozenset[str]:
    """What ``text`` states, read in every form above: its tokens folded (:func:`fold`) and
    :func:`added_forms`."""
    return frozenset({fold(t) for t, _ in fact_tokens(text)} | added_forms(text))
