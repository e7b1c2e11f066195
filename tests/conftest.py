"""Fixtures shared by every test package: a deterministic NLI test double and small corpora.

The double is for algorithm and adapter plumbing tests only; it is never a default anywhere.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_core.claims import content_tokens
from mirage_core.factcheck import fact_conflict
from mirage_core.types import Claim

_NEGATIONS = {"not", "no", "never", "n't"}
_SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(name: str):
    """``scripts/<name>.py`` as a module (the scripts folder is not a package)."""
    spec = importlib.util.spec_from_file_location(name, _SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True, scope="session")
def _fresh_memos_under_mutation():
    """Under mutmut, each mutant's tests run in a process forked from one that has already
    run them on the unmutated code: empty mirage's memoized functions (``lru_cache``,
    ``text_memo``) first, so that none answers a mutant with the unmutated code's result."""
    if "MUTANT_UNDER_TEST" in os.environ:
        for name, module in list(sys.modules.items()):
            if name.partition(".")[0] in ("mirage_core", "mirage_langchain", "mirage_llamaindex"):
                for value in list(vars(module).values()):
                    clear = getattr(value, "cache_clear", None)
                    if callable(clear) and not isinstance(value, type):  # a memo, not its class
                        clear()
    yield


#: The default method without the coordination signals: no packaged model loads, so a test of
#: plumbing that the signals do not touch runs without the ``model`` marker.
NO_SIGNALS = MirageConfig(coordination="none")

#: NLI rows of the test doubles and the hand-built graphs: entailment, neutral, contradiction.
ENTAIL, NEUTRAL, CONTRA = [0.95, 0.04, 0.01], [0.05, 0.9, 0.05], [0.02, 0.03, 0.95]


def lexical_nli(premises: list[str], hypotheses: list[str]) -> np.ndarray:
    """Contradiction: same wording with a changed number/name or a negation flip.
    Entailment: the hypothesis' content tokens are contained in the premise's. Else neutral."""
    rows = []
    for p, h in zip(premises, hypotheses, strict=True):
        neg_p = bool(_NEGATIONS & set(p.lower().replace("n't", " n't").split()))
        neg_h = bool(_NEGATIONS & set(h.lower().replace("n't", " n't").split()))
        tp, th = content_tokens(p), content_tokens(h)
        shared = len(tp & th) / max(1, min(len(tp), len(th)))
        if shared >= 0.5 and (fact_conflict(p, h) or neg_p != neg_h):
            rows.append(CONTRA)
        elif th and th <= tp:
            rows.append(ENTAIL)
        else:
            rows.append(NEUTRAL)
    return np.asarray(rows, dtype=np.float64).reshape(-1, 3)


