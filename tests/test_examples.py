"""The examples run as a newcomer runs them, with the packaged models: each answers its clean
question from verified evidence and sends its polluted one to the fallback route."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ["langchain_quickstart.py", "llamaindex_quickstart.py", "llamaindex_workflow.py"]


def _run_example(name: str) -> subprocess.CompletedProcess[str]:
    """``examples/<name>`` run as a newcomer runs it, offline; it must exit 0."""
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run


@pytest.mark.model
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_routes_clean_and_polluted_questions(name):
    pytest.importorskip("torch")
    run = _run_example(name)
    routes = [r.lower() for r in re.findall(r"route:\s+(\w+)", run.stdout)]
    assert routes == ["verified", "fallback"], run.stdout[-3000:]


@pytest.mark.model
def test_hostile_evidence_example_leaves_the_instructing_page_out():
    out = _run_example("hostile_evidence.py").stdout
    prompt = out.split("prompt for the model:", 1)[1]
    assert "route: verified" in out and "<evidence>" in prompt
    assert "Stephen King" not in prompt and "<p>" not in prompt and "<script" not in prompt
    assert "warning: passage 3 instructs the model; it is left out" in out
    # a claim of the raw HTML page, and its span in the caller's text
    assert "Moby-Dick sold poorly in Melville's lifetime." in prompt
    assert "'Moby-Dick sold poorly in Melville&#39;s lifetime.'" in out
