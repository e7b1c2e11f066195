"""Claims: split passages into sentence-level claims and give each its content tokens.

Sentence splitting uses pysbd's English rules (rule-based, Golden-Rules tested: abbreviations,
decimals, quotes, ellipses; it also ends sentences at CJK ``。！？``), run in linear time: its
abbreviation pass and its span re-location, quadratic in pysbd 0.3.4, are replaced by one-scan
equivalents with the same output. Measured (research/splitter_compare.py, CPU time on a loaded
2-core machine): spans identical to stock pysbd on 300 of 300 gpe-eval benign passages and on
the 10 longest (20,000 characters), those in ~35 ms instead of ~215 ms; 20,000 characters of
"a. " in ~4 ms instead of ~4.5 s. A text denser in sentence marks and quotes than
``_DENSE_BASE + len / _DENSE_PER`` (real pages stay under 70 % of it), where pysbd's
per-sentence rules would still cost ~30 µs a sentence, is split by a plain regex instead.
sentencex and blingfire are faster still but agree less with pysbd (98.7 % and 96.2 % of the
sentences of the sample, 89 % and 84 % on the long pages). A sentence mark glued to the next
word ("performance.who") ends a sentence too (:data:`SPLIT_GLUED`). Spans are re-located in
the original text so ``passage.text[claim.start:claim.end]`` is always the claim.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from mirage_core.claim_filter import non_claim_reason
from mirage_core.instructions import instruction_span
from mirage_core.memo import text_memo
from mirage_core.types import Claim, Passage

__all__ = ["STOPWORDS", "content_tokens", "extract_claims", "split_sentences"]

# Short English function-word list. Numbers are *not* stopwords: they carry most factual edits.
STOPWORDS = frozenset(
    """a an the and or but if then else of in on at to for from by with without about above
    below into onto over under after before between through during since until upon within
    is are was were be been being am do does did doing done has have had having will would
    shall should can could may might must it its it's this that these those there here
    he she they them their theirs his her hers him we us our ours you your yours i me my mine
    who whom whose which what when where why how as so than too very also just only not no nor
    all any both each few more most other some such own same s t don doesn didn isn aren wasn
    weren won wouldn shouldn couldn can't cannot up down out off again further once one's
    said says according reported per via etc e.g i.e""".split()
)
# "not"/"no"/"never" are stopwords for *overlap* (they must not stop a polarity flip from
# pairing with its original); the NLI model sees the full sentences.

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"  # kana, CJK, hangul
_CJK_RUN = re.compile(f"[{_CJK}]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(rf"(?:\d+(?:[.,]\d+)*|[^\W\d_{_CJK}][^\W_{_CJK}]*(?:['’][^\W\d_]+)?)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
_WS = re.compile(r"\s+")
# Reference markers of encyclopedic text: [12], [3][4], [12–14], [a], [note 2], [citation needed].
# They carry no claim, yet a small NLI model reads "X.[30]" vs "X." as a minimal edit, i.e. a
# contradiction (measured: p_contra 0.98 on otherwise identical Wikipedia sentences).
_CITATION = re.compile(
    r"\s*\[(?:\d+(?:\s*[,–-]\s*\d+)*|[a-z]|(?:note|nb) \d+|[a-z ]{0,20}needed)\]", re.IGNORECASE
)

# -- sentence splitting -----------------------------------------------------------------------
#
# pysbd's rules, run in linear time. Stock pysbd 0.3.4 is quadratic twice over: its abbreviation
# pass re-substitutes the whole line once per occurrence of each abbreviation (every word that
# starts with "a", "no", "st"... counts), and its span re-location re-scans the text from the
# start for every sentence. Here the abbreviation pass finds every occurrence in one scan and
# applies pysbd's substitutions once per distinct spelling, only where they can match (same
# output); the sentences are re-located by a forward search instead of pysbd's.

_FOLD = str.maketrans(  # what re.IGNORECASE equates with ASCII letters (all of it, checked)
    {**{chr(c): chr(c + 32) for c in range(65, 91)}, "İ": "i", "ı": "i", "ſ": "s", "K": "k"}
)
_WORD_START = re.compile(r"(?:^|(?<=\s))\S")
_PREPOSITIVE_NEXT = re.compile(r"\s|:\d+")  # the lookaheads of pysbd's three substitutions
_NUMBER_NEXT = re.compile(r"\s\d|\s+\(")
_PERIOD_NEXT = re.compile(r"\s(?:[a-z]|I\s|I'm|I'll|\d|\()")


@lru_cache(maxsize=1)
def _pysbd_english():
    """pysbd's English rules with the linear abbreviation pass."""
    from pysbd.lang.english import English
    from pysbd.processor import Processor

    known = English.Abbreviation
    by_first: dict[str, dict[int, set[str]]] = {}  # plain abbreviations by first letter, length
    dotted: dict[str, list[tuple[str, re.Pattern[str]]]] = {}  # "." in them is a wildcard
    for a in known.ABBREVIATIONS:
        if "." in a:
            dotted.setdefault(a[0], []).append((a, re.compile(a)))
        else:
            by_first.setdefault(a[0], {}).setdefault(len(a), set()).add(a)
    prepositive = frozenset(known.PREPOSITIVE_ABBREVIATIONS)
    number = frozenset(known.NUMBER_ABBREVIATIONS)

    def occurrences(line: str) -> dict[str, list[int]]:
        # every start i of an abbreviation after whitespace or at 0, as pysbd's
        # re.findall(r"(?:^|\s)" + abbr, line, re.IGNORECASE) finds them
        folded = line.translate(_FOLD)
        found: dict[str, list[int]] = {}
        for m in _WORD_START.finditer(folded):
            i = m.start()
            first = folded[i]
            for n, names in by_first.get(first, {}).items():
                w = folded[i : i + n]
                if w in names:
                    found.setdefault(w, []).append(i)
            for a, pat in dotted.get(first, ()):
                if pat.match(folded, i):
                    found.setdefault(a, []).append(i)
        return found

    class Replacer(English.AbbreviationReplacer):
        def search_for_abbreviations_in_string(self, text: str) -> str:
            found = occurrences(text)
            if not found:
                return text
            lowered = text.lower()
            cur = list(text)
            for abbr in known.ABBREVIATIONS:
                starts = found.get(abbr)
                if not starts or abbr not in lowered:
                    continue
                n = len(abbr)
                nexts: list[str] = []  # pysbd's (near-always empty) "next character" list
                if "{" + abbr + "} " in text:
                    pattern = r"(?<={" + re.escape(abbr) + "} ).{1}"
                    nexts = re.findall(pattern, "".join(cur))
                at: dict[str, list[int]] = {}
                order: list[tuple[str, str]] = []
                last_end = -1
                for i in starts:
                    key = "".join(cur[i : i + n])
                    at.setdefault(key, []).append(i)
                    if (i - 1 if i else 0) < last_end:  # findall's matches do not overlap
                        continue
                    last_end = i + n
                    order.append((key, nexts[len(order)] if len(order) < len(nexts) else ""))
                done: set[str] = set()
                for key, nxt in order:
                    low = key.lower()
                    if key in done or (nxt.isupper() and low not in prepositive):
                        continue
                    done.add(key)  # a second identical substitution changes nothing
                    hits = []
                    for i in at[key]:
                        q = i + n
                        if q >= len(cur) or cur[q] != "." or "".join(cur[i:q]) != key:
                            continue
                        ok: re.Match[str] | bool | None
                        if low in prepositive:
                            ok = _PREPOSITIVE_NEXT.match(text, q + 1)
                        elif low in number:
                            ok = _NUMBER_NEXT.match(text, q + 1)
                        else:
                            ok = (q + 1 < len(cur) and cur[q + 1] in ".:-?,") or _PERIOD_NEXT.match(
                                text, q + 1
                            )
                        if ok:
                            hits.append(q)
                    for q in hits:
                        cur[q] = "∯"
            return "".join(cur)

    class Lang(English):
        AbbreviationReplacer = Replacer

    return Processor, Lang


