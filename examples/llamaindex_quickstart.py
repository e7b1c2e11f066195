"""MIRAGE as a LlamaIndex query engine, fully offline.

    pip install "mirage-rag[llamaindex,nli]"
    python examples/llamaindex_quickstart.py

A dozen short encyclopedia-style passages from several sites, some of them polluted (a changed
name or year), a plain keyword (TF-IDF) retriever, and ``MockLLM``, which answers with the
prompt it received, so the printed "answer" shows exactly which text reached the model. Swap in
any LlamaIndex LLM and retriever (``index.as_retriever(similarity_top_k=8)``) for real use.

The NLI model is the one packaged with mirage (``Mirage()`` → ``default_nli()``: ONNX Runtime on
a CPU-only install, else torch); nothing is downloaded. One question passes the gate and is answered from verified claims; the polluted one
is blocked and answered from the model's own knowledge, with no retrieved text at all.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections import Counter
from collections.abc import Sequence

from llama_index.core.llms import MockLLM
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from mirage_llamaindex import MirageQueryEngine

# url, text. Penicillin: two sources agree (Fleming, 1928); two polluted ones change the name
# or the year. Everest: three independent sources agree, each in its own words and with facts
# of its own (near-copies of one text are what planted passages look like to the default's
# coordination signals).
CORPUS: list[tuple[str, str]] = [
    (
        "https://www.britannica.com/place/Mount-Everest",
        "Mount Everest, known in Nepal as Sagarmatha, is the highest mountain on Earth. "
        "A survey announced by Nepal and China in 2020 put its summit at 8,849 metres above "
        "sea level. It lies on the border between Nepal and the Tibet Autonomous Region of China.",
    ),
    (
        "https://en.wikipedia.org/wiki/Mount_Everest",
        "Everest sits in the Mahalangur Himal range of the Himalayas. The mountain is 8,849 "
        "metres tall and attracts hundreds of climbers each spring, most of them on the "
        "southeast ridge route from Nepal.",
    ),
    (
        "https://www.nationalgeographic.com/everest",
        "Edmund Hillary and Tenzing Norgay first reached the summit in 1953. Everest is "
        "8,849 metres above sea level, and the thin air near the top holds about a third of "
        "the oxygen found at sea level.",
    ),
    (
        "https://www.britannica.com/science/penicillin",
        "Penicillin was discovered by Alexander Fleming in 1928. "
        "Fleming noticed that a mould killed the bacteria around it.",
    ),
    (
        "https://en.wikipedia.org/wiki/Penicillin",
        "Penicillin was discovered by Alexander Fleming in 1928. "
        "Penicillin was the first antibiotic to be used widely in medicine.",
    ),
    (
        "https://health-facts.example/penicillin",
        "Penicillin was discovered by Louis Pasteur in 1928. "
        "Pasteur found the mould in his laboratory in Paris.",
    ),
    (
        "https://quick-trivia.example/antibiotics",
        "Penicillin was discovered by Alexander Fleming in 1938. "
        "Penicillin was the first antibiotic to be used widely in medicine.",
    ),
    (
        "https://www.britannica.com/place/Amazon-River",
        "The Amazon River flows through Peru, Colombia and Brazil into the Atlantic Ocean. "
        "The Amazon carries more water than any other river.",
    ),
    (
        "https://en.wikipedia.org/wiki/Amazon_River",
        "The Amazon River carries more water than any other river in the world. "
        "Its basin covers about seven million square kilometres.",
    ),
    (
        "https://www.nasa.gov/apollo-11",
        "Apollo 11 landed on the Moon on 20 July 1969. Neil Armstrong was the first person to walk on the Moon.",
    ),
    (
        "https://en.wikipedia.org/wiki/Apollo_11",
        "Apollo 11 landed on the Moon on 20 July 1969. Buzz Aldrin joined Neil Armstrong on the surface.",
    ),
    (
        "https://en.wikipedia.org/wiki/Great_Wall_of_China",
        "The Great Wall of China was built over many centuries. Most of the existing wall dates from the Ming dynasty.",
    ),
]

QUESTIONS = ["How tall is Mount Everest?", "Who discovered penicillin, and when?"]

_WORD = re.compile(r"[a-z0-9]+(?:,\d+)*")
_STOP = frozenset("a an and by for how in is it of on the to was what when which who".split())


def _tokens(text: str) -> list[str]:
    return [t for t in _WORD.findall(text.lower()) if t not in _STOP]


class KeywordRetriever(BaseRetriever):
    """TF-IDF cosine ranking over a list of nodes: a stand-in for any LlamaIndex retriever."""

    def __init__(self, nodes: Sequence[TextNode], top_k: int = 4) -> None:
        super().__init__()
        self._nodes = list(nodes)
        self._top_k = top_k
        counts = [Counter(_tokens(n.get_content())) for n in self._nodes]
        df = Counter(t for c in counts for t in c)
        self._idf = {t: math.log((1 + len(counts)) / (1 + k)) + 1 for t, k in df.items()}
        self._vectors = [self._vector(c) for c in counts]

    def _vector(self, counts: Counter) -> dict[str, float]:
        vec = {t: c * self._idf.get(t, 0.0) for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {t: v / norm for t, v in vec.items()}

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        query = self._vector(Counter(_tokens(query_bundle.query_str)))
        scored = [
            (sum(w * vec.get(t, 0.0) for t, w in query.items()), i)
            for i, vec in enumerate(self._vectors)
        ]
        scored.sort(reverse=True)
        return [
            NodeWithScore(node=self._nodes[i], score=s) for s, i in scored[: self._top_k] if s > 0
        ]


def build_engine(nli=None) -> MirageQueryEngine:
    """The query engine; ``nli=None`` uses the NLI model packaged with mirage."""
    nodes = [TextNode(text=text, metadata={"url": url}) for url, text in CORPUS]
    return MirageQueryEngine(KeywordRetriever(nodes, top_k=4), llm=MockLLM(), nli=nli)


def main(nli=None) -> None:
    engine = build_engine(nli)
    nli_model = (
        engine.mirage.nli
    )  # load the NLI model now: a missing model fails here, not per query
    print(f"NLI: {nli_model!r}\n")
    for question in QUESTIONS:
        response = engine.query(question)
        info = response.metadata["mirage"]
        print(f"Q: {question}")
        print(f"   route:  {info['route']}")
        print(f"   reason: {info['reason']}")
        sources = sorted({n.node.metadata["url"] for n in response.source_nodes})
        print(f"   verified sources: {', '.join(sources) if sources else '(none: fallback)'}")
        print("   the model received (MockLLM echoes its prompt):")
        print(textwrap.indent(str(response), "   | ", lambda _line: True))
        print()


if __name__ == "__main__":
    main()
