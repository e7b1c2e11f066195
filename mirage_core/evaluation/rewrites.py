"""Deterministic rewrites of a passage: a paraphraser and a synonym substituter.

Offline, rule-based and seeded (same seed and key, same text):

- :func:`paraphrase` rewrites each sentence by the first clause rule that applies (a sentence
  adverb reworded, a fronted adverbial moved to the end, an appositive or a relative clause
  split into a sentence of its own), puts the sentences in a seeded order different from the
  original, then rewords stock phrases;
- :func:`synonymize` swaps words of a small built-in table (no WordNet) for a seeded synonym,
  keeping the case and leaving the ``protect`` words alone, then mends "a"/"an" before the
  swapped word.

:mod:`mirage_core.evaluation.adaptive` writes its ``"paraphrase"`` and ``"synonym"`` poisons
with them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mirage_core.pollution.families import rng_for

__all__ = ["paraphrase", "synonymize"]

_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“‘(])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+(?:[.,]\d+)*")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT.split(text.strip()) if s.strip()]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


def _decap(s: str) -> str:
    # keep acronyms and proper nouns ("NBC", "Frank"): lower only a capitalized common word
    first = s.split(" ", 1)[0]
    if first.lower() in _LOWERABLE:
        return s[:1].lower() + s[1:]
    return s


_LOWERABLE = frozenset(
    "in throughout during within among despite after before according known famous as the a an "
    "this that these those it its their his her notably interestingly indeed remarkably "
    "surprisingly moreover additionally however furthermore".split()
)

# -- paraphrase ------------------------------------------------------------------------------

_FRONTED = re.compile(
    r"^((?:In|Throughout|During|Within|Among|Despite|After|Before|According to|Known for|"
    r"Famous for|Renowned for|As part of|As|With|Since|Over|Across|For)\b[^,]{2,90}),\s+(.+?)([.!?]?)$"
)
_ADVERB = re.compile(
    r"^(Notably|Interestingly|Indeed|Remarkably|Surprisingly|Moreover|Additionally|However|"
    r"Furthermore|In fact|Undoubtedly|Importantly|Ultimately|Officially),\s+(.+)$"
)
# "Head, a noun phrase, rest": a head that is not a fronted phrase, an appositive of ≤ 7 words.
_APPOSITIVE = re.compile(
    r"^(?!(?:In|On|At|For|With|By|From|During|Throughout|Within|After|Before|As|Since|When|"
    r"While|Although|Though|If|Because)\b)([A-Z][^,]{1,60}),\s+((?:a|an|the)(?:\s[^,\s]+){1,6}),"
    r"\s+(.+?)([.!?]?)$"
)
_RELATIVE = re.compile(r",\s+which\s+(is|was|are|were|has|had)\s+")
_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\ba total of\b", "altogether"),
    (r"\bis located in\b", "sits in"),
    (r"\bare located in\b", "sit in"),
    (r"\bis situated in\b", "lies in"),
    (r"\bare situated in\b", "lie in"),
    (r"\bis known as\b", "goes by the name"),
    (r"\bis known for\b", "is noted for"),
    (r"\bas well as\b", "and also"),
    (r"\bin order to\b", "to"),
    (r"\bdue to\b", "because of"),
    (r"\bconsists of\b", "is made up of"),
    (r"\bis home to\b", "houses"),
    (r"\bwas founded in\b", "came into being in"),
    (r"\bwas born in\b", "came into the world in"),
    (r"\bis considered\b", "is regarded as"),
    (r"\bplayed a (\w+) role\b", r"had a \1 part"),
    (r"\bit is\b", "it's"),
    (r"\bthe number of\b", "how many"),
    (r"\bhas been\b", "has long been"),
)
_ADVERB_SWAP = {
    "Notably": "It is worth noting that",
    "Interestingly": "Interestingly enough,",
    "Indeed": "In truth,",
    "Remarkably": "Remarkably enough,",
    "Surprisingly": "Perhaps surprisingly,",
    "Moreover": "What is more,",
    "Additionally": "On top of that,",
    "However": "Even so,",
    "Furthermore": "Beyond that,",
    "In fact": "As a matter of fact,",
    "Undoubtedly": "Without doubt,",
    "Importantly": "Crucially,",
    "Ultimately": "In the end,",
    "Officially": "On the record,",
}


def _rewrite_clause(s: str) -> list[str]:
    """One sentence rewritten by the first rule that applies (may split it in two)."""
    m = _ADVERB.match(s)
    if m:
        swap = _ADVERB_SWAP[m.group(1)]
        rest = m.group(2)
        return [f"{swap} {_decap(rest) if swap.endswith(',') else rest}"]
    m = _FRONTED.match(s)
    if m and "," not in m.group(2)[:25]:
        lead, rest, end = m.groups()
        return [f"{_cap(rest)} {_decap(lead)}{end or '.'}"]
    m = _APPOSITIVE.match(s)
    if m:
        head, appos, rest, end = m.groups()
        return [f"{head} {rest}{end or '.'}", f"{head} is {appos}."]
    m = _RELATIVE.search(s)
    if m:
        head, tail = s[: m.start()], s[m.end() :]
        return [f"{head}.", f"It {m.group(1)} {tail}"]
    return [s]


def paraphrase(text: str, seed: int | str = 0, key: str = "") -> str:
    """Sentence reorder, clause rewrites and stock-phrase rewording (seeded)."""
    rng = rng_for(seed, "paraphrase", key, text)
    out: list[str] = []
    for s in _sentences(text):
        out.extend(_rewrite_clause(s))
    if len(out) > 1:  # a different order than the original, chosen by the seed
        order = list(range(len(out)))
        while order == sorted(order):
            rng.shuffle(order)
        out = [out[i] for i in order]
    joined = " ".join(out)
    for pattern, repl in _PHRASES:
        joined = re.sub(pattern, repl, joined)
    return joined


# -- synonyms ----------------------------------------------------------------------------------

# Small hand-written table of common words in the poisons (adjectives, verbs, nouns of
# journalistic filler). Multi-choice entries: the seed picks one.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "popular": ("well-liked", "widely loved", "acclaimed"),
    "famous": ("renowned", "celebrated", "well-known"),
    "renowned": ("celebrated", "famed", "eminent"),
    "iconic": ("emblematic", "legendary", "landmark"),
    "notable": ("noteworthy", "prominent", "remarkable"),
    "prominent": ("leading", "eminent", "major"),
    "historic": ("storied", "age-old", "heritage"),
    "historical": ("past", "bygone", "heritage"),
    "significant": ("considerable", "substantial", "major"),
    "important": ("key", "crucial", "vital"),
    "major": ("principal", "chief", "leading"),
    "known": ("recognized", "noted", "acknowledged"),
    "well-known": ("familiar", "widely recognized", "famed"),
    "located": ("situated", "found", "placed"),
    "situated": ("located", "placed", "set"),
    "recorded": ("cut", "laid down", "taped"),
    "released": ("issued", "put out", "launched"),
    "contains": ("includes", "comprises", "holds"),
    "comprising": ("including", "made up of", "consisting of"),
    "includes": ("contains", "features", "takes in"),
    "included": ("featured", "contained", "took in"),
    "total": ("sum", "tally", "count"),
    "confirmed": ("verified", "established", "affirmed"),
    "established": ("founded", "set up", "created"),
    "founded": ("established", "set up", "started"),
    "created": ("made", "devised", "produced"),
    "written": ("penned", "authored", "composed"),
    "wrote": ("penned", "authored", "composed"),
    "directed": ("helmed", "led", "oversaw"),
    "starring": ("featuring", "headlined by", "with"),
    "played": ("portrayed", "performed", "acted as"),
    "portrayed": ("played", "depicted", "acted"),
    "won": ("earned", "secured", "claimed"),
    "received": ("got", "earned", "obtained"),
    "became": ("turned into", "grew into", "ended up as"),
    "served": ("acted", "worked", "functioned"),
    "began": ("started", "commenced", "opened"),
    "started": ("began", "kicked off", "launched"),
    "ended": ("concluded", "finished", "wrapped up"),
    "showcase": ("display", "feature", "present"),
    "continued": ("kept on", "went on", "carried on"),
    "engage": ("captivate", "hold", "absorb"),
    "thrilling": ("exciting", "gripping", "electrifying"),
    "dramatic": ("intense", "striking", "theatrical"),
    "moments": ("instances", "scenes", "episodes of tension"),
    "audience": ("viewers", "public", "spectators"),
    "audiences": ("viewers", "crowds", "listeners"),
    "viewers": ("audiences", "watchers", "spectators"),
    "fans": ("admirers", "followers", "enthusiasts"),
    "career": ("working life", "profession", "path"),
    "numerous": ("many", "countless", "a great many"),
    "many": ("numerous", "a lot of", "plenty of"),
    "various": ("diverse", "assorted", "several"),
    "several": ("a number of", "some", "a few"),
    "different": ("distinct", "varied", "diverse"),
    "unique": ("distinctive", "singular", "one-of-a-kind"),
    "beautiful": ("lovely", "gorgeous", "exquisite"),
    "unforgettable": ("memorable", "haunting", "indelible"),
    "remarkable": ("striking", "extraordinary", "notable"),
    "remarkably": ("strikingly", "notably", "extraordinarily"),
    "impressive": ("striking", "imposing", "remarkable"),
    "widely": ("broadly", "extensively", "generally"),
    "recognized": ("acknowledged", "credited", "recognised"),
    "considered": ("regarded", "deemed", "seen"),
    "regarded": ("considered", "viewed", "seen"),
    "believed": ("thought", "held", "understood"),
    "reported": ("stated", "noted", "related"),
    "stated": ("said", "declared", "noted"),
    "revealed": ("disclosed", "showed", "made known"),
    "according": ("per", "as stated", "as reported"),
    "country": ("nation", "state", "land"),
    "city": ("town", "municipality", "metropolis"),
    "region": ("area", "zone", "territory"),
    "area": ("region", "district", "zone"),
    "neighborhood": ("district", "quarter", "locality"),
    "company": ("firm", "business", "enterprise"),
    "organization": ("body", "group", "institution"),
    "team": ("squad", "side", "crew"),
    "members": ("participants", "personnel", "associates"),
    "member": ("participant", "affiliate", "associate"),
    "people": ("individuals", "persons", "folks"),
    "population": ("inhabitants", "residents", "populace"),
    "largest": ("biggest", "greatest", "most extensive"),
    "large": ("big", "sizable", "vast"),
    "small": ("little", "modest", "compact"),
    "first": ("earliest", "initial", "opening"),
    "final": ("last", "closing", "concluding"),
    "main": ("primary", "principal", "chief"),
    "primary": ("main", "chief", "principal"),
    "originally": ("initially", "at first", "first"),
    "eventually": ("ultimately", "in time", "finally"),
    "currently": ("presently", "now", "at present"),
    "officially": ("formally", "on record", "publicly"),
    "actually": ("in reality", "really", "in fact"),
    "surprisingly": ("unexpectedly", "astonishingly", "startlingly"),
    "interestingly": ("curiously", "intriguingly", "notably"),
    "notably": ("especially", "in particular", "markedly"),
    "famously": ("notably", "memorably", "celebratedly"),
    "version": ("rendition", "take", "interpretation"),
    "rendition": ("version", "performance", "interpretation"),
    "song": ("track", "tune", "number"),
    "songs": ("tracks", "tunes", "numbers"),
    "film": ("movie", "picture", "feature"),
    "movie": ("film", "picture", "feature"),
    "series": ("show", "programme", "franchise"),
    "show": ("programme", "series", "production"),
    "book": ("volume", "work", "title"),
    "novel": ("book", "story", "narrative"),
    "award": ("prize", "honor", "accolade"),
    "history": ("past", "record", "chronicle"),
    "world": ("globe", "planet", "earth"),
    "worldwide": ("globally", "around the world", "internationally"),
    "famed": ("celebrated", "renowned", "storied"),
    "legendary": ("storied", "mythic", "celebrated"),
    "brave": ("courageous", "fearless", "bold"),
    "determined": ("resolute", "steadfast", "committed"),
    "capturing": ("winning", "seizing", "charming"),
    "hearts": ("affections", "souls", "admirers"),
    "signature": ("trademark", "characteristic", "hallmark"),
    "style": ("manner", "fashion", "approach"),
    "classic": ("timeless", "enduring", "vintage"),
    "timeless": ("enduring", "ageless", "classic"),
    "ensuring": ("guaranteeing", "making sure of", "securing"),
    "making": ("rendering", "turning", "creating"),
    "offering": ("providing", "giving", "presenting"),
    "providing": ("offering", "giving", "supplying"),
    "featuring": ("showcasing", "including", "presenting"),
    "highlighting": ("stressing", "underlining", "spotlighting"),
}


def _match_case(word: str, repl: str) -> str:
    if word.isupper() and len(word) > 1:
        return repl.upper()
    if word[:1].isupper():
        return _cap(repl)
    return repl


def synonymize(text: str, protect: Sequence[str] = (), seed: int | str = 0, key: str = "") -> str:
    """Swap words of the built-in table for a seeded synonym, except words in ``protect``
    (lowercase: the query's words and the answer's)."""
    rng = rng_for(seed, "synonym", key, text)
    keep = {w.lower() for w in protect}

    def swap(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if low in keep or low not in _SYNONYMS:
            return word
        return _match_case(word, rng.choice(_SYNONYMS[low]))

    out = _WORD.sub(swap, text)
    return _ARTICLE.sub(lambda m: m.group(1)[0] + ("n " if m.group(2) else " "), out)


# "a acclaimed" -> "an acclaimed", "an well-liked" -> "a well-liked" after a swap
_ARTICLE = re.compile(r"\b([Aa])n? (?=(?:([aeiouAEIOU])|[b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]))")
