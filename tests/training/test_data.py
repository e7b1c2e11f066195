"""Loaders for each field layout in ../shared/data/nli, on small files written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.data import (
    load_climate_fever,
    load_jsonl,
    load_line_aligned,
    load_tsv,
    normalize_label,
    normalize_text,
    split_sentences,
)


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("entailment", 0),
        ("NEUTRAL", 1),
        ("contradiction", 2),
        ("SUPPORTS", 0),
        ("REFUTES", 2),
        ("NOT_ENOUGH_INFO", 1),
        ("e", 0),
        ("n", 1),
        ("c", 2),
        ("-", None),
        ("not_entailment", None),
        ("DISPUTED", None),
        (None, None),
        (1, 1),
    ],
)
def test_normalize_label(raw: object, expected: int | None) -> None:
    assert normalize_label(raw) == expected


def test_jsonl_premise_hypothesis_label(tmp_path: Path) -> None:
    p = _jsonl(
        tmp_path / "mnli.jsonl",
        [
            {"premise": "A cat sleeps.", "hypothesis": "An animal sleeps.", "label": "entailment"},
            {"premise": "A cat sleeps.", "hypothesis": "A dog barks.", "label": "neutral"},
            {"premise": "x", "hypothesis": "y", "label": "-"},
        ],
    )
    exs = load_jsonl(p, source="mnli")
    assert [(e.hypothesis, e.label, e.source) for e in exs] == [
        ("An animal sleeps.", 0, "mnli"),
        ("A dog barks.", 1, "mnli"),
    ]


def test_jsonl_lingnli_and_breaking_layouts(tmp_path: Path) -> None:
    ling = _jsonl(
        tmp_path / "ling.jsonl",
        [
            {
                "AnonId": 1,
                "annotator_labels": ["contradiction"],
                "label": "contradiction",
                "pairID": "1c",
                "premise": "He left early.",
                "hypothesis": "He stayed late.",
            }
        ],
    )
    brk = _jsonl(
        tmp_path / "breaking.jsonl",
        [
            {
                "sentence1": "A man in a red shirt.",
                "category": "colors",
                "gold_label": "contradiction",
                "annotator_labels": ["contradiction"],
                "pairID": 3,
                "sentence2": "A man in a blue shirt.",
            }
        ],
    )
    assert load_jsonl(ling)[0].label == 2
    ex = load_jsonl(brk)[0]
    assert (ex.premise, ex.hypothesis, ex.label) == (
        "A man in a red shirt.",
        "A man in a blue shirt.",
        2,
    )


def test_jsonl_fever_layouts(tmp_path: Path) -> None:
    v1 = _jsonl(
        tmp_path / "v1.jsonl",
        [
            {
                "id": "1",
                "label": "SUPPORTS",
                "claim": "Telemundo is a network .",
                "evidence_sentence": "Telemundo -LRB- TV -RRB- is an American network .",
            }
        ],
    )
    v2 = _jsonl(
        tmp_path / "v2.jsonl",
        [
            {
                "id": "2",
                "claim": "c",
                "evidence": "e",
                "sentence1": "The Cretaceous ended .",
                "sentence2": "The Cretaceous ended with a bang .",
                "gold_label": "REFUTES",
                "label": "REFUTES",
            }
        ],
    )
    a = load_jsonl(v1)[0]
    assert a.premise == "Telemundo (TV) is an American network."
    assert a.hypothesis == "Telemundo is a network." and a.label == 0
    b = load_jsonl(v2)[0]
    assert b.premise == "The Cretaceous ended." and b.label == 2


def test_tsv_layouts(tmp_path: Path) -> None:
    cad = tmp_path / "cad.tsv"
    cad.write_text("sentence1\tsentence2\tgold_label\nA man rides.\tA person rides.\tentailment\n")
    conj = tmp_path / "conj.tsv"
    conj.write_bytes(
        "\ufeffPremise\tHypothesis\tLabel\nHe was born in Ohio.\tHe was born.\tentailment\n".encode(
            "utf-8"
        )
    )
    taxi = tmp_path / "taxi.tsv"
    taxi.write_text("\tUnnamed: 0\tprem\thyp\tlabel\tlexical\n0\t0\tP one.\tH one.\tneutral\t0\n")
    neg = tmp_path / "neg.txt"
    neg.write_text(
        "index\tText\tHypothesis\tgold_label\n0\tIt is not red.\tIt is red.\tcontradiction\n"
    )
    sick = tmp_path / "SICK.txt"
    sick.write_text(
        "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
        "1\tKids play.\tA man sits.\t2.5\tNEUTRAL\n"
    )
    assert load_tsv(cad)[0].label == 0
    c = load_tsv(conj)[0]
    assert c.premise == "He was born in Ohio." and c.label == 0
    t = load_tsv(taxi)[0]
    assert (t.premise, t.hypothesis, t.label) == ("P one.", "H one.", 1)
    assert load_tsv(neg)[0].label == 2
    s = load_tsv(sick)[0]
    assert (s.premise, s.hypothesis, s.label) == ("Kids play.", "A man sits.", 1)


def test_tsv_mixed_encoding(tmp_path: Path) -> None:
    p = tmp_path / "cp1252.tsv"
    p.write_bytes(b"sentence1\tsentence2\tgold_label\nHe said \x93hi\x94.\tHe spoke.\tentailment\n")
    ex = load_tsv(p)[0]
    assert "\u201chi\u201d" in ex.premise


def test_tsv_unknown_layout(tmp_path: Path) -> None:
    p = tmp_path / "x.tsv"
    p.write_text("a\tb\tc\n1\t2\t3\n")
    with pytest.raises(ValueError):
        load_tsv(p)


def test_line_aligned(tmp_path: Path) -> None:
    (tmp_path / "s1.test").write_text("A choir sings . \nA dog runs . \nX . \n")
    (tmp_path / "s2.test").write_text("People sing . \nA cat sleeps . \nY . \n")
    (tmp_path / "labels.test").write_text("entailment\ncontradiction\n-\n")
    exs = load_line_aligned(tmp_path / "s1.test", tmp_path / "s2.test", tmp_path / "labels.test")
    assert [(e.premise, e.label) for e in exs] == [("A choir sings.", 0), ("A dog runs.", 2)]
    (tmp_path / "labels.bad").write_text("entailment\n")
    with pytest.raises(ValueError):
        load_line_aligned(tmp_path / "s1.test", tmp_path / "s2.test", tmp_path / "labels.bad")


def test_climate_fever(tmp_path: Path) -> None:
    p = _jsonl(
        tmp_path / "cf.jsonl",
        [
            {
                "claim_id": "0",
                "claim": "Warming drives bears to extinction",
                "claim_label": "SUPPORTS",
                "evidences": [
                    {"evidence": "Bears are endangered by warming.", "evidence_label": "SUPPORTS"},
                    {"evidence": "Bees are at risk.", "evidence_label": "NOT_ENOUGH_INFO"},
                    {"evidence": "Bears are thriving.", "evidence_label": "REFUTES"},
                    {"evidence": "Unclear.", "evidence_label": "DISPUTED"},
                ],
            }
        ],
    )
    exs = load_climate_fever(p)
    assert [e.label for e in exs] == [0, 1, 2]
    assert all(e.hypothesis == "Warming drives bears to extinction" for e in exs)


def test_text_helpers() -> None:
    assert normalize_text("It is n't  here , he said .") == "It isn't here, he said."
    assert split_sentences("He was born in 1950. He died in the U.S. in 2001. Dr. Who left.") == [
        "He was born in 1950.",
        "He died in the U.S. in 2001.",
        "Dr. Who left.",
    ]
