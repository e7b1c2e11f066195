"""NLI v2 data builders: VitaminC loading and page-grouped split, "related but different"
neutral pairs, reversed entailment pairs, rule paraphrases, question-vs-statement pairs and
the held-out compatible-pair metrics. Small fixtures written here; nothing reads ../shared."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import numpy as np
import pytest

from training.augment import (
    Augmenter,
    paraphrase,
    paraphrase_pairs,
    question_pairs,
    to_question,
)
from training.data import (
    NLIExample,
    climate_fever_groups,
    load_vitaminc,
    overlap,
    related_neutral_pairs,
    reverse_entailment_pairs,
    split_grouped,
    topic_groups,
)
from training.evaluate import compatible_metrics


def _vitaminc(folder: Path, rows: list[tuple[str, str, str, str, str]], gz: bool = True) -> Path:
    """rows: (premise, hypothesis, label, case_id, page)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = "".join(
        json.dumps({"premise": p, "hypothesis": h, "label": y}) + "\n" for p, h, y, _, _ in rows
    )
    ids = "line\tunique_id\tcase_id\tpage\tFEVER_id\n" + "".join(
        f"{i}\t{c}_{i}\t{c}\t{pg}\t\n" for i, (_, _, _, c, pg) in enumerate(rows)
    )
    if gz:
        with gzip.open(folder / "test.jsonl.gz", "wt", encoding="utf-8") as fh:
            fh.write(data)
        with gzip.open(folder / "test.ids.tsv.gz", "wt", encoding="utf-8") as fh:
            fh.write(ids)
    else:
        (folder / "test.jsonl").write_text(data, encoding="utf-8")
        (folder / "test.ids.tsv").write_text(ids, encoding="utf-8")
    return folder


ROWS = [
    (
        "Westlife sold 24 million records in the UK .",
        "Westlife sold over 20 million.",
        "entailment",
        "c1",
        "Westlife",
    ),
    (
        "Westlife sold 19 million records in the UK .",
        "Westlife sold over 20 million.",
        "contradiction",
        "c1",
        "Westlife",
    ),
    (
        "The band formed in Sligo in 1998 .",
        "Westlife is from Ireland.",
        "neutral",
        "c2",
        "Westlife",
    ),
    (
        "Paris is the capital of France .",
        "Paris is in France.",
        "entailment",
        "c3",
        "Paris -LRB-city-RRB-",
    ),
    (
        "Paris had 2.1\ufffdmillion residents in 2019 .",
        "Paris is big.",
        "NOT ENOUGH INFO",
        "c4",
        "Paris -LRB-city-RRB-",
    ),
]


@pytest.mark.parametrize("gz", [True, False])
def test_load_vitaminc_reads_labels_groups_and_detokenizes(tmp_path: Path, gz: bool) -> None:
    recs = load_vitaminc(_vitaminc(tmp_path / "v", ROWS, gz=gz), source="vitc")
    assert [r.example.label for r in recs] == [0, 2, 1, 0, 1]
    assert [r.case_id for r in recs] == ["c1", "c1", "c2", "c3", "c4"]
    assert recs[3].page == "Paris (city)"
    assert recs[0].example.premise == "Westlife sold 24 million records in the UK."
    assert "\ufffd" not in recs[4].example.premise and "2.1 million" in recs[4].example.premise
    assert all(r.example.source == "vitc" for r in recs)


def test_load_vitaminc_rejects_misaligned_sidecar(tmp_path: Path) -> None:
    folder = _vitaminc(tmp_path / "v", ROWS, gz=False)
    lines = (folder / "test.ids.tsv").read_text().splitlines()
    (folder / "test.ids.tsv").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(ValueError, match="id lines"):
        load_vitaminc(folder)


