"""The HTML verdict report: content and escaping on the string, then a real headless Chromium.

The browser tests need Chromium (``scripts/setup.sh`` installs Debian's ``chromium`` when it is
missing). Without one they skip, unless ``MIRAGE_REQUIRE_BROWSER=1`` (set by ``.ci/run``), where
a missing browser is a failure.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage, cli
from mirage_core.config import MethodSettings
from mirage_core.report_html import render_html
from tests.conftest import entail_all

ROOT = Path(__file__).resolve().parents[2]
EIFFEL = ROOT / "examples" / "data" / "eiffel_tower.jsonl"
QUERY = "When was the Eiffel Tower completed?"
INJECTED = "<script>document.title='pwned'</script>"
HOSTILE = Passage(
    f"The Eiffel Tower was completed in 1889. {INJECTED} "
    '<img src=x onerror="document.title=\'pwned2\'"> Tom & Jerry\'s "quote".',
    source="javascript:alert(1)",
)


def _rows() -> list[dict]:
    return [json.loads(line) for line in EIFFEL.read_text().splitlines() if line.strip()]


#: The report's S* / rejected / contradiction rendering is tested on the README example without
#: the coordination signals: with the test NLI double (no false conflict among the honest
#: pages), the default thresholds flag the four honest pages as one group and quarantine them
#: (tests/core/test_quarantine.py documents that false alarm and tests how the report shows
#: flagged, quarantined and released groups).
RENDER_CONFIG = MirageConfig(coordination="none")


@pytest.fixture
def eiffel_verdict(fake_nli):
    rows = _rows()
    return Mirage(RENDER_CONFIG, nli=fake_nli).defend(QUERY, rows), rows


class _Collect(HTMLParser):
    """Tags, attributes and visible text of a page, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: str) -> _Collect:
    p = _Collect()
    p.feed(page)
    return p


def test_polluted_sentences_are_rejected_and_pairs_listed(eiffel_verdict):
    verdict, rows = eiffel_verdict
    page = verdict.to_html(rows)
    assert page.startswith("<!DOCTYPE html>") and page == render_html(verdict, rows)
    assert verdict.decision == "fallback" and "FALLBACK" in page
    assert html.escape(verdict.reason) in page  # the reason, escaped ("r_contr=… > r_max=…")
    polluted = {c.index for c in verdict.claims if c.passage_index == 4}
    marks = dict(re.findall(r'<mark id="claim-(\d+)" class="(\w+)"', page))
    assert {int(i) for i in marks} == {c.index for c in verdict.claims}
    assert {int(i) for i, state in marks.items() if state == "rej"} == polluted
    assert all(marks[str(i)] == "sel" for i in verdict.selected)
    # every contradiction pair is in the table with its probabilities
    table = page.split('id="contradictions"')[1].split("</table>")[0]
    for e in verdict.edges:
        if e.w_contr > 0:
            assert (
                f'href="#claim-{e.premise}"' in table and f'href="#claim-{e.hypothesis}"' in table
            )
            assert f"{e.p_contra:.2f}" in table
    # each passage's whole text is shown (the claim numbers aside)
    section = re.sub(r'<sup class="ci">\d+</sup>', "", page.split('id="passages"')[1])
    shown = "".join(_parse(section).text)
    assert all(r["text"] in shown for r in rows)


def test_graph_svg_highlights_s_star_and_red_contradictions(eiffel_verdict):
    verdict, rows = eiffel_verdict
    page = verdict.to_html(rows)
    svg = page[page.index("<svg") : page.index("</svg>")]
    nodes = re.findall(r'<g class="n (\w+)">', svg)
    assert len(nodes) == len(verdict.claims)
    assert nodes.count("sel") == len(verdict.selected)
    pairs = {
        (min(e.premise, e.hypothesis), max(e.premise, e.hypothesis))
        for e in verdict.edges
        if e.w_contr > 0
    }
    assert svg.count('<path class="ec"') == len(pairs) > 0
    assert re.search(r"svg \.ec\{[^}]*stroke:#d92d20", page)  # contradiction edges are red


