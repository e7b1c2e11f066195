"""`mirage pollute` round trip; `mirage bench` / `mirage calibrate` smoke runs on the test double."""

from __future__ import annotations

import json
import re
import sys
import types

import pytest

from mirage_core import MirageConfig
from mirage_core.cli import main
from mirage_core.evaluation.datasets import load_jsonl
from mirage_core.pollution import PollutedPassage

from .conftest import passage_row


def _read(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_pollute_passage_file_round_trip(tmp_path, clean_passages, capsys):
    src = tmp_path / "passages.jsonl"
    src.write_text("".join(json.dumps(passage_row(p)) + "\n" for p in clean_passages))
    out = tmp_path / "polluted.jsonl"
    args = [
        "pollute",
        "--in",
        str(src),
        "--out",
        str(out),
        "--family",
        "unambiguous",
        "--seed",
        "3",
    ]
    assert main(args) == 0
    assert "polluted 3 of 3 passages" in capsys.readouterr().out
    rows = _read(out)
    assert len(rows) == 3
    for original, row in zip(clean_passages, rows, strict=True):
        pp = PollutedPassage.from_row(row)
        assert (
            pp.family == "unambiguous"
            and pp.original == original.text
            and pp.source == original.source
        )
        assert pp.text != original.text
        for e in pp.edits:
            assert pp.text[e.start : e.end] == e.replacement
    first = out.read_text()
    assert main(args) == 0 and out.read_text() == first  # same seed, same output


def test_pollute_query_file_mixed(tmp_path, query_file):
    out = tmp_path / "mixed.jsonl"
    assert (
        main(
            [
                "pollute",
                "--in",
                str(query_file),
                "--out",
                str(out),
                "--family",
                "conflicting",
                "--regime",
                "mixed",
                "--seed",
                "1",
            ]
        )
        == 0
    )
    rows = _read(out)
    assert len(rows) == 4
    for row in rows:
        assert (
            row["regime"] == "mixed" and row["family"] == "conflicting" and row["answer"] == "1889"
        )
        assert sum("mirage_pollution" in p for p in row["passages"]) == 2  # half of 3, rounded up
    ds = load_jsonl(out)  # bench reads the labels back
    assert {i.regime for i in ds.instances} == {"mixed"} and all(
        i.n_polluted == 2 for i in ds.instances
    )


def test_pollute_rejects_bad_input(tmp_path, capsys):
    src = tmp_path / "x.jsonl"
    src.write_text('{"nope": 1}\n')
    assert (
        main(
            [
                "pollute",
                "--in",
                str(src),
                "--out",
                str(tmp_path / "y.jsonl"),
                "--family",
                "fabricated",
            ]
        )
        == 2
    )
    assert "rows must all be" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"query": "q", "passages": [1, 2]}, r":1: passage 0: a passage must be a Passage"),
        ({"query": "q", "passages": [{"url": "x"}]}, r":1: passage 0: a passage mapping needs"),
        (
            {"query": "q", "contexts": [{"text": "a", "score": "high"}]},
            r":1: passage 0: a passage's 'score'",
        ),
        ({"text": "a", "metadata": "oops"}, r":1: row: Passage\.metadata must be a mapping"),
    ],
)
def test_pollute_names_the_line_of_a_passage_that_is_none(tmp_path, capsys, row, message):
    src = tmp_path / "x.jsonl"
    src.write_text(json.dumps(row) + "\n")
    args = ["pollute", "--in", str(src), "--out", str(tmp_path / "y.jsonl")]
    assert main([*args, "--family", "fabricated"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mirage: error: ") and re.search(message, err)


def test_pollute_reads_the_passage_keys_bench_reads(tmp_path, query_file):
    rows = [json.loads(line) for line in query_file.read_text().splitlines() if line.strip()]
    src = tmp_path / "contexts.jsonl"
    for r in rows:
        r["contexts"] = r.pop("passages")
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    args = ["pollute", "--in", str(src), "--out", str(out), "--family", "conflicting"]
    assert main([*args, "--regime", "full"]) == 0
    assert all(all("mirage_pollution" in p for p in row["contexts"]) for row in _read(out))


def test_a_batch_size_is_positive(query_file):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--dataset", str(query_file), "--batch-size", "0"])
    assert exit_.value.code == 2


@pytest.fixture
def nli_module(fake_nli, monkeypatch):
    """The test double, importable as `module:attribute` for --model."""
    module = types.ModuleType("_mirage_test_nli")
    module.backend = fake_nli
    monkeypatch.setitem(sys.modules, "_mirage_test_nli", module)
    return "_mirage_test_nli:backend"


@pytest.mark.model
def test_bench_writes_reports(tmp_path, query_file, nli_module, capsys):
    out = tmp_path / "bench"
    assert (
        main(
            [
                "bench",
                "--dataset",
                str(query_file),
                "--model",
                nli_module,
                "--limit",
                "2",
                "--families",
                "unambiguous",
                "--out",
                str(out),
                "--no-plots",
                "--no-progress",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "| CLEAN | mirage |" in printed and "| MIXED | vanilla RAG |" in printed
    report = json.loads((out / "report.json").read_text())
    assert report["dataset"]["n_queries"] == 2 and report["systems"][0] == "no_rag"
    assert (out / "report.md").read_text().startswith("# mirage bench")
    assert len((out / "instances.jsonl").read_text().splitlines()) == 2 * 3


@pytest.mark.model
def test_calibrate_writes_a_loadable_config(tmp_path, query_file, nli_module, capsys):
    out = tmp_path / "cal.json"
    assert (
        main(
            [
                "calibrate",
                "--dataset",
                str(query_file),
                "--model",
                nli_module,
                "--families",
                "unambiguous",
                "--r-max",
                "0.2,0.5",
                "--d-min",
                "1,2",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "0 cache misses" in printed and "best:" in printed
    cfg = MirageConfig.from_file(out)
    assert cfg.r_max in (0.2, 0.5) and cfg.d_min in (1, 2)


def test_calibrate_takes_coordination_thresholds(tmp_path, query_file, nli_module, capsys):
    out = tmp_path / "cal.json"
    base = tmp_path / "base.json"
    MirageConfig(coordination="text").to_file(base)
    args = ["calibrate", "--dataset", str(query_file), "--model", nli_module, "--config"]
    args += [str(base), "--families", "unambiguous", "--r-max", "0.5", "--d-min", "1"]
    args += ["--coordination-threshold", "2,3", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "coordination (group / whole)" in printed and "0 cache misses" in printed
    cfg = MirageConfig.from_file(out)
    assert cfg.method.coordination_threshold in (2.0, 3.0) and cfg.coordination == "text"


@pytest.mark.model
def test_calibrate_takes_the_opt_in_rules_choices(tmp_path, query_file, nli_module, capsys):
    out = tmp_path / "cal.json"
    args = ["calibrate", "--dataset", str(query_file), "--model", nli_module]
    args += ["--families", "unambiguous", "--r-max", "0.5", "--d-min", "1"]
    args += ["--answer-conflict-context", "claim,lead+previous"]
    args += ["--redundancy-filter", "none,multi_hop", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "answer_conflict_context | redundancy_filter |" in printed
    assert "0 cache misses" in printed and "best: " in printed
    best = printed.split("best: ")[1].splitlines()[0]
    assert "answer_conflict_context=" in best and "redundancy_filter=" in best
    cfg = MirageConfig.from_file(out)
    assert cfg.method.answer_conflict_context in ("claim", "lead+previous")
    assert cfg.redundancy_filter in ("none", "multi_hop")
    assert main([*args, "--answer-conflict-context", "page"]) != 0  # the last one counts
    assert "answer_conflict_context must be one of" in capsys.readouterr().err


def test_bench_quantize_reaches_the_backend(tmp_path, query_file, monkeypatch, capsys):
    import mirage_core.nli.loading as loading
    from mirage_core import CallableNLI
    from tests.conftest import lexical_nli

    asked = {}

    def spy(spec=None, **kwargs):
        asked.update(kwargs, spec=spec)
        return CallableNLI(lexical_nli)

    monkeypatch.setattr(loading, "load_backend", spy)
    args = ["bench", "--dataset", str(query_file), "--limit", "1", "--families", "unambiguous"]
    args += ["--out", str(tmp_path / "bench"), "--no-plots", "--no-progress"]
    assert main([*args, "--quantize", "static-int8"]) == 0
    assert asked["quantize"] == "static-int8" and asked["spec"] is None
    asked.clear()
    assert main(args) == 0
    assert "quantize" not in asked  # fp32 unless asked