def test_split_grouped_keeps_pages_and_cases_on_one_side(tmp_path: Path) -> None:
    rows = [
        (
            f"Fact {i} about page {i % 40} .",
            f"Claim {i}.",
            "entailment",
            f"case{i % 80}",  # a case lies on one page, as in VitaminC
            f"P{(i % 80) // 2}",
        )
        for i in range(400)
    ]
    recs = load_vitaminc(_vitaminc(tmp_path / "v", rows))
    train, held = split_grouped(recs, "vitc", 0.25)
    assert len(train) + len(held) == len(recs) and train and held
    assert not {r.page for r in train} & {r.page for r in held}
    assert not {r.case_id for r in train} & {r.case_id for r in held}
    # a pure function of the data
    assert split_grouped(recs, "vitc", 0.25) == (train, held)


def test_topic_groups_and_climate_fever_groups(tmp_path: Path) -> None:
    recs = load_vitaminc(_vitaminc(tmp_path / "v", ROWS))
    groups = topic_groups(recs)
    assert set(groups) == {"Westlife", "Paris (city)"}
    assert len(groups["Westlife"]) == 3  # distinct premises, in file order
    cf = tmp_path / "cf.jsonl"
    cf.write_text(
        json.dumps(
            {
                "claim_id": "7",
                "claim": "x",
                "evidences": [
                    {"evidence": "Sea ice is melting ."},
                    {"evidence": "Glaciers retreat worldwide ."},
                    {"evidence": "Sea ice is melting ."},
                ],
            }
        )
        + "\n"
        + json.dumps({"claim_id": "8", "claim": "y", "evidences": [{"evidence": "Only one ."}]})
        + "\n"
    )
    assert climate_fever_groups(cf) == {
        "cf:7": ["Sea ice is melting.", "Glaciers retreat worldwide."]
    }


GROUPS = {
    "tower": [
        "The Eiffel Tower was completed in 1889 for the World's Fair.",
        "Gustave Eiffel's company designed and built the wrought-iron structure.",
        "The tower receives about seven million visitors every single year.",
        "The Eiffel Tower was completed in 1925 for the World's Fair.",
    ],
    "bears": [
        "Polar bears depend on sea ice to hunt seals in the Arctic.",
        "The species is listed as vulnerable by conservation groups.",
        "Adult males weigh between 350 and 700 kilograms on average.",
    ],
}


def test_related_neutral_pairs_are_different_facts_of_one_topic() -> None:
    pairs = related_neutral_pairs(GROUPS, 20, seed=1)
    assert pairs and all(e.label == 1 and e.source == "related-neutral" for e in pairs)
    topic_of = {s: k for k, v in GROUPS.items() for s in v}
    for e in pairs:
        assert e.premise != e.hypothesis
        assert topic_of[e.premise] == topic_of[e.hypothesis]
        assert overlap(e.premise, e.hypothesis) <= 0.4
        # the 1889 / 1925 revisions conflict: never paired as "related but different"
        assert {e.premise, e.hypothesis} != {GROUPS["tower"][0], GROUPS["tower"][3]}
    assert len({(e.premise, e.hypothesis) for e in pairs}) == len(pairs)
    assert related_neutral_pairs(GROUPS, 20, seed=1) == pairs
    assert len(related_neutral_pairs(GROUPS, 3, seed=1)) == 3


def test_reverse_entailment_pairs_labels() -> None:
    exs = [
        NLIExample("The old man sold his red car to a neighbour.", "The old man sold a car.", 0),
        NLIExample(
            "The committee approved the new budget plan on Monday.",
            "On Monday the committee approved the new budget plan.",
            0,
        ),
        NLIExample("A dog runs.", "A cat sleeps.", 2),
    ]
    out = reverse_entailment_pairs(exs, 10, seed=0)
    assert len(out) == 2  # only entailment pairs are reversed
    by_h = {e.hypothesis: e for e in out}
    added = by_h["The old man sold his red car to a neighbour."]
    assert added.premise == "The old man sold a car." and added.label == 1
    para = by_h["The committee approved the new budget plan on Monday."]
    assert para.label == 0 and para.source.endswith("paraphrase")
    assert all(e.label != 2 for e in out)