@pytest.mark.model
def test_self_contained_and_escaped(mirage):
    rows = [*_rows(), HOSTILE]
    verdict = mirage.defend("<u>When</u> was it completed?", rows)
    page = verdict.to_html(rows, title="<i>t</i>")
    parsed = _parse(page)
    tags = [t for t, _ in parsed.tags]
    assert "script" not in tags and "img" not in tags and "iframe" not in tags and "u" not in tags
    assert "link" not in tags  # no stylesheet or font from anywhere
    for _tag, attrs in parsed.tags:
        assert "src" not in attrs and not any(k.startswith("on") for k in attrs)
        href = attrs.get("href") or ""
        assert href.startswith(("#", "https://", "http://")) or not href, href
    assert "url(" not in page and "@import" not in page and 'href="javascript:' not in page
    text = "".join(parsed.text)
    assert INJECTED in text and "<u>When</u> was it completed?" in text and "Tom & Jerry's" in text
    assert "<title><i>t</i></title>" not in page and "&lt;i&gt;t&lt;/i&gt;" in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


@pytest.mark.model
def test_without_passages_and_with_nothing(mirage, clean_passages):
    verdict = mirage.defend(QUERY, clean_passages)
    assert verdict.passed
    page = verdict.to_html()  # no passages: the sentences that became claims
    assert "VERIFIED" in page and "in S*, verified" in page and "pass the passages" in page
    for c in verdict.claims:
        assert f'id="claim-{c.index}"' in page
    empty = Mirage(MirageConfig(), nli=mirage.nli).defend(QUERY, [])
    page = empty.to_html([])
    assert "FALLBACK" in page and "No claims" in page and "No passages" in page


@pytest.mark.model
def test_cli_writes_the_report(tmp_path, monkeypatch, fake_nli, capsys):
    monkeypatch.setattr(cli, "_make_mirage", lambda config, model: Mirage(config, nli=fake_nli))
    out = tmp_path / "report.html"
    args = ["defend", "--query", QUERY, "--passages", str(EIFFEL), "--html", str(out)]
    assert cli.main(args) == 0
    assert "HTML report: " in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "travel-secrets.example" in page
    assert cli.main([*args, "--json"]) == 0  # the JSON on stdout stays valid JSON
    captured = capsys.readouterr()
    assert json.loads(captured.out)["decision"] and "HTML report" in captured.err


# -- a real browser ----------------------------------------------------------------------------

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("MIRAGE_REQUIRE_BROWSER") == "1":
        pytest.fail(
            "no Chromium found and MIRAGE_REQUIRE_BROWSER=1 (bash scripts/setup.sh installs it)"
        )
    pytest.skip("no Chromium (bash scripts/setup.sh installs Debian's chromium)")


def _run_browser(browser: str, *args: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="mirage-chromium-") as profile:
        return subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=90,
        )


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """One report with a hostile passage, opened twice: --dump-dom and --screenshot."""
    from mirage_core import CallableNLI
    from tests.conftest import lexical_nli  # the module fixture cannot take fake_nli

    browser = _browser()
    rows = [*_rows(), HOSTILE]
    verdict = Mirage(RENDER_CONFIG, nli=CallableNLI(lexical_nli)).defend(QUERY, rows)
    folder = tmp_path_factory.mktemp("report")
    page = folder / "report.html"
    page.write_text(verdict.to_html(rows), encoding="utf-8")
    dom = _run_browser(browser, "--dump-dom", page.as_uri())
    shot = folder / "report.png"
    _run_browser(browser, "--window-size=1200,1100", f"--screenshot={shot}", page.as_uri())
    if os.environ.get("MIRAGE_REPORT_SCREENSHOT"):  # keep a copy to look at
        shutil.copy(shot, os.environ["MIRAGE_REPORT_SCREENSHOT"])
    return verdict, dom, shot


def test_browser_renders_and_runs_no_injected_script(rendered):
    verdict, dom, _ = rendered
    assert dom.returncode == 0, dom.stderr[-2000:]
    html_out = dom.stdout
    assert "<svg" in html_out and 'id="decision"' in html_out
    title = re.search(r"<title>(.*?)</title>", html_out, re.S)
    assert title and title.group(1) == f"mirage verdict: {QUERY}"  # the script did not run
    assert "pwned" not in title.group(1)
    assert "<script" not in html_out and "<img" not in html_out  # no such elements in the DOM
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in html_out  # shown as text
    assert len(re.findall(r'<g class="n ', html_out)) == len(verdict.claims)


