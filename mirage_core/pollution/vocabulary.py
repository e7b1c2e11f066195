"""The words and patterns the rule-based polluter edits with, one group per family.

- **conflicting** — antonym pairs (``increased`` / ``decreased``) and the negation patterns:
  where ``not`` can be inserted after an auxiliary, where it can be removed, and a negation
  just before a word (which rules out an antonym swap there);
- **misleading** — the frames that cast doubt on a true sentence, the sentence openers that a
  frame lowercases, and the degree / scope words with their weaker counterparts (``most`` →
  ``few``);
- **fabricated** — the verbs that mark an event (a cost or date can be attached), the name
  endings that take no article, and generic organisations for an attribution.

:mod:`mirage_core.pollution.rules` makes its edits with them.
"""

from __future__ import annotations

import re

# -- conflicting: polarity -------------------------------------------------------------------

_ANTONYM_PAIRS = [
    ("increased", "decreased"),
    ("increase", "decrease"),
    ("increases", "decreases"),
    ("increasing", "decreasing"),
    ("rose", "fell"),
    ("rise", "fall"),
    ("rises", "falls"),
    ("higher", "lower"),
    ("highest", "lowest"),
    ("more", "fewer"),
    ("larger", "smaller"),
    ("largest", "smallest"),
    ("bigger", "smaller"),
    ("biggest", "smallest"),
    ("before", "after"),
    ("earlier", "later"),
    ("won", "lost"),
    ("win", "lose"),
    ("wins", "loses"),
    ("true", "false"),
    ("approved", "rejected"),
    ("accepted", "rejected"),
    ("supported", "opposed"),
    ("supports", "opposes"),
    ("support", "oppose"),
    ("allowed", "banned"),
    ("legal", "illegal"),
    ("safe", "unsafe"),
    ("effective", "ineffective"),
    ("successful", "unsuccessful"),
    ("likely", "unlikely"),
    ("possible", "impossible"),
    ("able", "unable"),
    ("present", "absent"),
    ("strong", "weak"),
    ("stronger", "weaker"),
    ("positive", "negative"),
    ("gained", "lost"),
    ("opened", "closed"),  # before ("open", "closed"): "closed in 2001" is a past tense
    ("open", "closed"),
    ("began", "ended"),
    ("first", "last"),
    ("confirmed", "denied"),
    ("confirms", "denies"),
    ("agreed", "refused"),
    ("included", "excluded"),
    ("includes", "excludes"),
    ("above", "below"),
    ("north", "south"),
    ("east", "west"),
    ("reduces", "raises"),
    ("reduced", "raised"),
    ("lowers", "raises"),
    ("lowered", "raised"),
    ("benefits", "harms"),
    ("cheaper", "costlier"),
    ("faster", "slower"),
    ("older", "younger"),
    ("oldest", "youngest"),
    ("majority", "minority"),
    ("guilty", "innocent"),
    ("alive", "dead"),
    ("public", "private"),
    ("always", "never"),
    ("common", "rare"),
    ("ancient", "modern"),
    ("male", "female"),
    ("success", "failure"),
    ("victory", "defeat"),
    ("expanded", "shrank"),
    ("improved", "worsened"),
    ("improves", "worsens"),
    ("helped", "hindered"),
    ("proved", "disproved"),
]
_ANTONYMS: dict[str, str] = {}
for _a, _b in _ANTONYM_PAIRS:
    _ANTONYMS.setdefault(_a, _b)
    _ANTONYMS.setdefault(_b, _a)
# "won" in "won't" is the auxiliary "will", not the verb: the negation rules flip it instead.
_ANTONYM_RE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _ANTONYMS), key=len, reverse=True)) + r")\b"
    r"(?!['’]t\b)",
    re.IGNORECASE,
)

