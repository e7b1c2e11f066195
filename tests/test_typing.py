"""mypy finds no error in the three packages (pyproject.toml's ``[tool.mypy]``): the annotations
agree with the code and with the dependencies' type information, which users' type checkers
read (the packages ship ``py.typed``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error(monkeypatch):
    api = pytest.importorskip("mypy.api", reason="mypy comes with the dev extra")
    # the configured packages are found from the repository root, and the dependencies in
    # this interpreter's environment
    monkeypatch.chdir(ROOT)
    report, errors, status = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--python-executable", sys.executable]
    )
    assert status == 0, report + errors
