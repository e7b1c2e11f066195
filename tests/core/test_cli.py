import json

import pytest

from mirage_core import cli


@pytest.fixture
def passages_file(tmp_path, clean_passages):
    path = tmp_path / "p.jsonl"
    rows = [
        {"text": p.text, "url": p.source, "score": p.score, "lang": "en"} for p in clean_passages
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    return path


@pytest.fixture
def patched_nli(monkeypatch, fake_nli, fake_embedder):
    # The CLI resolves --model through Mirage; route it to the test doubles.
    monkeypatch.setattr(
        cli,
        "_make_mirage",
        lambda config, model: cli.Mirage(config, nli=fake_nli, embedder=fake_embedder),
    )


def test_defend_text_output(passages_file, patched_nli, capsys):
    assert (
        cli.main(["defend", "--query", "When was it completed?", "--passages", str(passages_file)])
        == 0
    )
    out = capsys.readouterr().out
    assert "decision: VERIFIED" in out and "verified evidence:" in out and "britannica.com" in out


def test_defend_json_output(passages_file, patched_nli, capsys):
    assert cli.main(["defend", "--query", "q", "--passages", str(passages_file), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decision"] == "verified" and data["claims"][0]["source"].startswith("https://")


def test_defend_independence_flag_overrides_the_config(passages_file, patched_nli, capsys):
    args = ["defend", "--query", "q", "--passages", str(passages_file), "--json"]
    assert cli.main([*args, "--paper", "--independence", "embedding"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["thresholds"]["independence"] == "embedding"
    assert "groups" in data["extras"]
    with pytest.raises(SystemExit):
        cli.main([*args, "--independence", "url"])


def test_bad_jsonl_is_a_clear_error(tmp_path, patched_nli):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{not json}\n')
    with pytest.raises(SystemExit, match=r"bad\.jsonl:2: not valid JSON"):
        cli.main(["defend", "--query", "q", "--passages", str(bad)])
    missing = tmp_path / "m.jsonl"
    missing.write_text('{"body": "x"}\n')
    with pytest.raises(SystemExit, match="string 'text' field"):
        cli.main(["defend", "--query", "q", "--passages", str(missing)])


def test_missing_file_exits_2(tmp_path, patched_nli, capsys):
    assert cli.main(["defend", "--query", "q", "--passages", str(tmp_path / "nope.jsonl")]) == 2
    assert "mirage: error" in capsys.readouterr().err
