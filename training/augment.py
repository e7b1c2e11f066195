"""Seeded NLI augmentation aimed at what retrieval pollution looks like.

From plain sentences (training sentences only, never benchmark data) the :class:`Augmenter`
builds labelled pairs:

* **contradiction** — a minimal edit of the sentence: a number changed (``number``), a year or
  decade shifted (``year``), a month / weekday swapped (``date``), a named entity replaced by
  another of the same kind found in the corpus (``entity:<kind>``: country, US state, city,
  nationality, person, colour), a negation added or removed (``negation``), a word replaced by
  its antonym (``antonym``). The edit is applied either to the sentence itself or to a shortened
  entailed version of it, and premise/hypothesis are randomly ordered (contradiction is symmetric).
* **entailment** — paraphrase-like pairs: a clause or parenthetical dropped from the hypothesis
  (``clause_drop``, ``paren_drop``), a fronted phrase or coordinated clause moved (``reorder``),
  or the sentence itself (``identity``).
* **neutral** — a shortened sentence as premise and the full one as hypothesis (the hypothesis
  adds a detail the premise does not state, ``added_detail``), and pairs of unrelated sentences,
  random (``unrelated``) or sharing a content word (``topical``), so that unrelated text comes out
  neutral rather than contradiction.

Every method takes a ``random.Random``; the same seed and corpus always give the same pairs.
Entity substitutes come from the gazetteers below *filtered to the names that occur in the
corpus the augmenter was built from*.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from training.data import NLIExample

_T = TypeVar("_T")

__all__ = [
    "CONTRADICTION_KINDS",
    "Augmenter",
    "Edit",
    "in_random_order",
    "paraphrase",
    "paraphrase_pairs",
    "question_pairs",
    "to_question",
]

CONTRADICTION_KINDS = ("number", "year", "date", "entity", "negation", "antonym")

_COUNTRIES = """Afghanistan Albania Algeria Argentina Armenia Australia Austria Bangladesh Belgium
Bolivia Brazil Bulgaria Cambodia Cameroon Canada Chile China Colombia Croatia Cuba Denmark Egypt
England Estonia Ethiopia Finland France Germany Ghana Greece Haiti Hungary Iceland India Indonesia
Iran Iraq Ireland Israel Italy Jamaica Japan Jordan Kenya Korea Kuwait Latvia Lebanon Libya
Lithuania Malaysia Mexico Morocco Nepal Netherlands Nigeria Norway Pakistan Panama Peru Philippines
Poland Portugal Romania Russia Scotland Senegal Serbia Singapore Slovakia Somalia Spain Sudan Sweden
Switzerland Syria Taiwan Tanzania Thailand Tunisia Turkey Uganda Ukraine Uruguay Venezuela Vietnam
Wales Yemen Zambia Zimbabwe""".split()
_STATES = """Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida
Georgia Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts
Michigan Minnesota Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania
Tennessee Texas Utah Vermont Virginia Washington Wisconsin Wyoming""".split()
_CITIES = """Amsterdam Athens Atlanta Baghdad Bangkok Barcelona Beijing Berlin Boston Brussels
Budapest Cairo Calcutta Chicago Dallas Delhi Denver Detroit Dublin Edinburgh Geneva Hamburg
Havana Helsinki Houston Istanbul Jerusalem Kabul Kyoto Lagos Lisbon Liverpool London
Madrid Manchester Manila Melbourne Miami Milan Montreal Moscow Mumbai Munich Nairobi Naples
Oslo Oxford Paris Philadelphia Prague Rome Seattle Seoul Shanghai Stockholm Sydney Tehran Tokyo
Toronto Vancouver Venice Vienna Warsaw Zurich""".split()
_NATIONALITIES = """American Australian Austrian Belgian Brazilian British Canadian Chinese Cuban
Danish Dutch Egyptian English French German Greek Indian Irish Israeli Italian Japanese Korean
Mexican Norwegian Pakistani Polish Portuguese Russian Scottish Spanish Swedish Swiss Turkish
Vietnamese""".split()
_COLOURS = "red blue green yellow black white orange purple pink brown gray grey".split()
_FIRST_NAMES = """James John Robert Michael William David Richard Joseph Thomas Charles Daniel
Matthew Anthony Mark Paul Steven Andrew Kenneth George Edward Brian Ronald Kevin Jason Jeffrey
Gary Timothy Jose Larry Eric Stephen Jacob Frank Jonathan Scott Justin Peter Henry Patrick
Jack Dennis Walter Harold Arthur Albert Samuel Louis Bill Bob Tom Jim Joe Mary Patricia Jennifer
Linda Elizabeth Barbara Susan Jessica Sarah Karen Nancy Lisa Margaret Betty Sandra Ashley
Dorothy Kimberly Emily Donna Michelle Carol Amanda Melissa Deborah Stephanie Rebecca Laura
Sharon Cynthia Kathleen Amy Shirley Angela Helen Anna Ruth Julie Maria Alice Jane Emma""".split()

_MONTHS = """January February March April May June July August September October November
December""".split()
_WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_NUMBER_WORDS = """two three four five six seven eight nine ten eleven twelve twenty thirty forty
fifty hundred""".split()

_ANTONYM_PAIRS = [
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("increases", "decreases"),
    ("rose", "fell"),
    ("rise", "fall"),
    ("rising", "falling"),
    ("higher", "lower"),
    ("more", "fewer"),
    ("before", "after"),
    ("won", "lost"),
    ("win", "lose"),
    ("open", "closed"),
    ("opened", "closed"),
    ("true", "false"),
    ("allowed", "banned"),
    ("larger", "smaller"),
    ("largest", "smallest"),
    ("bigger", "smaller"),
    ("first", "last"),
    ("early", "late"),
    ("earlier", "later"),
    ("above", "below"),
    ("majority", "minority"),
    ("success", "failure"),
    ("successful", "unsuccessful"),
    ("alive", "dead"),
    ("north", "south"),
    ("east", "west"),
    ("northern", "southern"),
    ("eastern", "western"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("supported", "opposed"),
    ("cheap", "expensive"),
    ("young", "old"),
    ("younger", "older"),
    ("happy", "sad"),
    ("inside", "outside"),
    ("always", "never"),
    ("everyone", "no one"),
    ("strong", "weak"),
    ("stronger", "weaker"),
    ("legal", "illegal"),
    ("public", "private"),
    ("possible", "impossible"),
    ("likely", "unlikely"),
    ("male", "female"),
    ("men", "women"),
    ("man", "woman"),
    ("boy", "girl"),
    ("boys", "girls"),
    ("day", "night"),
    ("hot", "cold"),
    ("wet", "dry"),
    ("full", "empty"),
    ("fast", "slow"),
    ("faster", "slower"),
    ("tall", "short"),
    ("gained", "lost"),
    ("profit", "loss"),
    ("entered", "left"),
    ("started", "ended"),
    ("began", "ended"),
    ("arrived", "departed"),
    ("sitting", "standing"),
    ("asleep", "awake"),
    ("empty", "crowded"),
    ("indoors", "outdoors"),
    ("good", "bad"),
    ("best", "worst"),
    ("better", "worse"),
    ("agree", "disagree"),
    ("agreed", "refused"),
    ("include", "exclude"),
    ("included", "excluded"),
    ("private", "public"),
    ("minimum", "maximum"),
    ("rich", "poor"),
]
_ANTONYMS: dict[str, str] = {}
for _a, _b in _ANTONYM_PAIRS:
    _ANTONYMS.setdefault(_a, _b)
    _ANTONYMS.setdefault(_b, _a)

_AUX_NEG = {
    "is": "is not",
    "are": "are not",
    "was": "was not",
    "were": "were not",
    "can": "cannot",
    "will": "will not",
    "would": "would not",
    "could": "could not",
    "should": "should not",
    "has been": "has not been",
    "have been": "have not been",
    "had been": "had not been",
    "does": "does not",
    "did": "did not",
    "do": "do not",
    "must": "must not",
}
_NEG_REMOVE = [
    (r"\bis not\b", "is"),
    (r"\bare not\b", "are"),
    (r"\bwas not\b", "was"),
    (r"\bwere not\b", "were"),
    (r"\bcannot\b", "can"),
    (r"\bcan't\b", "can"),
    (r"\bwill not\b", "will"),
    (r"\bwon't\b", "will"),
    (r"\bisn't\b", "is"),
    (r"\baren't\b", "are"),
    (r"\bwasn't\b", "was"),
    (r"\bweren't\b", "were"),
    (r"\bdoesn't\b", "does"),
    (r"\bdidn't\b", "did"),
    (r"\bdon't\b", "do"),
    (r"\bnever\s+", ""),
    (r"\bno longer\b", "still"),
    (r"\bhas not\b", "has"),
    (r"\bhave not\b", "have"),
    (r"\bhad not\b", "had"),
    (r"\bdid not\b", "did"),
    (r"\bdoes not\b", "does"),
    (r"\bdo not\b", "do"),
    (r"\bwould not\b", "would"),
    (r"\bcould not\b", "could"),
    (r"\bshould not\b", "should"),
]
_NEG_TOKENS = re.compile(
    r"\b(not|never|no|n't|cannot|none|nobody|nothing|neither|nor)\b|n't\b", re.I
)
_CONDITIONAL_START = {
    "if",
    "unless",
    "when",
    "whenever",
    "whether",
    "once",
    "until",
    "as",
    "because",
    "since",
    "so",
    "though",
    "although",
    "while",
    "even",
    "only",
    "perhaps",
}
_REPORTING = re.compile(
    r"^\s*(said|says|say|according|reported|reports|claimed|claims|he|she|they|"
    r"i|we|it|but|or|unless|if|not|though|although|rather|instead|except)\b",
    re.I,
)
_PREPS = {
    "in",
    "on",
    "at",
    "during",
    "after",
    "before",
    "by",
    "since",
    "from",
    "despite",
    "under",
    "for",
    "throughout",
    "following",
    "with",
    "without",
    "outside",
    "inside",
    "near",
}
_STOP = set(
    """a an the of to in on at for by with from and or but is are was were be been being it
