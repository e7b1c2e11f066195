"""The window the coordination signals read: whole sentences, query words first, filler last."""

from __future__ import annotations

import pytest

from mirage_core import Mirage, MirageConfig
from mirage_core.claims import content_tokens, split_sentences
from mirage_core.coordination import detect_coordination
from mirage_core.evaluation.adaptive import FILLER
from mirage_core.evidence import signal_windows
from mirage_core.signal_window import signal_window
from tests.core.test_coordination import HONEST, PLANTED_LONG, QUERY

DOMAINS = [f"outlet{i}.example" for i in range(len(PLANTED_LONG) + len(HONEST))]


def _padded(text: str, i: int) -> str:
    """``text`` between neutral filler sentences, before and after it."""
    return " ".join([*FILLER[2 * i : 2 * i + 4], text, *FILLER[2 * i + 4 : 2 * i + 8]])


def _tokens(text: str) -> int:
    return len(content_tokens(text))


def test_a_passage_within_the_budget_is_read_whole():
    text = HONEST[0].replace(". ", ".\n")  # as written, not re-joined sentence by sentence
    spans = split_sentences(text)
    assert len(spans) > 1
    window, window_spans = signal_window(text, spans, content_tokens(QUERY), _tokens(text))
    assert window == text and window_spans == list(spans)


@pytest.mark.parametrize("i", range(len(PLANTED_LONG)))
def test_relevance_order_cuts_filler_away_wherever_it_stands(i):
    planted = PLANTED_LONG[i]
    padded = _padded(planted, i)
    window, spans = signal_window(
        padded, split_sentences(padded), content_tokens(QUERY), _tokens(planted)
    )
    assert window == " ".join(planted[a:b] for a, b in split_sentences(planted))
    assert [window[a:b] for a, b in spans] == [planted[a:b] for a, b in split_sentences(planted)]


def test_lead_order_reads_the_first_sentences_within_the_budget():
    padded = _padded(PLANTED_LONG[0], 0)
    spans = split_sentences(padded)
    window, out = signal_window(padded, spans, content_tokens(QUERY), 20, order="lead")
    assert padded.startswith(window)
    assert _tokens(window) <= 20 and len(out) >= 1
    assert FILLER[0] in window and "24 episodes" not in window


def test_the_first_sentence_is_read_however_long():
    text = "A sentence of many different content words about nothing asked. Short one."
    window, spans = signal_window(text, split_sentences(text), frozenset(), 2, order="lead")
    assert window == text[: spans[0][1]] and len(spans) == 1


def test_padded_copies_are_read_as_the_copies_themselves():
    padded = [_padded(t, i) for i, t in enumerate(PLANTED_LONG)] + HONEST
    windows, spans = [], []
    for text, original in zip(padded, PLANTED_LONG + HONEST, strict=True):
        w, s = signal_window(text, split_sentences(text), content_tokens(QUERY), _tokens(original))
        windows.append(w)
        spans.append(s)
    plain = detect_coordination(QUERY, PLANTED_LONG + HONEST, DOMAINS)
    windowed = detect_coordination(QUERY, windows, DOMAINS, spans=spans)
    assert [(g.passages, round(g.score, 6), g.flagged) for g in windowed] == [
        (g.passages, round(g.score, 6), g.flagged) for g in plain
    ]
    assert any(g.flagged and set(g.passages) == {0, 1, 2} for g in windowed)


def test_signal_windows_cut_every_passage_to_the_budget():
    padded = [_padded(t, i) for i, t in enumerate(PLANTED_LONG)] + HONEST
    windows, spans = signal_windows(QUERY, padded, None, 30, "relevance")
    assert all(_tokens(w) <= 30 or len(s) == 1 for w, s in zip(windows, spans, strict=True))
    assert all("24 episodes" in w for w in windows[: len(PLANTED_LONG)])
    assert windows[len(PLANTED_LONG) :] == HONEST  # within the budget: read whole


def test_signal_windows_read_in_the_order_asked():
    """The filler opens the padded passage: "lead" reads it, "relevance" reads the answer."""
    padded = [_padded(t, i) for i, t in enumerate(PLANTED_LONG)]
    lead, _ = signal_windows(QUERY, padded, None, 30, "lead")
    relevant, _ = signal_windows(QUERY, padded, None, 30, "relevance")
    assert all(w.startswith(FILLER[2 * i]) for i, w in enumerate(lead))
    assert not any("24 episodes" in w for w in lead)
    assert all("24 episodes" in w for w in relevant)


def test_a_window_wider_than_every_passage_changes_no_verdict(fake_nli, fake_embedder):
    passages = [*PLANTED_LONG, *HONEST]
    sources = [{"text": t, "source": d} for t, d in zip(passages, DOMAINS, strict=True)]
    plain = Mirage(MirageConfig(), nli=fake_nli, embedder=fake_embedder).defend(QUERY, sources)
    wide = MirageConfig().replace(coordination_window=10_000)
    windowed = Mirage(wide, nli=fake_nli, embedder=fake_embedder).defend(QUERY, sources)
    assert windowed.decision == plain.decision and windowed.reason == plain.reason
    assert windowed.coordination == plain.coordination


def test_one_long_sentence_is_read_as_written():
    # a single sentence over the budget is the window whole: the text as the passage wrote
    # it, spaces around it included, not the sentence cut out of it
    text = "  " + PLANTED_LONG[0].split("? ")[1].split(". ")[0] + ".  "
    spans = split_sentences(text)
    assert len(spans) == 1 and spans[0] != (0, len(text))
    assert signal_window(text, spans, frozenset(), max_tokens=3) == (text, spans)
