"""The training mixes of the NLI model: pairs taken per source (a cap; a source smaller than
its cap is taken whole) and pairs generated per generated part (:data:`GENERATED`).

``v1`` trained the packaged model; ``v2`` is a candidate that did not replace it
(``docs/decisions.md``); ``all`` is the whole data mix, for a machine that trains in minutes;
``all-but-related`` is ``all`` without the "related but different" neutral pairs;
``v1-frames``, ``v1-frames3`` and ``v1-frames3q`` warm-start from v1 (``--init``) on half the
v1 mix and frame pairs (:mod:`training.frames`); ``abr-swaps`` warm-starts from the
``all-but-related`` model on a fifth of its mix and swapped-fact pairs
(:mod:`training.swapped_facts`); ``v1-swaps`` puts the same pairs on half the v1 mix;
``abr-swaps-contrast`` puts each swapped pair beside its unswapped source pair;
``abr-swaps-teacher`` adds pairs of one page's different sentences that train towards a
teacher model's probabilities (:mod:`training.teacher`).
"""

from __future__ import annotations

__all__ = [
    "ABR_SWAPS_CONTRAST_MIX",
    "ABR_SWAPS_MIX",
    "ABR_SWAPS_TEACHER_MIX",
    "ALL_BUT_RELATED_MIX",
    "ALL_MIX",
    "DEFAULT_MIX",
    "GENERATED",
    "MIXES",
    "V1_FRAMES3Q_MIX",
    "V1_FRAMES3_MIX",
    "V1_FRAMES_MIX",
    "V1_SWAPS_MIX",
    "V2_MIX",
]

#: Per-source caps (pairs) of the default training mix; "augment" is generated.
DEFAULT_MIX: dict[str, int] = {
    "lingnli": 30000,
    "mnli-dev-train-half": 5000,
    "snli-test": 6000,
    "cad": 5000,
    "conjnli-adv": 6000,
    "negation": 3100,
    "climate-fever": 5000,
    "fever-symmetric": 1500,
    "breaking-nli-train": 5600,
    "augment": 14000,
}