def test_screenshot_shows_the_graph(rendered):
    from PIL import Image

    _, _, shot = rendered
    assert shot.is_file(), "Chromium wrote no screenshot"
    with Image.open(shot) as im:
        px = np.asarray(im.convert("RGB"), dtype=np.int16)[:900]  # header and graph
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    red = int(((r > 190) & (g < 110) & (b < 100)).sum())  # contradiction chords
    green = int(((r < 60) & (g > 130) & (g < 180) & (b > 50) & (b < 100)).sum())  # S* nodes
    assert red > 500 and green > 500, (red, green)


@pytest.mark.model
def test_packaged_model_rejects_the_polluted_answer(tmp_path):
    """The report's end-to-end check, with the real NLI model that ships in the package: on the Eiffel Tower
    example asked for an account (the README's second command), the polluted page's claim that
    contradicts the delivered ones (completed in 1925) is marked rejected, and every sentence
    the page shows is marked with the verdict's state for it."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    out = tmp_path / "r.html"
    account = "Tell me about the Eiffel Tower"
    args = ["defend", "--query", account, "--passages", str(EIFFEL), "--html", str(out)]
    assert cli.main(args) == 0
    page = out.read_text(encoding="utf-8")
    polluted = page.split('id="passage-4"')[1].split("</section>")[0]
    assert "travel-secrets.example" in polluted
    marks = re.findall(r'<mark id="claim-\d+" class="(\w+)" title="[^"]*">(.*?)</mark>', polluted)
    answer = [state for state, body in marks if "completed in 1925" in body]
    assert answer == ["rej"], marks
    assert '<path class="ec"' in page  # red contradiction edges in the graph


@pytest.mark.model
def test_non_claims_and_query_relevance_are_shown(fake_nli, polluted_passages):
    question = Passage(
        "When was the Eiffel Tower completed? The tower was completed in 1889.",
        source="https://faq.example/eiffel",
    )
    rows = [*polluted_passages, question]
    config = MirageConfig(method=MethodSettings(claim_filter=True))
    verdict = Mirage(config, nli=fake_nli).defend(QUERY, rows)
    assert verdict.extras.get("non_claims") and verdict.relevance is not None
    page = verdict.to_html(rows)
    nc = re.findall(r'<mark class="nc" title="not a claim: [^"]+">([^<]*)</mark>', page)
    assert "When was the Eiffel Tower completed?" in nc
    assert "not a claim (question" in page  # in the legend
    assert "query relevance (weight in r_contr)" in page.split('id="contradictions"')[1]
    assert re.search(r'<path class="ec" [^>]*style="stroke-opacity:0\.\d+"', page)


def test_answer_conflicts_are_listed_with_links_to_their_claims():
    entail = CallableNLI(entail_all)
    passages = [
        Passage("The Eiffel Tower was completed in 1889.", source="https://a.example/1"),
        Passage("The Eiffel Tower was completed in 1889, on time.", source="https://b.example/2"),
        Passage("The Eiffel Tower was completed in 1925.", source="https://c.example/3"),
    ]
    config = RENDER_CONFIG.replace(independence="none", answer_conflict=0.6)
    verdict = Mirage(config, nli=entail).defend(QUERY, passages)
    assert verdict.decision == "fallback"
    page = render_html(verdict)
    block = page[page.index('<div id="answer-conflicts">') :]
    assert '<a href="#claim-0">[0]</a> and <a href="#claim-2">[2]</a>' in block
    assert "numbers: 1889 vs 1925" in block
    # nothing to list: no block
    off = Mirage(config.replace(answer_conflict=None), nli=entail).defend(QUERY, passages)
    assert 'id="answer-conflicts"' not in render_html(off)


def test_a_claim_held_back_for_lone_facts_says_so(fake_nli):
    from tests.core.test_lone_facts import HONEST, PLANTED, QUERY, pages

    config = MirageConfig(coordination="none").replace(lone_facts="hold_back")
    evidence = pages(*HONEST, PLANTED)
    verdict = Mirage(config, nli=fake_nli).defend(QUERY, evidence)
    page = render_html(verdict, evidence)
    title = re.search(r'<mark id="claim-3"[^>]* title="([^"]*)"', page).group(1)
    assert html.unescape(title).startswith("[3] held back: no other source states 1925;")
    assert "held back: no other" not in render_html(
        Mirage(MirageConfig(coordination="none"), nli=fake_nli).defend(QUERY, evidence), evidence
    )
