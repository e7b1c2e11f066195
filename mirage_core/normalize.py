"""Text normalization at the door: every step (claims, NLI, embedder, signals, prompt) reads
the same text, and invisible or look-alike characters cannot hide a word from any of them.

For each passage :func:`normalize_text` applies, in one pass:

- lone surrogates (unencodable halves of a UTF-16 pair) become U+FFFD;
- control characters become a space, and every line separator (CR, NEL, VT, FF, U+2028,
  U+2029) a newline;
- Unicode format characters (zero-width space and joiners, word joiner, BOM, soft hyphen,
  bidi controls: category Cf) are removed;
- NFKC, cluster by cluster (a base character with its combining marks);
- letters that look like Latin ones (Cyrillic and Greek confusables) are folded to Latin inside
  a word that also holds Latin letters: "Lуon" with a Cyrillic у is "Lyon". A word written
  wholly in another script is left as it is;
- in a passage, HTML markup (:mod:`mirage_core.markup`): a tag, a comment, or a script or style
  element is a space, and a character reference (``&amp;``) the character it names. A query is
  the user's own words, and its markup is left as written.

Offsets stay exact: :class:`NormalizedText` maps every character of the normalized text back to
the caller's text, so a claim's span always points into the passage the caller gave.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from mirage_core.markup import markup_edits

__all__ = ["CONFUSABLES", "NormalizedText", "normalize_query", "normalize_text", "one_line"]

#: Cyrillic and Greek letters drawn like Latin ones, with the Latin letter they imitate.
CONFUSABLES: dict[str, str] = {
    # Cyrillic lower case
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "ӏ": "l", "һ": "h", "ү": "y",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W",
    "Ү": "Y", "Ӏ": "I",
    # Greek
    "ο": "o", "α": "a", "ν": "v", "ρ": "p", "ι": "i", "κ": "k", "υ": "u", "τ": "t",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}  # fmt: skip

_LINE_BREAKS = frozenset("\r\x0b\x0c\x85\u2028\u2029")
# Anything the slow path would change besides NFKC: controls other than tab and newline, line
# separators, format characters (Cf), surrogates and the confusable letters.
_SUSPECT = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001-\U000e007f"
    "\ud800-\udfff" + "".join(sorted(CONFUSABLES)) + "]"
)
_KEEP_CONTROLS = frozenset("\n\t")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """``text`` as every step reads it. ``origin[i]`` / ``ends[i]``: the caller's span of the
    characters ``text[i]`` came from (``None``: ``text`` is the caller's text unchanged)."""

    text: str
    origin: tuple[int, ...] | None = None
    ends: tuple[int, ...] | None = None

    def whole_characters(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``spans`` (sentence spans of ``text``, in order) with each boundary moved past any
        character it splits that normalization expanded ("…" is "...", "½" is "1⁄2"): a
        sentence starts and ends on a caller's character, so no two claims share one and a
        claim's text is its span's. Spans left empty are dropped."""
        if self.origin is None:
            return spans
        origin, n = self.origin, len(self.origin)

        def whole(i: int) -> int:
            while 0 < i < n and origin[i] == origin[i - 1]:
                i += 1
            return i

        out: list[tuple[int, int]] = []
        last = 0
        for start, end in spans:
            start, end = max(whole(start), last), whole(end)
            if end > start:
                out.append((start, end))
                last = end
        return out

    def whole_prefix(self, limit: int) -> int:
        """The longest prefix of ``text`` of at most ``limit`` characters that splits no
        caller's character."""
        if self.origin is None or limit >= len(self.origin):
            return limit
        while limit > 0 and self.origin[limit] == self.origin[limit - 1]:
            limit -= 1
        return limit

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The caller's ``(start, end)`` of the normalized span ``text[start:end]``."""
        if self.origin is None or self.ends is None:
            return start, end
        if end <= start:
            at = self.origin[start] if start < len(self.origin) else self.ends[-1]
            return at, at
        return self.origin[start], self.ends[end - 1]


def _clusters(raw: str) -> list[tuple[int, str]]:
    """``(start, cluster)``: each base character with the combining marks after it."""
    out: list[tuple[int, str]] = []
    for i, ch in enumerate(raw):
        if out and unicodedata.combining(ch) and not _is_surrogate(ch):
            start, text = out[-1]
            out[-1] = (start, text + ch)
        else:
            out.append((i, ch))
    return out


def _is_surrogate(ch: str) -> bool:
    return 0xD800 <= ord(ch) <= 0xDFFF


def _clean_cluster(cluster: str) -> str:
    head = cluster[0]
    if _is_surrogate(head):
        return "\ufffd"
    if head in _LINE_BREAKS:
        return "\n"
    category = unicodedata.category(head)
    if category == "Cc" and head not in _KEEP_CONTROLS:
        return " "
    if category == "Cf":
        return ""
    # the rest of a cluster is combining marks, none of them a format character
    return unicodedata.normalize("NFKC", cluster)


def _fold_confusables(chars: list[str]) -> None:
    """Fold look-alike letters to Latin in place, in words that also hold Latin letters."""
    text = "".join(chars)
    for match in _WORD.finditer(text):
        word = match.group(0)
        if not any(c in CONFUSABLES for c in word):
            continue
        if not any("a" <= c.lower() <= "z" for c in word):
            continue  # a word wholly in another script is that script's word
        for i in range(match.start(), match.end()):
            chars[i] = CONFUSABLES.get(chars[i], chars[i])


def normalize_text(raw: str, *, markup: bool = True) -> NormalizedText:
    """``raw`` normalized for every step, with the map back to ``raw``'s offsets. ``markup``:
    read HTML markup as the text a reader sees (retrieved pages; a query is the user's own
    words and keeps what it says)."""
    edits = markup_edits(raw) if markup else []
    if not edits and _SUSPECT.search(raw) is None and unicodedata.is_normalized("NFKC", raw):
        return NormalizedText(raw)
    chars: list[str] = []
    origin: list[int] = []
    ends: list[int] = []
    done = 0
    for edit_start, edit_end, replacement in [*edits, (len(raw), len(raw), "")]:
        for start, cluster in _clusters(raw[done:edit_start]):
            for ch in _clean_cluster(cluster):
                chars.append(ch)
                origin.append(done + start)
                ends.append(done + start + len(cluster))
        # markup's replacement is read as if the caller had written it there
        for ch in _clean_cluster(replacement) if replacement else "":
            chars.append(ch)
            origin.append(edit_start)
            ends.append(edit_end)
        done = edit_end
    _fold_confusables(chars)
    return NormalizedText("".join(chars), tuple(origin), tuple(ends))


def normalize_query(query: str) -> str:
    """The query as the steps read it (no offsets needed); markup in it is left as written."""
    return normalize_text(query, markup=False).text


#: Every line break a model, a terminal or a log may honour.
_ANY_LINE_BREAK = re.compile("[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with every line break a space: a field of one line (a source, a quoted claim)
    cannot start a line of its own in a prompt or a report."""
    return _ANY_LINE_BREAK.sub(" ", text)
