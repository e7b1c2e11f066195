"""Frame pairs: retracting frames are contradictions, reporting frames neutral."""

from __future__ import annotations

from collections import Counter

from training.frames import (
    AFFIRMING,
    HELD_OUT_AFFIRMING,
    HELD_OUT_REPORTING,
    HELD_OUT_RETRACTING,
    REPORTING,
    RETRACTING,
    frame,
    frame_pairs,
)

SENTENCES = [
    "The bridge opened in 1932 over the river.",
    "He married Martha Skelton in 1772.",
    "NASA launched the probe in March.",
    "Is this a question?",
    "Too short.",
    "Many visitors climb the tower every summer.",
]


def test_a_frame_keeps_the_sentence_inside_and_skips_questions_and_fragments():
    framed = frame("The bridge opened in 1932 over the river.", ("It is a myth that ", "."))
    assert framed == "It is a myth that the bridge opened in 1932 over the river."
    assert frame("NASA launched the probe in March.", ("It is a myth that ", ".")) == (
        "It is a myth that NASA launched the probe in March."
    )
    assert frame("Is this a question?", RETRACTING[0]) is None
    assert frame("Too short.", RETRACTING[0]) is None


def test_frame_pairs_label_by_frame_kind_and_use_each_sentence_once():
    pairs = frame_pairs(SENTENCES, 10, seed=0)
    assert len(pairs) == 4  # two sentences are skipped
    kinds = Counter((p.source, p.label) for p in pairs)
    assert kinds == {("frames:retracting", 2): 2, ("frames:reporting", 1): 2}
    plains = [p.premise if len(p.premise) < len(p.hypothesis) else p.hypothesis for p in pairs]
    assert len(set(plains)) == 4
    for p in pairs:
        plain, framed = sorted((p.premise, p.hypothesis), key=len)
        assert plain.rstrip(".").lower()[1:] in framed.lower()
    assert frame_pairs(SENTENCES, 10, seed=0) == pairs  # seeded


def test_held_out_frames_are_not_trained_on():
    assert not set(HELD_OUT_RETRACTING) & set(RETRACTING)
    assert not set(HELD_OUT_REPORTING) & set(REPORTING)


def test_affirming_frames_entail_with_the_framed_copy_as_premise():
    pairs = frame_pairs(SENTENCES, 10, seed=1, affirming=AFFIRMING)
    kinds = Counter(p.source for p in pairs)
    assert set(kinds) == {"frames:retracting", "frames:reporting", "frames:affirming"}
    for p in pairs:
        if p.source == "frames:affirming":
            assert p.label == 0 and len(p.premise) > len(p.hypothesis)
    assert not set(HELD_OUT_AFFIRMING) & set(AFFIRMING)