#: NLI v2 (a candidate that did not replace the packaged v1): warm-started from v1 (``--init``), a replay of the v1 mix at roughly half
#: its size, plus the new parts: VitaminC (training pages only), "related but different"
#: neutral pairs, rule paraphrases (entailment both ways), reversed entailment pairs and
#: question-vs-statement neutral pairs. Select with ``--mix v2``.
V2_MIX: dict[str, int] = {
    "lingnli": 18000,
    "mnli-dev-train-half": 5000,
    "snli-test": 3000,
    "cad": 2500,
    "conjnli-adv": 2500,
    "negation": 1500,
    "climate-fever": 2500,
    "fever-symmetric": 700,
    "breaking-nli-train": 2500,
    "augment": 7000,
    "vitaminc-real": 12000,
    "vitaminc-synthetic": 3000,
    "related-neutral": 5000,
    "paraphrase": 4000,
    "reverse-entail": 3000,
    "question": 5000,
}
#: The whole data mix: every training source at its full size, and each generated part at
#: about the share of the training pairs it has in v2 (for a machine that trains in minutes:
#: ``training.bundle``).
ALL_MIX: dict[str, int] = {
    "lingnli": 10**9,
    "mnli-dev-train-half": 10**9,
    "snli-test": 10**9,
    "cad": 10**9,
    "conjnli-adv": 10**9,
    "negation": 10**9,
    "climate-fever": 10**9,
    "fever-symmetric": 10**9,
    "breaking-nli-train": 10**9,
    "vitaminc-real": 10**9,
    "vitaminc-synthetic": 10**9,
    "augment": 20000,
    "related-neutral": 14000,
    "paraphrase": 11000,
    "reverse-entail": 8000,
    "question": 14000,
}
#: The whole data mix without the "related but different" neutral pairs: two sentences of one
#: page that state different facts are left unlabelled, so that two reports of one event that
#: give it different details (dates, names) are not taught to read as compatible.
ALL_BUT_RELATED_MIX: dict[str, int] = {k: v for k, v in ALL_MIX.items() if k != "related-neutral"}
#: v1 taught to read a frame: warm-started from v1 (``--init``), a replay of the v1 mix at half
#: its size (so that the rest of v1's reading stays), and sentences beside their framed copies,
#: half retracting (contradiction), half reporting (neutral).
V1_FRAMES_MIX: dict[str, int] = {**{k: v // 2 for k, v in DEFAULT_MIX.items()}, "frames": 6000}
#: ``v1-frames`` with affirming frames too (entailment): the first taught v1 that a copy with
#: words around it never entails (questions on a sentence's own fact became contradictions).
V1_FRAMES3_MIX: dict[str, int] = {
    **{k: v for k, v in V1_FRAMES_MIX.items() if k != "frames"},
    "frames3": 9000,
}
#: ``v1-frames3`` with question pairs too (neutral: a question and a statement on one topic),
#: so that a question on a sentence's own fact is not read as a framed copy.
V1_FRAMES3Q_MIX: dict[str, int] = {**V1_FRAMES3_MIX, "question": 5000}
#: The ``all-but-related`` model taught that a reworded sentence with another value contradicts:
#: warm-started from it (``--init``), a replay of about a fifth of its mix (so that the rest of
#: its reading stays) and contradiction pairs made from entailment pairs by swapping a value the
#: premise states in the hypothesis (:mod:`training.swapped_facts`).
ABR_SWAPS_MIX: dict[str, int] = {
    "lingnli": 9600,
    "mnli-dev-train-half": 1000,
    "snli-test": 1900,
    "cad": 1600,
    "conjnli-adv": 3000,
    "negation": 600,
    "climate-fever": 1500,
    "fever-symmetric": 700,
    "breaking-nli-train": 1100,
    "vitaminc-real": 5300,
    "vitaminc-synthetic": 3200,
    "augment": 4000,
    "paraphrase": 2200,
    "reverse-entail": 1600,
    "question": 2800,
    "swapped-facts": 10000,
}
#: ``abr-swaps`` with each swapped pair beside its unswapped source pair (7,000 of each): the
#: first taught the model to call reworded pairs with more detail on one side contradictions.
ABR_SWAPS_CONTRAST_MIX: dict[str, int] = {
    **{k: v for k, v in ABR_SWAPS_MIX.items() if k != "swapped-facts"},
    "swapped-facts-contrast": 14000,
}
#: ``abr-swaps-contrast`` with 8,000 pairs of two different sentences of one page (content-word
#: overlap at most 0.6, never two revisions of one sentence) whose targets are the teacher's
#: probabilities (``--teacher``, :mod:`training.teacher`): the swapped pairs taught the model to
#: call such honest pairs contradictions, and the teacher keeps the reading it had of them.
ABR_SWAPS_TEACHER_MIX: dict[str, int] = {**ABR_SWAPS_CONTRAST_MIX, "related-teacher": 8000}
#: v1 taught the same: half the v1 mix, replayed, and the swapped-fact pairs (``--init`` v1).
V1_SWAPS_MIX: dict[str, int] = {
    **{k: v // 2 for k, v in DEFAULT_MIX.items()},
    "swapped-facts": 10000,
}
MIXES = {
    "v1": DEFAULT_MIX,
    "v2": V2_MIX,
    "all": ALL_MIX,
    "all-but-related": ALL_BUT_RELATED_MIX,
    "v1-frames": V1_FRAMES_MIX,
    "v1-frames3": V1_FRAMES3_MIX,
    "v1-frames3q": V1_FRAMES3Q_MIX,
    "abr-swaps": ABR_SWAPS_MIX,
    "abr-swaps-contrast": ABR_SWAPS_CONTRAST_MIX,
    "abr-swaps-teacher": ABR_SWAPS_TEACHER_MIX,
    "v1-swaps": V1_SWAPS_MIX,
}
#: parts generated from the loaded sources rather than read from a file
GENERATED = (
    "augment",
    "related-neutral",
    "paraphrase",
    "reverse-entail",
    "question",
    "frames",
    "frames3",
    "swapped-facts",
    "swapped-facts-contrast",
    "related-teacher",
)
