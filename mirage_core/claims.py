"""Claims: split passages into sentence-level claims and give each its content tokens.

Sentence splitting uses pysbd (rule-based, Golden-Rules tested: abbreviations, decimals,
quotes, ellipses; it also ends sentences at CJK ``。！？``). Spans are re-located in the
original text so ``passage.text[claim.start:claim.end]`` is always the claim.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from mirage_core.claim_filter import non_claim_reason
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

_segmenter_local = threading.local()


def _segmenter():
    # pysbd segmenters keep per-call state: one per thread.
    seg = getattr(_segmenter_local, "seg", None)
    if seg is None:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False)
        _segmenter_local.seg = seg
    return seg


_FALLBACK_SPLIT = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` character spans of the sentences of ``text`` (whitespace-trimmed)."""
    try:
        pieces = _segmenter().segment(text)
    except Exception:  # pysbd's regexes can choke on pathological input; a plain split is enough
        pieces = _FALLBACK_SPLIT.split(text)
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


@lru_cache(maxsize=65_536)
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
) -> list[Claim]:
    """Split each passage into claims, dropping fragments with fewer than ``min_tokens``
    content tokens. ``indices`` are the passages' positions in the caller's list; ``groups``
    their independence groups (default: the source).

    With ``filter_non_claims``, sentences that assert nothing (questions, truncated titles,
    headlines, boilerplate: :func:`~mirage_core.claim_filter.non_claim_reason`) are skipped
    too; each is appended to ``skipped`` as ``{"passage", "start", "end", "reason"}``."""
    claims: list[Claim] = []
    for passage, p_idx, source, domain, score, group in zip(
        passages, indices, sources, domains, scores, groups or sources, strict=True
    ):
        text = passage.text[:max_chars]
        kept = 0
        for start, end in split_sentences(text):
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