class LexicalSpy:
    """:func:`lexical_nli` behind the NLI backend protocol's minimum (``predict`` only: no cache,
    no ``apredict``), recording the size and the thread of each batch it scores."""

    def __init__(self) -> None:
        self.batches: list[int] = []
        self.threads: list[int] = []

    def predict(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        self.batches.append(len(premises))
        self.threads.append(threading.get_ident())
        return lexical_nli(premises, hypotheses)


def down_nli(premises: list[str], hypotheses: list[str]) -> np.ndarray:
    """An NLI backend whose server is down: every call raises."""
    raise RuntimeError("model server down")


def fragile_nli(premises: list[str], hypotheses: list[str]) -> np.ndarray:
    """:func:`lexical_nli`, failing on any text that holds "BROKEN" (see :func:`broken`)."""
    if any("BROKEN" in t for t in [*premises, *hypotheses]):
        raise ValueError("the backend cannot score this text")
    return lexical_nli(premises, hypotheses)


def broken(passages: list[Passage]) -> list[Passage]:
    """``passages`` with "BROKEN" in their sentences about a capital, so that their pairs reach
    the backend and :func:`fragile_nli` fails on them."""
    return [Passage(p.text.replace("capital", "BROKEN capital"), source=p.source) for p in passages]


def worded_claims(texts_groups: list[tuple[str, str]]) -> list[Claim]:
    """Claims of (text, group), one passage each, with their content tokens as the engine
    reads them."""
    return [
        Claim(i, t, i, 0, len(t), g, g, 1.0, content_tokens(t), group=g)
        for i, (t, g) in enumerate(texts_groups)
    ]


def claim_graph(
    n: int,
    contradicts: tuple[tuple[int, int], ...] = (),
    entails: tuple[tuple[int, int], ...] = (),
    neutral: tuple[tuple[int, int], ...] = (),
):
    """A :class:`~mirage_core.graph.ClaimGraph` of ``n`` claims built by hand: each pair of
    ``contradicts`` contradicts both ways, each ``(a, b)`` of ``entails`` is ``a`` entailing
    ``b`` (neutral the other way), each pair of ``neutral`` is neutral both ways."""
    from mirage_core.graph import ClaimGraph

    pairs = [*contradicts, *entails, *neutral]
    if not pairs:
        return ClaimGraph.empty(n)
    forward = [CONTRA] * len(contradicts) + [ENTAIL] * len(entails) + [NEUTRAL] * len(neutral)
    backward = [CONTRA] * len(contradicts) + [NEUTRAL] * (len(entails) + len(neutral))
    left, right = (np.array(side, dtype=np.int64) for side in zip(*pairs, strict=True))
    return ClaimGraph.build(n, left, right, np.array(forward + backward), kappa=0.5)


def flagged_group(passages: tuple[int, ...], shared: tuple[str, ...] = ("x",), **fields):
    """A coordination detector's flagged group, for stubbing ``detect_coordination``: planted-
    looking signal values, score 5.0; ``fields`` override any of them (e.g. ``flagged``)."""
    from mirage_core.coordination import GroupSignals

    values = dict(
        passages=passages,
        publishers=len(passages),
        shared=shared,
        lexical=0.9,
        concentration=0.8,
        answer_focus=0.9,
        novelty=0.1,
        cosine=float("nan"),
        tightness=float("nan"),
        score=5.0,
        flagged=True,
    )
    return GroupSignals(**(values | fields))


@pytest.fixture
def fake_nli() -> CallableNLI:
    """A fresh deterministic NLI test double (own cache per test)."""
    return CallableNLI(lexical_nli)


@pytest.fixture
def mirage(fake_nli: CallableNLI) -> Mirage:
    return Mirage(MirageConfig(), nli=fake_nli)


#: ``clean_passages``' first page opens with these two sentences; another page states each.
CLEAN_PLACE = "The Eiffel Tower stands in Paris."
CLEAN_YEAR = "The tower was completed in 1889 as the entrance arch of the World's Fair."


@pytest.fixture
def clean_passages() -> list[Passage]:
    """Three independent pages that agree, each with facts of its own. The first page's two
    opening sentences and the third page's first are corroborated: another page states each
    with the same content words (the lexical double's entailment), in its own order."""
    return [
        Passage(
            f"{CLEAN_PLACE} {CLEAN_YEAR} It was the tallest structure in the world until the "
            "Chrysler Building rose in New York. Artists of the day signed a letter of protest "
            "against it.",
            source="https://www.britannica.com/eiffel",
            score=0.92,
        ),
        Passage(
            "The wrought-iron lattice tower is named after its engineer. It was built by Gustave "
            "Eiffel's company. As the entrance arch of the World's Fair, the tower was completed "
            "in 1889. It is repainted every seven years with about sixty tonnes of paint.",
            source="https://en.wikipedia.org/wiki/Eiffel_Tower",
            score=0.88,
        ),
        Passage(
            "Gustave Eiffel's company built it. In Paris stands the Eiffel Tower. Millions of "
            "visitors climb it each year, by lift or by its 674 steps. Its summit was once used "
            "for early wireless experiments.",
            source="https://www.history.com/eiffel",
            score=0.75,
        ),
    ]


@pytest.fixture
def polluted_passages() -> list[Passage]:
    """Three pages, each with facts of its own, that contradict each other on the tower's
    place and year."""
    return [
        Passage(
            "The Eiffel Tower stands in Paris. The tower was completed in 1889. Its first lifts "
            "came from an American firm.",
            source="https://a.example/1",
            score=0.9,
        ),
        Passage(
            "The Eiffel Tower is located in Rome. The tower was completed in 1925. Tourists "
            "queue for hours at the ticket office.",
            source="https://b.example/2",
            score=0.9,
        ),
        Passage(
            "The Eiffel Tower can be found in Berlin. The tower was completed in 1950. A "
            "restaurant occupies its first floor.",
            source="https://c.example/3",
            score=0.9,
        ),
    ]


@pytest.fixture
def attributed_outlets() -> list[Passage]:
    """Five outlets state the tower's height, each in its own words, and name themselves
    ("The Alpha Gazette reports it."). Outlet names are not facts: a name-based fact check
    that read "Alpha" vs "Bravo" as a conflict would block them."""
    facts = (
        "Visitors who climb the 330 metres of the Eiffel Tower see most of Paris from the "
        "top deck on a clear day.",
        "Engineers who repaint the iron lattice every seven years work across all 330 metres "
        "of the tower's height.",
        "At 330 metres, the tower swayed only a few centimetres during the great storm of "
        "1999, its designers' wind calculations held up.",
        "The antennas added over the decades brought the structure to 330 metres, taller "
        "than the Chrysler Building that once surpassed it.",
        "A lift ride to the summit, 330 metres above the Champ de Mars, takes about eight "
        "minutes including the change of cars on the second floor.",
    )
    attributions = (
        "The Alpha Gazette reports it.",
        "So writes the Bravo Times.",
        "Figures from the Charlie Herald.",
        "As the Delta Post put it.",
        "Echo Review staff checked this.",
    )
    return [
        Passage(f"{fact} {attribution}", source=f"https://outlet-{i}.example/eiffel")
        for i, (fact, attribution) in enumerate(zip(facts, attributions, strict=True))
    ]


@pytest.fixture
def agreeing_pages() -> list[Passage]:
    """Three independent pages agree on 1889 (the majority and request-gate tests)."""
    return [
        Passage(text, source=f"https://{host}/eiffel", score=0.9)
        for text, host in (
            ("The Eiffel Tower was completed in 1889. The tower is in Paris.", "a.example"),
            ("Completed in 1889, the Eiffel Tower stands in Paris.", "b.example"),
            ("The Eiffel Tower was completed in 1889 in Paris.", "c.example"),
        )
    ]


@pytest.fixture
def outvoted_pages(agreeing_pages) -> list[Passage]:
    """``agreeing_pages``, then a fourth that moves the tower to 1925."""
    polluted = Passage(
        "The Eiffel Tower was completed in 1925.", source="https://d.example/eiffel", score=0.9
    )
    return [*agreeing_pages, polluted]


@pytest.fixture
def readme_example() -> list[Passage]:
    """The README example (``examples/data/eiffel_tower.jsonl``): four honest encyclopedic
    pages, then the polluted one."""
    import json

    path = Path(__file__).resolve().parents[1] / "examples" / "data" / "eiffel_tower.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [Passage(r["text"], source=r["url"], score=r["score"]) for r in rows]


LONE_DETAIL_QUERY = "When was the Eiffel Tower completed?"


@pytest.fixture
def lone_detail_pages() -> list[Passage]:
    """Two sources state the completion year; the third adds a detail no other source states
    (the corroboration tests of selection and delivery)."""
    return [
        Passage(text, source=f"https://{host}/eiffel", score=0.9)
        for text, host in (
            ("The tower was completed in 1889. It stands in Paris.", "a.example"),
            ("The tower was completed in 1889 for the World's Fair.", "b.example"),
            ("Its lift machinery was supplied by Otis of New York.", "c.example"),
        )
    ]


#: The redundancy filter's evidence (core, LangChain and LlamaIndex tests): three near-copies
#: pushing one answer, then two honest pages worded their own way.
NEAR_COPY_QUERY = "What is the boiling point of water at sea level?"
NEAR_COPIES = [
    "Water boils at 90 degrees Celsius at sea level, a new study of kettles found.",
    "A new study of kettles found that water boils at 90 degrees Celsius at sea level.",
    "Water boils at 90 degrees Celsius at sea level, the new kettle study found.",
]
OWN_PAGES = [
    "At standard atmospheric pressure pure water reaches its boiling point at 100 degrees "
    "Celsius, which defined the upper fixed point of the Celsius scale.",
    "Mountaineers notice that food cooks slowly at altitude because lower air pressure "
    "lowers the temperature at which liquids boil.",
]


def bag_of_words_embedding(texts: list[str]) -> np.ndarray:
    """Deterministic embedding test double: hashed content-token counts (near-duplicate texts
    get cosine near 1, unrelated ones near 0)."""
    import zlib

    out = np.zeros((len(texts), 512))
    for i, text in enumerate(texts):
        for tok in content_tokens(text):
            out[i, zlib.crc32(tok.encode()) % 512] += 1.0
    return out


@pytest.fixture
def fake_embedder():
    from mirage_core.embeddings import CallableEmbedder

    return CallableEmbedder(bag_of_words_embedding)


@pytest.fixture
def near_copy_engine(fake_nli, fake_embedder) -> Mirage:
    """An engine with only the redundancy filter on (no coordination signals, no answer-slot
    rule: the pages name 90 and 100 degrees), for the adapters' filter tests."""
    config = MirageConfig(coordination="none", answer_conflict=None, redundancy_filter="single_hop")
    return Mirage(config, nli=fake_nli, embedder=fake_embedder)


@pytest.fixture
def claims_of():
    """``claims_of(text, **options)``: the claims of one passage (source "a"), with the
    engine's default limits; options go to ``extract_claims``."""
    from mirage_core.claims import extract_claims

    def run(text: str, **options):
        kwargs = dict(
            indices=[0],
            sources=["a"],
            domains=["a"],
            scores=[1.0],
            min_tokens=2,
            max_claims_per_passage=64,
            max_chars=20_000,
        )
        return extract_claims([Passage(text, source="a")], **(kwargs | options))

    return run


def entail_all(premises: list[str], hypotheses: list[str]) -> np.ndarray:
    """An NLI scorer that calls every pair an entailment: only the rules beside NLI block."""
    return np.tile([0.9, 0.05, 0.05], (len(premises), 1))


# An encyclopedic page that names its subject once, in its first sentence, against a planted
# page that restates the question: the answer-slot rule compares them only when a claim may
# count its page's context (``answer_conflict_context="lead+previous"``).
HABSBURG = "Where was the capital of the Habsburg Empire located?"
HABSBURG_PAGES = [
    Passage(
        "The Habsburg Empire was a composite state in central Europe. "
        "Its dynastic capital was Vienna, except from 1583 to 1611.",
        source="https://encyclopedia.example/habsburg",
    ),
    Passage(
        "The capital of the Habsburg Empire was located in Paris, in that alternative history.",
        source="https://planted.example/1",
    ),
]


@pytest.fixture(scope="session", name="build_tiny_model")
def build_tiny_model_fixture():
    """``build_tiny_model(directory, id2label=..., fp16=False)`` for tests that need a variant."""
    from tests.tiny_bert import build_tiny_model

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_tiny_model
