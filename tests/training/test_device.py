"""Staging a checkout for a device run and back, in a throwaway git repository; a model
directory from a run's returned files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from training.bundle import BASE_DIR, split_file
from training.device import fetch, stage, travel_bytes, unstage

BIG = "models/weights.bin"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed repository: a small file and a big one."""
    _git(tmp_path, "init", "-q")
    (tmp_path / "models").mkdir()
    (tmp_path / BIG).write_bytes(b"w" * 5_000)
    (tmp_path / "code.py").write_text("x = 1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    return tmp_path


def test_stage_leaves_the_big_file_behind_and_unstage_restores_the_index(repo: Path) -> None:
    exclude = repo / ".git" / "info" / "exclude"
    before_exclude = exclude.read_text()
    assert travel_bytes(repo) == 5_006
    stage(repo, [BIG])
    assert travel_bytes(repo) == 6  # the file is on disk, untracked and ignored
    assert (repo / BIG).is_file()
    with pytest.raises(RuntimeError, match="already staged"):
        stage(repo, [BIG])
    assert unstage(repo, [BIG]) is True
    assert _git(repo, "status", "--porcelain") == ""
    assert exclude.read_text() == before_exclude
    assert travel_bytes(repo) == 5_006
    assert unstage(repo, [BIG]) is False  # idempotent


def test_carried_paths_count_towards_what_travels(repo: Path) -> None:
    (repo / "bundle").mkdir()
    (repo / "bundle" / "a.npz").write_bytes(b"d" * 100)
    assert travel_bytes(repo, ["bundle"]) == 5_006 + 100


def test_stage_refuses_uncommitted_changes_it_would_hide(repo: Path) -> None:
    (repo / BIG).write_bytes(b"changed")
    with pytest.raises(RuntimeError, match="uncommitted changes"):
        stage(repo, [BIG])
    assert _git(repo, "status", "--porcelain").strip() == f"M {BIG}"


def test_fetch_joins_the_weights_and_takes_the_tokenizer_from_the_bundle(tmp_path: Path) -> None:
    returned, bundle = tmp_path / "returned", tmp_path / "bundle"
    (bundle / BASE_DIR).mkdir(parents=True)
    (bundle / BASE_DIR / "tokenizer.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"0123456789" * 7)
    split_file(tmp_path / "model.safetensors", returned, max_bytes=20)
    (returned / "config.json").write_text('{"num_labels": 3}')
    out = fetch(returned, tmp_path / "model", bundle)
    assert (out / "model.safetensors").read_bytes() == b"0123456789" * 7
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
    ]