# Contractions are read with either apostrophe: web pages mostly write the typographic one.
_NEGATED_BEFORE = re.compile(r"(?:\bnot|n['’]t|\bnever|\bno)\b(?:\s+\w+)?\s*$", re.IGNORECASE)
_BE = r"is|are|was|were"
_MODAL = r"can|could|will|would|should|may|might|must"
_PERFECT = r"has|have|had"
# Past participles after has / have / had: a regular one (not a noun in "-eed": "had need"),
# or an irregular one of a closed list ("had children", "has eleven" hold no participle).
_IRREGULAR_EN = (
    "been taken given written seen known shown grown drawn chosen driven eaten fallen forgotten "
    "frozen hidden ridden risen spoken stolen sworn thrown woken beaten broken proven forbidden "
    "gotten mistaken undertaken overtaken arisen bitten shaken awoken forgiven"
).split()
_PARTICIPLE = rf"(?:(?!\w*eed\b)\w{{2,}}ed|{'|'.join(_IRREGULAR_EN)})\b"
_NEG_INSERT = re.compile(
    rf"\b(?:({_BE})\s+(?!not\b|n['’]t|never\b)(?=[a-z])|({_MODAL})\s+(?!not\b|never\b)(?=[a-z])|({_PERFECT})\s+(?={_PARTICIPLE}))",
)
_NEG_REMOVE = re.compile(
    r"\b(?:(is|are|was|were|do|does|did|has|have|had|could|would|should|will|must|might|may) not\b|(can)not\b|"
    r"(is|are|was|were|does|did|do|has|have|had|could|would|should)n['’]t\b|(wo)n['’]t\b|(ca)n['’]t\b)",
    re.IGNORECASE,
)


# -- misleading: frames and degree shifts ---------------------------------------------------

_FRAMES = (
    ("Early reports claimed that ", ", but this was later disputed."),
    ("It was once widely believed that ", ", a view that has since been abandoned."),
    ("Some accounts suggest that ", ", although the evidence for this remains thin."),
    ("Critics have long questioned the claim that ", "."),
)
_DEGREE = {
    "most": "few",
    "many": "few",
    "all": "some",
    "always": "occasionally",
    "often": "rarely",
    "usually": "rarely",
    "significantly": "slightly",
    "largely": "partly",
    "mostly": "partly",
    "widely": "rarely",
    "strongly": "weakly",
    "primarily": "partly",
    "mainly": "partly",
    "major": "minor",
    "main": "minor",
    "key": "minor",
    "leading": "marginal",
    "frequently": "rarely",
    "greatly": "slightly",
    "substantially": "marginally",
    "dramatically": "modestly",
    "sharply": "slightly",
    "entirely": "partly",
    "completely": "partly",
    "overwhelmingly": "narrowly",
    "vast": "small",
    "huge": "modest",
    "massive": "modest",
    "numerous": "few",
    "several": "few",
}
_DEGREE_RE = re.compile(
    r"\b(" + "|".join(sorted(_DEGREE, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
#: Degree words that are also a verb's -ing form, read as a verb before these words
#: ("leading to evacuations", "leading the team"), where no degree shift applies.
_DEGREE_VERB_BEFORE = {"leading": frozenset("to up the a an his her their its our my".split())}
#: "most" after "the" is a superlative ("the most famous"): its opposite is "least".
_SUPERLATIVE_MOST = re.compile(r"\bthe\s+$", re.IGNORECASE)
_LOWER_FIRST = frozenset(
    "the a an this that these those it its there in on at for after before during many most some".split()
)

# -- fabricated: plausible details -----------------------------------------------------------

_EVENT_VERB = re.compile(
    r"\b(built|constructed|completed|opened|launched|renovated|restored|developed|produced|founded|"
    r"established|designed|installed|expanded|announced|signed|released|held|introduced|published|"
    r"approved|passed|discovered|created|began|started)\b",
    re.IGNORECASE,
)
_NO_ARTICLE = frozenset("university college inc corp corporation ltd llc co plc".split())
_GENERIC_ORGS = (
    "an independent review panel",
    "a regional oversight board",
    "a university research team",
)