its this that these those he she they we i you his her their our my your as not no do does did
has have had will would can could should may might must there here what which who whom whose when
where why how all any some such than then so very just also into about over under more most""".split()
)

#: Preference among applicable edit kinds (factual edits first, as in retrieval pollution).
_KIND_WEIGHTS = {
    "number": 4.0,
    "year": 4.0,
    "date": 3.0,
    "entity": 4.0,
    "negation": 1.5,
    "antonym": 1.0,
}
_FACTUAL_HINT = re.compile(r"\d|\b(" + "|".join(_MONTHS + _WEEKDAYS) + r")\b|\b[a-z]+ [A-Z][a-z]+")

_NUM_RE = re.compile(r"(?<![\w.,/:-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w]|[.,]\d|:\d|/\d)")
_YEAR_RE = re.compile(r"\b(1[5-9]\d\d|20[0-4]\d)(s?)\b")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*")


@dataclass(frozen=True)
class Edit:
    """One generated hypothesis: the text, its label id and the edit kind that produced it."""

    text: str
    kind: str
    label: int


def _case_like(word: str, template: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _fmt_int(value: int, like: str) -> str:
    if "," in like:
        return f"{value:,}"
    return str(value)


def _ensure_period(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in ".!?\"'" else text + "."


_FUNCTION_STARTS = {
    "The",
    "A",
    "An",
    "This",
    "That",
    "These",
    "Those",
    "It",
    "There",
    "Some",
    "Many",
    "Most",
    "Several",
    "Two",
    "Three",
    "His",
    "Her",
    "Their",
    "Our",
    "My",
}


def _decap(text: str) -> str:
    first = text.split()[0] if text.split() else ""
    return text[:1].lower() + text[1:] if first in _FUNCTION_STARTS else text


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


class Augmenter:
    """Builds minimal-edit contradictions, entailing rewrites and neutral pairs from a corpus."""

    def __init__(self, corpus: Iterable[str], *, max_words: int = 45, min_words: int = 4) -> None:
        self.sentences: list[str] = []
        seen: set[str] = set()
        for s in corpus:
            s = " ".join(str(s).split())
            n = len(s.split())
            if min_words <= n <= max_words and s not in seen:
                seen.add(s)
                self.sentences.append(s)
        text = "\n".join(self.sentences)
        present = set(_WORD_RE.findall(text))
        self.pools: dict[str, list[str]] = {}
        for kind, names in (
            ("country", _COUNTRIES),
            ("us_state", _STATES),
            ("city", _CITIES),
            ("nationality", _NATIONALITIES),
        ):
            pool = [n for n in names if n in present]
            if len(pool) >= 2:
                self.pools[kind] = pool
        lower_present = {w.lower() for w in present}
        colours = [c for c in _COLOURS if c in lower_present]
        if len(colours) >= 2:
            self.pools["colour"] = colours
        first = "|".join(_FIRST_NAMES)
        self._person_re = re.compile(rf"\b(?:{first}) [A-Z][a-z]{{2,}}\b")
        persons = sorted(set(self._person_re.findall(text)))
        if len(persons) >= 2:
            self.pools["person"] = persons
        self._entity_re = {
            kind: re.compile(
                r"\b(" + "|".join(map(re.escape, sorted(pool, key=len, reverse=True))) + r")\b"
            )
            for kind, pool in self.pools.items()
            if kind != "person"
        }
        self._month_re = re.compile(r"(?<!^)\b(" + "|".join(_MONTHS) + r")\b")
        self._weekday_re = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")\b")
        self._numword_re = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)
        self._antonym_re = re.compile(
            r"\b(" + "|".join(sorted(map(re.escape, _ANTONYMS), key=len, reverse=True)) + r")\b",
            re.I,
        )
        self._factual = [i for i, s in enumerate(self.sentences) if _FACTUAL_HINT.search(s)]
        # content-word index for topical neutral pairs
        self._index: dict[str, list[int]] = defaultdict(list)
        for i, s in enumerate(self.sentences):
            for w in set(self._content(s)):
                self._index[w].append(i)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _content(sentence: str) -> list[str]:
        return [
            w.lower() for w in _WORD_RE.findall(sentence) if len(w) > 3 and w.lower() not in _STOP
        ]

    @staticmethod
    def _replace_span(s: str, start: int, end: int, new: str) -> str:
        head = s[:start]
        m = re.search(r"\b(a|an|A|An) $", head)
        if m and new[:1].isalpha():
            art = "an" if new[:1].lower() in "aeiou" else "a"
            head = head[: m.start()] + _case_like(art, m.group(1)) + " "
        return head + new + s[end:]

    # ------------------------------------------------------------------ contradictions
    def _edit_number(self, s: str, rng: random.Random) -> str | None:
        cands = [m for m in _NUM_RE.finditer(s) if not _YEAR_RE.fullmatch(m.group(1))]
        words = list(self._numword_re.finditer(s))
        if not cands and not words:
            return None
        if cands and (not words or rng.random() < 0.75):
            m = rng.choice(cands)
            raw = m.group(1)
            if "." in raw:
                val = float(raw)
                decimals = len(raw.split(".")[1])
                new_val = val * rng.choice([0.5, 0.7, 1.3, 1.5, 2.0, 3.0]) + rng.choice(
                    [0.1, 0.3, 1]
                )
                new = f"{new_val:.{decimals}f}"
            else:
                val = int(raw.replace(",", ""))
                if val < 10:
                    new_int = rng.choice([v for v in range(1, 13) if v != val])
                else:
                    new_int = rng.choice(
                        [
                            val * 2,
                            val // 2,
                            val * 3,
                            val + rng.randint(1, 9) * (10 ** max(0, len(str(val)) - 2)),
                            max(1, val - rng.randint(1, 9) * (10 ** max(0, len(str(val)) - 2))),
                        ]
                    )
                    if new_int == val:
                        new_int = val + 1
                new = _fmt_int(new_int, raw)
            if new == raw:
                return None
            return self._replace_span(s, m.start(1), m.end(1), new)
        m = rng.choice(words)
        old = m.group(1)
        new = rng.choice([w for w in _NUMBER_WORDS if w != old.lower()])
        return self._replace_span(s, m.start(1), m.end(1), _case_like(new, old))

    def _edit_year(self, s: str, rng: random.Random) -> str | None:
        cands = list(_YEAR_RE.finditer(s))
        if not cands:
            return None
        m = rng.choice(cands)
        year, suffix = int(m.group(1)), m.group(2)
        if suffix:  # a decade: 1990s -> 1970s
            delta = rng.choice([-30, -20, -10, 10, 20]) if year % 10 == 0 else rng.choice([-10, 10])
        else:
            delta = rng.choice([d for d in range(-25, 26) if d != 0])
        new = year + delta
        if new > 2049:
            new = year - abs(delta)
        return self._replace_span(s, m.start(1), m.end(1), str(new))

    def _edit_date(self, s: str, rng: random.Random) -> str | None:
        cands = [
            (m, _MONTHS)
            for m in self._month_re.finditer(s)
            if not (m.group(1) == "May" and not re.match(r"\s*\d", s[m.end() :]))
        ]
        cands += [(m, _WEEKDAYS) for m in self._weekday_re.finditer(s)]
        if not cands:
            return None
        m, pool = rng.choice(cands)
        new = rng.choice([w for w in pool if w != m.group(1) and w != "May"])
        return self._replace_span(s, m.start(1), m.end(1), new)

    def _edit_entity(self, s: str, rng: random.Random) -> tuple[str, str] | None:
        cands: list[tuple[str, re.Match[str]]] = []
        for kind, rx in self._entity_re.items():
            if kind == "colour":
                cands += [
                    (kind, m)
                    for m in re.finditer(r"\b(" + "|".join(self.pools["colour"]) + r")\b", s)
                ]
            else:
                cands += [(kind, m) for m in rx.finditer(s)]
        if "person" in self.pools:
            cands += [("person", m) for m in self._person_re.finditer(s)]
        if not cands:
            return None
        kind, m = rng.choice(cands)
        old = m.group(0)
        pool = [x for x in self.pools[kind] if x.lower() != old.lower()]
        if kind == "person":
            # keep the surname or the first name about half the time: a near-miss name
            pool = [
                x
                for x in pool
                if x.split()[0] != old.split()[0] or x.split()[-1] != old.split()[-1]
            ]
        if not pool:
            return None
        new = rng.choice(pool)
        return self._replace_span(s, m.start(), m.end(), new), kind

    def _edit_negation(self, s: str, rng: random.Random) -> str | None:
        removals = [(m, rep) for pat, rep in _NEG_REMOVE for m in re.finditer(pat, s, re.I)]
        if removals and rng.random() < 0.5:
            m, rep = rng.choice(removals)
            out = self._replace_span(
                s, m.start(), m.end(), _case_like(rep, m.group(0)) if rep else ""
            )
            out = re.sub(r"\s{2,}", " ", out)
            return out
        adds = []
        for aux, neg in _AUX_NEG.items():
            for m in re.finditer(
                rf"\b{aux}\b(?!\s+(?:not|n't|never|no|none|nothing|nobody)\b)", s, re.I
            ):
                # "has been"/"is" etc.; skip questions and "do" as a main verb at the end
                if aux in ("do", "does", "did") and not re.match(r"\s+[a-z]+", s[m.end() :]):
                    continue
                adds.append((m, neg))
        if not adds:
            if removals:
                m, rep = rng.choice(removals)
                return re.sub(r"\s{2,}", " ", self._replace_span(s, m.start(), m.end(), rep))
            return None
        m, neg = rng.choice(adds)
        return self._replace_span(s, m.start(), m.end(), _case_like(neg, m.group(0)))

    def _edit_antonym(self, s: str, rng: random.Random) -> str | None:
        cands = [
            m for m in self._antonym_re.finditer(s) if m.group(1)[:1].islower() or m.start() == 0
        ]
        if not cands:
            return None
        m = rng.choice(cands)
        old = m.group(1)
        return self._replace_span(s, m.start(1), m.end(1), _case_like(_ANTONYMS[old.lower()], old))

    def contradiction(
        self, sentence: str, rng: random.Random, kinds: Sequence[str] = CONTRADICTION_KINDS
    ) -> Edit | None:
        """A minimal edit of ``sentence`` that contradicts it, or ``None`` when none applies.

        Kinds are tried in a random order; the first that applies wins, so every sentence with
        a number, date, entity, negation site or antonym yields an edit.
        """
        keyed = sorted(
            ((rng.random() ** (1.0 / _KIND_WEIGHTS.get(k, 1.0)), k) for k in kinds), reverse=True
        )
        for _, kind in keyed:
            if kind == "entity":
                res = self._edit_entity(sentence, rng)
                if res is None:
                    continue
                out, sub = res
                kind_name = f"entity:{sub}"
            else:
                fn = {
                    "number": self._edit_number,
                    "year": self._edit_year,
                    "date": self._edit_date,
                    "negation": self._edit_negation,
                    "antonym": self._edit_antonym,
                }[kind]
                out = fn(sentence, rng)
                kind_name = kind
            if out is None:
                continue
            out = " ".join(out.split())
            if out and out.strip(" .").lower() != sentence.strip(" .").lower():
                return Edit(_capitalize(out), kind_name, 2)
        return None

    # ------------------------------------------------------------------ entailments
    def entailment(self, sentence: str, rng: random.Random) -> Edit | None:
        """An entailed, paraphrase-like rewrite (shorter or reordered), or ``None``."""
        options = []
        s = sentence.strip()
        body = s.rstrip(".!?")
        # parenthetical drop
        if re.search(r"\s\([^()]{2,80}\)", body):
            options.append(("paren_drop", re.sub(r"\s\([^()]{2,80}\)", "", body, count=1)))
        parts = [p.strip() for p in re.split(r",\s+", body)]
        if len(parts) >= 2 and not _NEG_TOKENS.search(",".join(parts[1:])):
            head = parts[0]
            first = head.split()[0].lower() if head.split() else ""
            # trailing clause drop: "X, Y" -> "X"
            tail = ",".join(parts[1:])
            if (
                len(head.split()) >= 5
                and first not in _CONDITIONAL_START
                and first not in _PREPS
                and not first.endswith(("ing", "ed"))
                and first not in ("and", "but", "or")
                and not _REPORTING.match(tail)
                and '"' not in body
            ):
                options.append(("clause_drop", head))
        if len(parts) >= 2:
            lead = parts[0]
            rest = ", ".join(parts[1:])
            lead_words = lead.split()
            if (
                lead_words
                and lead_words[0].lower() in _PREPS
                and len(lead_words) <= 8
                and len(rest.split()) >= 4
                and lead_words[0].lower() not in _CONDITIONAL_START
                and '"' not in body
            ):
                # fronted phrase: drop it, or move it to the end
                options.append(("clause_drop", _capitalize(rest)))
                lead_l = lead[0].lower() + lead[1:]
                options.append(("reorder", _capitalize(rest) + " " + lead_l))
        m = re.search(r",\s+and\s+", body)
        if m and not _NEG_TOKENS.search(body):
            a, b = body[: m.start()], body[m.end() :]
            if (
                len(a.split()) >= 3
                and len(b.split()) >= 3
                and not _REPORTING.match(b)
                and "," not in a
                and a.split()[0].lower() not in ("and", "but", "or", "so")
                and a.split()[0].lower() not in _CONDITIONAL_START
            ):
                if b.split()[0].lower() not in ("then", "so", "thus", "therefore", "later"):
                    options.append(("reorder", _capitalize(b) + ", and " + _decap(a)))
                options.append(("clause_drop", a))
        if not options:
            return None
        kind, out = rng.choice(options)
        out = _ensure_period(" ".join(out.split()))
        if out.strip(" .").lower() == s.strip(" .").lower() or len(out.split()) < 3:
            return None
        return Edit(out, kind, 0)

    # ------------------------------------------------------------------ neutrals
    def unrelated(self, rng: random.Random, topical: bool = False) -> tuple[str, str] | None:
        """Two different sentences of the corpus; ``topical`` makes them share a content word."""
        n = len(self.sentences)
        if n < 2:
            return None
        i = rng.randrange(n)
        a = self.sentences[i]
        if topical:
            words = [w for w in self._content(a) if 1 < len(self._index.get(w, ())) < 200]
            if words:
                w = rng.choice(sorted(set(words)))
                js = [j for j in self._index[w] if j != i]
                for _ in range(4):
                    j = rng.choice(js)
                    b = self.sentences[j]
                    ca, cb = set(self._content(a)), set(self._content(b))
                    if ca and cb and len(ca & cb) / min(len(ca), len(cb)) <= 0.5:
                        return a, b
            return None
        j = rng.randrange(n - 1)
        j = j + 1 if j >= i else j
        return a, self.sentences[j]

    # ------------------------------------------------------------------ datasets
    def generate(
        self, n: int, seed: int, *, mix: dict[str, float] | None = None, source: str = "augment"
    ) -> list[NLIExample]:
        """``n`` labelled pairs, in the proportions of ``mix`` (contradiction, entailment, neutral)."""
        mix = mix or {
            "contradiction": 0.45,
            "entailment": 0.25,
            "added_detail": 0.1,
            "unrelated": 0.1,
            "topical": 0.1,
        }
        rng = random.Random(seed)
        order = list(range(len(self.sentences)))
        rng.shuffle(order)
        quotas = {k: round(v * n) for k, v in mix.items()}
        out: list[NLIExample] = []
        counts = dict.fromkeys(quotas, 0)
        ptr = 0
        budget = 20 * n + 100
        while sum(counts.values()) < sum(quotas.values()) and budget > 0 and order:
            budget -= 1
            s = self.sentences[order[ptr % len(order)]]
            ptr += 1
            want = [k for k in quotas if counts[k] < quotas[k]]
            kind = rng.choice(want)
            if kind == "contradiction":
                if self._factual and rng.random() < 0.5:
                    s = self.sentences[rng.choice(self._factual)]
                base = s
                if rng.random() < 0.35:
                    short = self.entailment(s, rng)
                    if short is not None:
                        base = short.text
                e = self.contradiction(base, rng)
                if e is None:
                    continue
                p, h = (s, e.text) if rng.random() < 0.7 else (e.text, s)
                out.append(NLIExample(p, h, 2, f"{source}:{e.kind}"))
            elif kind == "entailment":
                e = self.entailment(s, rng)
                if e is None:
                    if rng.random() < 0.05:
                        out.append(NLIExample(s, s, 0, f"{source}:identity"))
                        counts[kind] += 1
                    continue
                out.append(NLIExample(s, e.text, 0, f"{source}:{e.kind}"))
            elif kind == "added_detail":
                e = self.entailment(s, rng)
                if e is None:
                    continue
                out.append(NLIExample(e.text, s, 1, f"{source}:added_detail"))
            else:
                pair = self.unrelated(rng, topical=(kind == "topical"))
                if pair is None:
                    continue
                out.append(NLIExample(pair[0], pair[1], 1, f"{source}:{kind}"))
            counts[kind] += 1
        return out

    def minimal_edit_set(
        self, n_sentences: int, seed: int, source: str = "minimal-edit"
    ) -> list[NLIExample]:
        """Evaluation pairs: for sentences with a factual edit site, one contradiction (edited
        hypothesis, only number/year/date/entity/negation/antonym), one entailing rewrite where
        one exists, and one unrelated-neutral pair per sentence."""
        rng = random.Random(seed)
        fact = list(self._factual)
        rng.shuffle(fact)
        fset = set(fact)
        rest = [i for i in range(len(self.sentences)) if i not in fset]
        rng.shuffle(rest)
        order = fact + rest
        out: list[NLIExample] = []
        used = 0
        for i in order:
            if used >= n_sentences:
                break
            s = self.sentences[i]
            e = self.contradiction(s, rng)
            if e is None:
                continue
            used += 1
            out.append(NLIExample(s, e.text, 2, f"{source}:{e.kind}"))
            ent = self.entailment(s, rng)
            if ent is not None:
                out.append(NLIExample(s, ent.text, 0, f"{source}:{ent.kind}"))
            pair = self.unrelated(rng, topical=rng.random() < 0.5) or self.unrelated(rng)
            if pair is not None:
                out.append(NLIExample(pair[0], pair[1], 1, f"{source}:unrelated"))
        return out


# ----------------------------------------------------------------------------- NLI v2 rules
# Paraphrases (entailment both ways) and questions (a question asserts nothing: neutral against
# any statement, even one it would "contradict" as a claim). Rules only; seeded.

#: word / phrase pairs that mean the same in factual text; applied in both directions
_SYNONYM_PAIRS: tuple[tuple[str, str], ...] = (
    ("completed", "finished"),
    ("began", "started"),
    ("begin", "start"),
    ("purchased", "bought"),
    ("approximately", "about"),
    ("roughly", "about"),
    ("more than", "over"),
    ("fewer than", "under"),
    ("located in", "situated in"),
    ("large", "big"),
    ("largest", "biggest"),
    ("died", "passed away"),
    ("received", "got"),
    ("commenced", "began"),
    ("constructed", "built"),
    ("established", "founded"),
    ("formed", "founded"),
    ("released", "put out"),
    ("attempted", "tried"),
    ("assist", "help"),
    ("assisted", "helped"),
    ("additional", "extra"),
    ("numerous", "many"),
    ("however", "but"),
    ("residents", "inhabitants"),
    ("film", "movie"),
    ("films", "movies"),
    ("percent", "per cent"),
    ("United States", "US"),
    ("United Kingdom", "UK"),
    ("television", "TV"),
    ("is not", "isn't"),
    ("was not", "wasn't"),
    ("does not", "doesn't"),
    ("did not", "didn't"),
    ("cannot", "can't"),
    ("children", "kids"),
    ("quickly", "fast"),
    ("entire", "whole"),
    ("almost", "nearly"),
    ("shortly after", "soon after"),
    ("stated", "said"),
    ("announced", "said"),
)
_SYN = {a: b for a, b in _SYNONYM_PAIRS} | {
    b: a for a, b in _SYNONYM_PAIRS if b not in dict(_SYNONYM_PAIRS)
}
_SYN_RE = re.compile(
    r"\b(" + "|".join(map(re.escape, sorted(_SYN, key=len, reverse=True))) + r")\b"
)
_MONTH_ALT = "|".join(_MONTHS)
_DATE_MDY = re.compile(rf"\b({_MONTH_ALT}) (\d{{1,2}}), (\d{{4}})\b")
_DATE_DMY = re.compile(rf"\b(\d{{1,2}}) ({_MONTH_ALT}),? (\d{{4}})\b")
_PERCENT = re.compile(r"\b(\d+(?:\.\d+)?) ?(%|percent\b|per cent\b)")
_IN_YEAR = re.compile(r"\bin (1[5-9]\d\d|20[0-4]\d)\b(?!s)")
_IN_THE_YEAR = re.compile(r"\bin the year (1[5-9]\d\d|20[0-4]\d)\b")
_BIG_NUM = re.compile(r"\b(\d{1,3}),(\d{3})\b(?!,\d)")


def paraphrase(sentence: str, rng: random.Random) -> Edit | None:
    """A meaning-preserving rewrite (entailment in both directions), or ``None``.

    Kinds: ``synonym`` (a word or phrase from ``_SYNONYM_PAIRS``), ``date_format``
    ("July 4, 1889" <-> "4 July 1889"), ``number_format`` ("45 percent" <-> "45%",
    "12,500" <-> "12500"), ``year_phrase`` ("in 1889" <-> "in the year 1889"). These are the
    surface changes that a minimal-edit detector must not read as a changed fact.
    """
    s = " ".join(sentence.split())
    options: list[tuple[str, str]] = []
    m = list(_SYN_RE.finditer(s))
    if m:
        hit = rng.choice(m)
        word = hit.group(1)
        options.append(("synonym", s[: hit.start()] + _SYN[word] + s[hit.end() :]))
    if _DATE_MDY.search(s):
        options.append(("date_format", _DATE_MDY.sub(r"\2 \1 \3", s, count=1)))
    elif _DATE_DMY.search(s):
        options.append(("date_format", _DATE_DMY.sub(r"\2 \1, \3", s, count=1)))
    pm = _PERCENT.search(s)
    if pm:
        new = pm.group(1) + ("%" if pm.group(2) != "%" else " percent")
        options.append(("number_format", s[: pm.start()] + new + s[pm.end() :]))
    bm = _BIG_NUM.search(s)
    if bm and not _YEAR_RE.fullmatch(bm.group(1) + bm.group(2)):
        options.append(
            ("number_format", s[: bm.start()] + bm.group(1) + bm.group(2) + s[bm.end() :])
        )
    if _IN_THE_YEAR.search(s):
        options.append(("year_phrase", _IN_THE_YEAR.sub(r"in \1", s, count=1)))
    elif _IN_YEAR.search(s):
        options.append(("year_phrase", _IN_YEAR.sub(r"in the year \1", s, count=1)))
    if not options:
        return None
    kind, out = rng.choice(options)
    out = " ".join(out.split())
    if out == s:
        return None
    return Edit(out, kind, 0)


_AUX = "is are was were has have had can could will would should may might must does do did".split()
_AUX_RE = re.compile(r"\b(" + "|".join(_AUX) + r")\b")
_WHEN_TAIL = re.compile(
    rf"\s*,?\s*\b(?:in|on|since|by)\s+(?:(?:the )?(?:early |late |mid-)?"
    rf"(?:\d{{1,2}} )?(?:{_MONTH_ALT})?\s*(?:\d{{1,2}},?\s*)?(?:1[5-9]\d\d|20[0-4]\d)s?)\b"
)


def to_question(sentence: str, rng: random.Random) -> str | None:
    """A question on the fact of ``sentence``: a yes/no question by moving the auxiliary to
    the front ("Was the tower completed in 1889?"), a *when* question when the sentence dates
    the fact ("When was the tower completed?"), or "Is it true that ...?" otherwise. A question
    states nothing, so it is neutral against the sentence and against any other statement."""
    s = " ".join(sentence.split()).rstrip(" .!")
    if not s or s.endswith("?") or len(s.split()) < 4:
        return None
    words = s.split()
    options: list[str] = []
    m = _AUX_RE.search(s)
    if m:
        subj = s[: m.start()].strip()
        rest = s[m.end() :].strip()
        n_subj = len(subj.split())
        if (
            1 <= n_subj <= 8
            and "," not in subj
            and rest
            and not subj.endswith(("who", "that", "which"))
        ):
            subj_q = _decap(subj)
            options.append(f"{m.group(1).capitalize()} {subj_q} {rest}?")
            w = _WHEN_TAIL.search(rest)
            if w:
                rest_nowhen = (rest[: w.start()] + rest[w.end() :]).strip(" ,")
                if len(rest_nowhen.split()) >= 1:
                    options.append(f"When {m.group(1)} {subj_q} {rest_nowhen}?")
    if len(words) <= 30:
        first = words[0]
        low = first.lower() in _STOP or first.lower() in _PREPS or first in _FUNCTION_STARTS
        body = first.lower() + s[len(first) :] if low and not first.isupper() else s
        options.append(f"Is it true that {body}?")
    if not options:
        return None
    return " ".join(rng.choice(options).split())


def in_random_order(items: Sequence[_T], rng: random.Random) -> list[_T]:
    """``items`` shuffled by ``rng`` (a copy): generators that use each sentence (or pair) once
    walk it."""
    order = list(range(len(items)))
    rng.shuffle(order)
    return [items[i] for i in order]


def paraphrase_pairs(
    sentences: Sequence[str], n: int, seed: int, *, source: str = "paraphrase"
) -> list[NLIExample]:
    """``n`` entailment pairs of a sentence and its rule paraphrase, in both directions (the
    two directions come from different sentences, so each sentence is used once)."""
    rng = random.Random(seed)
    out: list[NLIExample] = []
    for sentence in in_random_order(sentences, rng):
        if len(out) >= n:
            break
        s = " ".join(sentence.split())
        if not 4 <= len(s.split()) <= 50:
            continue
        e = paraphrase(s, rng)
        if e is None:
            continue
        p, h = (s, e.text) if rng.random() < 0.5 else (e.text, s)
        out.append(NLIExample(p, h, 0, f"{source}:{e.kind}"))
    return out


def question_pairs(
    groups: dict[str, list[str]],
    n: int,
    seed: int,
    *,
    augmenter: Augmenter | None = None,
    source: str = "question",
) -> list[NLIExample]:
    """``n`` neutral pairs of a question and a statement on one topic (premise and hypothesis in
    random order): the question asks about the statement's own fact (``same``), about another
    sentence of the same group (``related``), or (with an ``augmenter``) about a minimally
    edited, conflicting fact (``edited``: "Was it completed in 1925?" vs "... in 1889.")."""
    rng = random.Random(seed)
    keys = [k for k, v in groups.items() if v]
    rng.shuffle(keys)
    out: list[NLIExample] = []
    rounds = 0
    max_rounds = 20 + 3 * n // max(1, len(keys))
    while len(out) < n and keys and rounds < max_rounds:
        rounds += 1
        before = len(out)
        for k in keys:
            if len(out) >= n:
                break
            sents = [s for s in groups[k] if 4 <= len(s.split()) <= 50]
            if not sents:
                continue
            s = rng.choice(sents)
            r = rng.random()
            kind, asked, stated = "same", s, s
            if r < 0.4 and len(sents) >= 2:
                kind, asked = "related", rng.choice([t for t in sents if t != s] or [s])
            elif r < 0.7 and augmenter is not None:
                e = augmenter.contradiction(s, rng)
                if e is not None:
                    kind, asked = "edited", e.text
            q = to_question(asked, rng)
            if q is None:
                continue
            p, h = (q, stated) if rng.random() < 0.5 else (stated, q)
            out.append(NLIExample(p, h, 1, f"{source}:{kind}"))
        if len(out) == before:
            break
    return out
