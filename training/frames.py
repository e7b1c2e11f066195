"""Frame pairs: a sentence beside itself wrapped in a frame that retracts, only reports, or
affirms it.

A retracting frame says the sentence is false or was abandoned ("It was later shown to be
false that …"): the framed sentence contradicts the plain one, in either order. A reporting
frame attributes the sentence without vouching for it ("According to one blog, …"): neither
sentence entails the other's truth as asserted, so the pair is neutral. An affirming frame
vouches for it ("Court records confirm that …"): the framed sentence entails the plain one.
An NLI model trained without such pairs reads a framed sentence as a paraphrase of the plain
one, because every word of the plain sentence is in it; trained on retracting and reporting
frames alone, it learns that a copy with words around it never entails (affirming frames are
there so that the words, not the wrapping, decide).

:data:`RETRACTING`, :data:`REPORTING` and :data:`AFFIRMING` are the frames this module trains
on; the ``HELD_OUT_*`` frames are never trained on and let an evaluation ask whether a model
learned the reading or the wording.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from training.augment import in_random_order
from training.data import NLIExample

__all__ = [
    "AFFIRMING",
    "HELD_OUT_AFFIRMING",
    "HELD_OUT_REPORTING",
    "HELD_OUT_RETRACTING",
    "REPORTING",
    "RETRACTING",
    "frame",
    "frame_pairs",
]

#: (before, after) around a sentence whose first letter is lowered and final period dropped
RETRACTING: tuple[tuple[str, str], ...] = (
    ("It was later shown to be false that ", "."),
    ("Contrary to a popular story, it is not true that ", "."),
    ("A rumour held that ", ", but it turned out to be untrue."),
    ("It was wrongly reported that ", "."),
    ("Investigators found no basis for the claim that ", "."),
    ("The story that ", " was retracted by the newspaper that printed it."),
    ("Historians now reject the old idea that ", "."),
    ("A widely shared post said that ", ", which fact-checkers rated false."),
    ("For years people repeated that ", ", until records proved otherwise."),
    ("The company denied reports that ", "."),
    ("It is a myth that ", "."),
    ("An error in the first edition stated that ", "; later editions corrected it."),
)
#: frames that attribute without vouching
REPORTING: tuple[tuple[str, str], ...] = (
    ("According to one anonymous blog, ", "."),
    ("A single unnamed source told reporters that ", "."),
    ("One forum user speculated that ", "."),
    ("It has been rumoured that ", ", though nobody has confirmed it."),
    ("A tabloid alleged that ", "."),
    ("Some fans believe that ", ", without any evidence."),
    ("An unverified report suggests that ", "."),
    ("A few commentators have guessed that ", "."),
)
#: frames that vouch for the sentence: the framed copy entails the plain one
AFFIRMING: tuple[tuple[str, str], ...] = (
    ("Court records confirm that ", "."),
    ("It is well documented that ", "."),
    ("Several independent sources agree that ", "."),
    ("Official figures show that ", "."),
    ("As the archives make clear, ", "."),
    ("It is an established fact that ", "."),
    ("Researchers have verified that ", "."),
    ("Eyewitnesses and records alike show that ", "."),
)
#: frames for evaluation only
HELD_OUT_RETRACTING: tuple[tuple[str, str], ...] = (
    ("Newer research has overturned the view that ", "."),
    ("The claim that ", " has since been debunked."),
    ("Officials later admitted it was untrue that ", "."),
    ("Although it is often said that ", ", this is incorrect."),
)
HELD_OUT_REPORTING: tuple[tuple[str, str], ...] = (
    ("Word on social media is that ", "."),
    ("One unconfirmed account says that ", "."),
    ("Supposedly, ", ", though this cannot be checked."),
)
HELD_OUT_AFFIRMING: tuple[tuple[str, str], ...] = (
    ("Contemporary newspapers confirm that ", "."),
    ("There is no doubt that ", "."),
    ("Public records show that ", "."),
)


def _body(sentence: str) -> str | None:
    s = " ".join(sentence.split()).rstrip()
    if not 4 <= len(s.split()) <= 40 or s.endswith("?"):
        return None
    s = s.rstrip(".!;:")
    first = s.split(" ", 1)[0]
    # lower the first letter unless the first word is a name or an acronym
    if (
        first[:1].isupper()
        and not (first.isupper() and len(first) > 1)
        and first.lower() in _COMMON
    ):
        s = s[0].lower() + s[1:]
    return s


#: sentence-initial words safe to lower-case inside a frame
_COMMON = frozenset(
    "the a an this that these those it its he she they his her their there in on at for after "
    "before during many most some one two several when while although as by from with".split()
)


def frame(sentence: str, frame_pair: tuple[str, str]) -> str | None:
    """``sentence`` wrapped in ``frame_pair``, or ``None`` for a sentence the frames skip
    (a question, under 4 or over 40 words)."""
    body = _body(sentence)
    if body is None:
        return None
    before, after = frame_pair
    text = f"{before}{body}{after}"
    return text[0].upper() + text[1:]


def frame_pairs(
    sentences: Sequence[str],
    n: int,
    seed: int,
    *,
    retracting: Sequence[tuple[str, str]] = RETRACTING,
    reporting: Sequence[tuple[str, str]] = REPORTING,
    affirming: Sequence[tuple[str, str]] | None = None,
    source: str = "frames",
) -> list[NLIExample]:
    """``n`` pairs of a sentence and its framed copy, each sentence used once, the kinds in
    turn: retracting (contradiction, random order), reporting (neutral, random order) and,
    given ``affirming`` frames, affirming (the framed copy as premise: entailment)."""
    rng = random.Random(seed)
    kinds = [("retracting", retracting, 2), ("reporting", reporting, 1)]
    if affirming:
        kinds.append(("affirming", affirming, 0))
    out: list[NLIExample] = []
    for sentence in in_random_order(sentences, rng):
        if len(out) >= n:
            break
        kind, frames, label = kinds[len(out) % len(kinds)]
        framed = frame(sentence, rng.choice(frames))
        if framed is None:
            continue
        plain = " ".join(sentence.split())
        if kind == "affirming" or rng.random() < 0.5:
            p, h = framed, plain
        else:
            p, h = plain, framed
        out.append(NLIExample(p, h, label, f"{source}:{kind}"))
    return out
