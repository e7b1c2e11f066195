import json
import sys

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


def test_subcommand_modules_from_a_checkout_or_skipped(monkeypatch, tmp_path) -> None:
    """train-nli's package is not in the wheel: it loads from the source checkout beside
    mirage_core/ when not importable otherwise, and an absent one is skipped."""
    assert cli.build_parser().parse_args(["train-nli", "--out", "x"]).out == "x"
    monkeypatch.setattr(cli, "_CHECKOUT", tmp_path)
    assert cli._subcommand_module("mirage_absent_part.cli") is None  # no checkout
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "mirage_absent_part").mkdir()
    (tmp_path / "mirage_absent_part" / "__init__.py").write_text("")
    (tmp_path / "mirage_absent_part" / "cli.py").write_text("def register(sub): pass\n")
    try:
        module = cli._subcommand_module("mirage_absent_part.cli")
        assert module is not None and callable(module.register)
        assert cli._subcommand_module("mirage_absent_part.other") is None
    finally:
        for name in ("mirage_absent_part", "mirage_absent_part.cli"):
            sys.modules.pop(name, None)


@pytest.mark.model
@pytest.mark.parametrize(("runtime", "imports_torch"), [("onnx", False), ("torch", True)])
def test_defend_imports_torch_only_for_the_torch_runtime(passages_file, runtime, imports_torch):
    """On ONNX Runtime `mirage defend` never imports torch or transformers (their import is
    most of a cold start); on torch, transformers' progress bars stay off."""
    import os
    import subprocess

    code = (
        "import sys; from mirage_core.cli import main; "
        f"rc = main(['defend', '--query', 'When was it completed?', '--passages', {str(passages_file)!r}]); "
        "print(rc, 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    env = {**os.environ, "MIRAGE_RUNTIME": runtime}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr
    rc, torch_imported, transformers_imported = done.stdout.strip().splitlines()[-1].split()
    assert rc == "0"
    assert torch_imported == transformers_imported == str(imports_torch)
    assert "Loading weights" not in done.stderr