#: Sentence marks and quotes (what pysbd's per-sentence and per-quote rules run on). A text with
#: more than ``_DENSE_BASE + len(text) / _DENSE_PER`` of them is split by the plain regex.
_DENSE = re.compile(r'[.!?\n\r"“”。！？]')
_DENSE_BASE = 100
_DENSE_PER = 40
_FALLBACK_SPLIT = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|[\r\n]+")


def _pieces(text: str) -> list[str]:
    if len(_DENSE.findall(text)) > _DENSE_BASE + len(text) / _DENSE_PER:
        return _FALLBACK_SPLIT.split(text)
    processor, lang = _pysbd_english()
    try:
        return processor(text, lang).process()
    except Exception:  # pysbd's regexes can choke on pathological input; a plain split is enough
        return _FALLBACK_SPLIT.split(text)


def _locate(text: str, pieces: Sequence[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    cursor = 0
    for piece in pieces:
        stripped = piece.strip()
        if not stripped:
            continue
        start = text.find(stripped, cursor)
        if start < 0:  # segmenter altered the text; skip rather than invent a span
            continue
        end = start + len(stripped)
        spans.append((start, end))
        cursor = end
    return spans


#: Split at a sentence mark glued to the next word, as in "…her stellar performance.who won i
#: want to work for diddy." (a question stuck on the last sentence): pysbd reads one sentence.
#: See :func:`_glued_cuts` for what is left alone. It changes the spans of 0 of 300 sampled
#: gpe-eval benign passages, and of 4 of the 10 longest (scraped pages: "length.Even",
#: "ozone.Footnote 11 Later…"; one false split: "Alt.Latino").
SPLIT_GLUED = True

# a mark between a letter, digit or closing bracket/quote and a letter
_GLUED = re.compile(r"(?<=[^\W_]|[)\]\"'’”])[.!?](?=[^\W\d_])")
_ALNUM_RUN = re.compile(r"[^\W_]+")
_TOKEN = re.compile(r"\S+")
_INNER_MARK = re.compile(r"(?<=[^\W_])[.!?](?=[^\W_])")
_ALNUM_RUN_BACK = re.compile(r"[^\W_]+$")
# What follows the dot of a domain name or a file name (kept whole). Common English words that
# are also TLDs ("it", "in", "is", "me", "us"...) are left out: there the mark splits.
_DOMAIN_OR_EXT = frozenset(
    """com org net edu gov mil int info biz io ai app dev co uk de fr es nl ru cn jp au ca ch se
    eu me tv ly gl html htm php asp aspx jsp cgi pdf txt csv tsv json xml yaml yml md rst py js ts
    jsx tsx rb java kt go rs cpp hpp doc docx xls xlsx ppt pptx odt png jpg jpeg gif svg webp bmp
    tif tiff ico zip gz tgz tar bz2 xz rar exe dll bin iso dmg apk mp3 mp4 wav avi mov mkv flac
    ogg log cfg ini conf sh bat ps1 sql db""".split()
)


_CLOSERS = ")]\"'’”"
_LONGEST_ENDING = max(map(len, _DOMAIN_OR_EXT))


def _ends_name(token: str, q: int) -> bool:
    """Whether the mark at ``token[q]`` follows a whole domain or file name and opens a
    sentence: the letters before it are a known ending after an inner dot
    ("example.com.Then", "report.pdf.It") and a capitalized word follows."""
    after = _ALNUM_RUN.match(token, q + 1)
    right = after.group(0) if after else ""
    if not (right[:1].isupper() and right[1:].islower()):
        return False
    dot = q - 1
    while dot >= 0 and token[dot].isalnum() and q - dot <= _LONGEST_ENDING:
        dot -= 1
    return (
        dot > 0
        and token[dot] == "."
        and token[dot - 1].isalnum()
        and token[dot + 1 : q].lower() in _DOMAIN_OR_EXT
    )


@lru_cache(maxsize=1)
def _abbreviations() -> frozenset[str]:
    from pysbd.lang.english import English

    return frozenset(English.Abbreviation.ABBREVIATIONS)


def _glued_cuts(text: str) -> list[int]:
    """Offsets just after a sentence mark glued to the next word ("performance.who").

    Left alone: abbreviations ("Dr.Smith", "etc.and"), initials and single letters ("U.S.",
    "e.g.", "J.R.R.Tolkien", "Smith.J."), decimals ("3.5": a digit follows), ellipses ("..."),
    URLs, paths and e-mail addresses (a token with "/", "\\", "@", "=" or "www."), domain and
    file names ("example.com", "report.pdf", "news.bbc.co.uk": a known ending, or another
    inner dot in the token) and upper-case pairs ("ASP.NET")."""
    cuts: list[int] = []
    start = end = 0
    token, skip, inner = "", True, 0
    for m in _GLUED.finditer(text):
        if m.start() >= end:  # a new token: the run of non-space around the mark
            start = m.start()
            while start > end and not text[start - 1].isspace():
                start -= 1
            end = _TOKEN.match(text, start).end()  # type: ignore[union-attr]
            token = text[start:end]
            skip = any(c in token for c in "/\\@=") or token.lower().startswith("www.")
            inner = len(_INNER_MARK.findall(token))  # marks between two letters or digits
        q = m.start() - start
        if skip:
            continue
        if inner - (token[q - 1].isalnum() and token[q + 1].isalnum()) > 0 and not _ends_name(
            token, q
        ):
            continue  # another inner mark: a domain, initials, code
        before = _ALNUM_RUN_BACK.search(token, 0, q)
        after = _ALNUM_RUN.match(token, q + 1)
        left = before.group(0) if before else ""
        right = after.group(0) if after else ""
        if len(right) == 1 or (before is not None and len(left) == 1):
            continue
        if token[q] == "." and left.lower() in _abbreviations():
            continue
        if (
            token[q] == "."
            and right.lower() in _DOMAIN_OR_EXT
            and token[q + 1 + len(right) :].lstrip(_CLOSERS)[:1] in ("", *".,;:!?")
        ):
            continue  # the ending of a domain or file name, then its sentence's own marks
        if left.isupper() and right.isupper():
            continue
        cuts.append(start + q + 1)
    return cuts


def _split_at(spans: list[tuple[int, int]], cuts: list[int]) -> list[tuple[int, int]]:
    if not cuts:
        return spans
    out: list[tuple[int, int]] = []
    k = 0
    for start, end in spans:
        while k < len(cuts) and cuts[k] <= start:
            k += 1
        while k < len(cuts) and cuts[k] < end:
            out.append((start, cuts[k]))
            start = cuts[k]
            k += 1
        out.append((start, end))
    return out


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` character spans of the sentences of ``text`` (whitespace-trimmed)."""
    if not text:
        return []
    spans = _locate(text, _pieces(text))
    return _split_at(spans, _glued_cuts(text)) if SPLIT_GLUED else spans


@text_memo()
def content_tokens(sentence: str) -> frozenset[str]:
    """Normalized content tokens T(c): lowercase words minus stopwords, numbers kept,
    character bigrams for CJK runs."""
    text = unicodedata.normalize("NFKC", sentence).lower()
    tokens: set[str] = set()
    for match in _WORD.finditer(text):
        tok = match.group(0).replace("’", "'")
        if _NUMBER.fullmatch(tok):
            tokens.add(tok.replace(",", ""))  # 1,000 == 1000
        elif tok not in STOPWORDS and len(tok) > 1:
            tokens.add(tok)
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            tokens.add(run)
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(tokens)


def clean_text(text: str) -> str:
    """Drop control characters and collapse whitespace (what the NLI model and users see)."""
    return _WS.sub(" ", _CONTROL.sub(" ", text)).strip()


def extract_claims(
    passages: Sequence[Passage],
    *,
    indices: Sequence[int],
    sources: Sequence[str],
    domains: Sequence[str],
    scores: Sequence[float],
    min_tokens: int,
    max_claims_per_passage: int,
    max_chars: int,
    groups: Sequence[str] | None = None,
    start_index: int = 0,
    filter_non_claims: bool = False,
    skipped: list[dict[str, object]] | None = None,
    spans: Sequence[Sequence[tuple[int, int]] | None] | None = None,
    leave_out_instructions: bool = False,
) -> list[Claim]:
    """Split each passage into claims, dropping fragments with fewer than ``min_tokens``
    content tokens. ``indices`` are the passages' positions in the caller's list; ``groups``
    their independence groups (default: the source).

    With ``filter_non_claims``, sentences that assert nothing (questions, truncated titles,
    headlines, boilerplate: :func:`~mirage_core.claim_filter.non_claim_reason`) are skipped
    too; each is appended to ``skipped`` as ``{"passage", "start", "end", "reason"}``.

    ``spans``, when given, are each passage's sentence spans in ``passage.text[:max_chars]``
    (:func:`split_sentences`; ``None`` for one passage: split here).

    With ``leave_out_instructions``, a passage with an instruction to the model in it
    (:func:`~mirage_core.instructions.instruction_span`) gives no claim: each of its sentences is
    appended to ``skipped``, as ``"instruction"`` or ``"beside an instruction"``."""
    claims: list[Claim] = []
    for passage, p_idx, source, domain, score, group, cut in zip(
        passages,
        indices,
        sources,
        domains,
        scores,
        groups or sources,
        spans if spans is not None else [None] * len(passages),
        strict=True,
    ):
        text = passage.text[:max_chars]
        sentences = cut if cut is not None else split_sentences(text)
        if leave_out_instructions and _skip_instructing(text, sentences, p_idx, skipped):
            continue
        kept = 0
        for start, end in sentences:
            if kept >= max_claims_per_passage:
                break
            sentence = clean_text(_CITATION.sub("", text[start:end]))
            tokens = content_tokens(sentence)
            if len(tokens) < min_tokens:
                continue
            reason = non_claim_reason(sentence) if filter_non_claims else None
            if reason is not None:
                if skipped is not None:
                    skipped.append({"passage": p_idx, "start": start, "end": end, "reason": reason})
                continue
            claims.append(
                Claim(
                    index=start_index + len(claims),
                    text=sentence,
                    passage_index=p_idx,
                    start=start,
                    end=end,
                    source=source,
                    domain=domain,
                    retrieval_score=score,
                    tokens=tokens,
                    group=group,
                )
            )
            kept += 1
    return claims


def _skip_instructing(
    text: str,
    sentences: Sequence[tuple[int, int]],
    passage: int,
    skipped: list[dict[str, object]] | None,
) -> bool:
    """Whether the passage ``text`` holds an instruction to the model (read whole, so that one
    broken over lines, which end sentences, is found); if so, each of its ``sentences`` is
    appended to ``skipped``: ``"instruction"`` where it holds or crosses one, else ``"beside an
    instruction"``."""
    span = instruction_span(text)
    if span is None:
        return False
    if skipped is not None:
        first, last = span
        skipped.extend(
            {
                "passage": passage,
                "start": start,
                "end": end,
                "reason": "instruction"
                if (start < last and first < end) or instruction_span(text[start:end])
                else "beside an instruction",
            }
            for start, end in sentences
        )
    return True
