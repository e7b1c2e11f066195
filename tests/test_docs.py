"""The documentation: the MkDocs site builds strictly, and README.md stays a true front page."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_mkdocs_build_strict(tmp_path):
    """A broken link, a missing included file or a stale API name fails the build."""
    pytest.importorskip("mkdocs", reason="the docs tools come with the dev extra")
    pytest.importorskip("mkdocstrings")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    api = (site / "api" / "engine" / "index.html").read_text(encoding="utf-8")
    assert "defend" in api and "MirageConfig" in api  # mkdocstrings rendered the docstrings
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert "--html" in cli and "mirage-help" not in cli  # every --help marker was replaced
    assert (site / "assets" / "eiffel-report.html").is_file()


def _fenced_commands(text: str) -> list[str]:
    """Command lines of the README's ```bash blocks (comments and blank lines dropped)."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        out += [ln.strip() for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]
    return out


def test_readme_is_a_front_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    setup, tests = _fenced_commands(text.split("## Two commands", 1)[1])[:2]
    assert setup.startswith("bash scripts/setup.sh && .venv/bin/mirage defend ")
    # the example the first command runs is in the repository
    args = shlex.split(setup.split("&&", 1)[1])
    assert (ROOT / args[args.index("--passages") + 1]).is_file()
    ci = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "bash scripts/setup.sh" in ci and tests in ci  # CI runs the README's test command
    assert tests == ".venv/bin/python -m pytest -q"


def test_readme_links_point_at_files():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets
    for target in targets:
        if re.match(r"[a-z]+://", target) or target.startswith("#"):
            continue
        assert (ROOT / target.split("#")[0]).exists(), f"README links to a missing {target}"


def test_configuration_page_lists_every_field():
    import dataclasses

    from mirage_core import MirageConfig

    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [f.name for f in dataclasses.fields(MirageConfig) if f"`{f.name}`" not in page]
    assert not missing, f"docs/configuration.md does not describe {missing}"


def test_serving_page_lists_every_serve_setting():
    import dataclasses

    from mirage_core.serve import ServeConfig

    page = (ROOT / "docs" / "serving.md").read_text(encoding="utf-8")
    missing = [f.name for f in dataclasses.fields(ServeConfig) if f"`{f.name}`" not in page]
    assert not missing, f"docs/serving.md does not describe {missing}"


def test_report_page_names_every_key_of_the_verdict_json(fake_nli, clean_passages):
    from mirage_core import Mirage
    from tests.conftest import NO_SIGNALS

    page = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    table = page.split("## The verdict as JSON", 1)[1].split("\n\n")[2]
    documented = {
        key for row in table.splitlines()[2:] for key in re.findall(r"`(\w+)`", row.split("|")[1])
    }
    verdict = Mirage(NO_SIGNALS, fake_nli).defend("Where is the Eiffel Tower?", clean_passages)
    assert documented == set(verdict.to_dict(include_edges=True))


#: A config file the docs hand to ``--config``, or that ``mirage calibrate`` writes for
#: ``MirageConfig.from_file`` (``--out``), named by its path in the repository.
_CONFIG_PATH = re.compile(r"--(?:config|out) ([\w./-]+\.json)")


def test_config_files_the_docs_name_still_load():
    """Every committed config a page tells the reader to load loads with today's fields: a
    renamed or removed field otherwise leaves the command on the page failing."""
    from mirage_core import MirageConfig

    pages = [README, *sorted((ROOT / "docs").glob("*.md"))]
    named = {
        path
        for page in pages
        if page.name != "decisions.md"  # the record names the configs each round ran, as run
        for path in _CONFIG_PATH.findall(page.read_text(encoding="utf-8"))
    }
    committed = sorted(p for p in named if (ROOT / p).is_file())
    assert "research/results/independence-config.json" in committed
    assert "benchmarks/results/calibration/gpe-calibrated.json" in committed
    for path in committed:
        MirageConfig.from_file(ROOT / path)