@pytest.mark.parametrize(
    ("sentence", "kind", "expected"),
    [
        ("The tower was completed in 1889.", "synonym", "The tower was finished in 1889."),
        (
            "The firm was founded on July 4, 1976 in Boston.",
            "date_format",
            "The firm was founded on 4 July 1976 in Boston.",
        ),
        ("Turnout reached 45 percent.", "number_format", "Turnout reached 45%."),
        ("The town has 12,500 inhabitants.", "number_format", "The town has 12500 inhabitants."),
        ("It opened in 1925.", "year_phrase", "It opened in the year 1925."),
    ],
)
def test_paraphrase_rules(sentence: str, kind: str, expected: str) -> None:
    outs = {
        (e.kind, e.text)
        for seed in range(30)
        if (e := paraphrase(sentence, random.Random(seed))) is not None
    }
    assert (kind, expected) in outs
    assert all(label_text != sentence for _, label_text in outs)


def test_paraphrase_none_without_a_site() -> None:
    assert paraphrase("Dogs bark at night.", random.Random(0)) is None


def test_paraphrase_pairs_are_entailment_in_both_orders() -> None:
    sents = [f"The bridge number {i} was completed in {1800 + i}." for i in range(60)]
    pairs = paraphrase_pairs(sents, 40, seed=3)
    assert len(pairs) == 40 and all(e.label == 0 for e in pairs)
    assert any(e.premise in sents for e in pairs) and any(e.hypothesis in sents for e in pairs)
    assert paraphrase_pairs(sents, 40, seed=3) == pairs


def test_to_question_forms() -> None:
    s = "The Eiffel Tower was completed in 1889."
    qs = {to_question(s, random.Random(i)) for i in range(40)}
    assert "Was the Eiffel Tower completed in 1889?" in qs
    assert "When was the Eiffel Tower completed?" in qs
    assert all(q and q.endswith("?") for q in qs)
    q = to_question("About 45 percent of residents voted for the plan.", random.Random(0))
    assert q == "Is it true that about 45 percent of residents voted for the plan?"
    assert to_question("Is it raining today?", random.Random(0)) is None
    assert to_question("Too short.", random.Random(0)) is None


def test_question_pairs_are_neutral_and_cover_kinds() -> None:
    aug = Augmenter([s for v in GROUPS.values() for s in v])
    pairs = question_pairs(GROUPS, 60, seed=2, augmenter=aug)
    assert len(pairs) == 60 and all(e.label == 1 for e in pairs)
    assert all(e.premise.endswith("?") != e.hypothesis.endswith("?") for e in pairs)
    kinds = {e.source.split(":")[1] for e in pairs}
    assert kinds == {"same", "related", "edited"}
    assert question_pairs(GROUPS, 60, seed=2, augmenter=aug) == pairs


def test_compatible_metrics_rates_by_kind() -> None:
    exs = [
        NLIExample("a", "b", 0, "compatible:paraphrase"),
        NLIExample("a", "c", 1, "compatible:paraphrase"),
        NLIExample("a", "d", 1, "compatible:question-same"),
        NLIExample("a", "e", 1, "compatible:question-same"),
    ]
    probs = np.array(
        [[0.9, 0.05, 0.05], [0.1, 0.3, 0.6], [0.2, 0.35, 0.45], [0.1, 0.8, 0.1]],
        dtype=np.float32,
    )
    res = compatible_metrics(exs, probs)
    assert res["false_contra"] == pytest.approx(0.5)  # rows 2 and 3 argmax contradiction
    assert res["false_contra_p50"] == pytest.approx(0.25)  # only row 2 reaches 0.5
    assert res["false_contra_by_kind"]["paraphrase"] == (0.5, 0.5, 2)
    assert res["false_contra_by_kind"]["question-same"] == (0.5, 0.0, 2)
