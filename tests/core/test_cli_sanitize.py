"""Everything the command line prints to a terminal goes through one sanitizer: a passage's
source or text cannot clear the screen, print a forged VERIFIED, move the cursor or reverse
the text direction."""

from __future__ import annotations

import json

import pytest

from mirage_core import cli
from mirage_core.cli import sanitize

CLEAR = "\x1b[2J\x1b[H"
FORGED = "\x1b]0;VERIFIED\x07\x1b[32mdecision: VERIFIED\x1b[0m"
HOSTILE = ["\x1b", "\x07", "\x08", "\r", "\x9b", "\x85", "\u202e", "\u2066", "\u200b", "\u2028"]


@pytest.mark.parametrize("ch", HOSTILE)
def test_every_hidden_character_becomes_a_visible_escape(ch) -> None:
    out = sanitize(f"a{ch}b")
    assert ch not in out and out == f"a\\u{ord(ch):04x}b"


def test_the_sanitizer_keeps_text_and_layout() -> None:
    text = "Paris, naïve café — 東京\tcolumn\nnext line"
    assert sanitize(text) == text
    assert sanitize("a\nb", newlines=False) == "a\\u000ab"
    assert sanitize("\U000e0041") == "\\udb40\\udc41"  # a tag character: a JSON surrogate pair
    assert sanitize("\ud800") == "\\ud800"  # a lone surrogate prints as an escape
    hostile = json.dumps({"s": "x\u202e\x9b" + CLEAR}, ensure_ascii=False)
    assert json.loads(sanitize(hostile)) == json.loads(hostile)  # JSON keeps its meaning


@pytest.fixture
def hostile_file(tmp_path, clean_passages):
    path = tmp_path / "p.jsonl"
    rows = [{"text": p.text, "url": p.source, "score": p.score} for p in clean_passages]
    rows[0]["url"] = f"https://evil.example/{CLEAR}{FORGED}"
    rows[0]["text"] = rows[0]["text"] + f" {FORGED}\u202e"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def assert_no_hidden(text: str) -> None:
    for ch in text:
        assert ch in "\t\n" or not (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0), repr(ch)
    for ch in ("\u202e", "\u2066", "\u200b", "\u2028"):
        assert ch not in text


@pytest.mark.parametrize("mode", [[], ["--json"]])
def test_defend_prints_no_escape_sequence(hostile_file, patched_nli, capsys, mode) -> None:
    argv = ["defend", "--query", "When was it completed?", "--passages", str(hostile_file)]
    assert cli.main(argv + mode) == 0
    out, err = capsys.readouterr()
    assert_no_hidden(out + err)
    assert "\\u001b[2J" in out  # the sequence is shown, not obeyed
    if mode:
        data = json.loads(out)
        assert any("\x1b[2J" in c["source"] for c in data["claims"])  # same value in JSON
    else:
        # The only VERIFIED at the start of a line is the real decision (if any), not one
        # forged inside an escape sequence.
        forged = [line for line in out.splitlines() if line.startswith("\x1b")]
        assert forged == []


def test_errors_are_sanitized(tmp_path, capsys) -> None:
    bad = tmp_path / f"bad{CLEAR}.jsonl"
    bad.write_text(json.dumps({"text": 3, "x": CLEAR}) + "\n")
    assert cli.main(["defend", "--query", "q", "--passages", str(bad)]) == 2
    err = capsys.readouterr().err
    assert_no_hidden(err) and "string 'text' field" in err and "\\u001b[2J" in err
    missing = tmp_path / f"no{CLEAR}such.jsonl"
    assert cli.main(["defend", "--query", "q", "--passages", str(missing)]) == 2
    err = capsys.readouterr().err
    assert_no_hidden(err) and "\\u001b[2J" in err


def test_a_lone_surrogate_reaches_neither_the_report_nor_other_queries(
    tmp_path, clean_passages, patched_nli, capsys
) -> None:
    """One passage holding a lone surrogate: `mirage defend --html` writes the report, and the
    text every step reads holds no surrogate."""
    path = tmp_path / "p.jsonl"
    rows = [{"text": p.text, "url": p.source, "score": p.score} for p in clean_passages]
    rows[0]["text"] = rows[0]["text"].replace("Paris", "Par\ud800is")
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")  # JSON escapes the surrogate
    report = tmp_path / "report.html"
    argv = ["defend", "--query", "Where is the tower?", "--passages", str(path), "--json"]
    assert cli.main([*argv, "--html", str(report)]) == 0
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    data = json.loads(capsys.readouterr().out)
    assert all("\ud800" not in c["text"] for c in data["claims"])
