"""MIRAGE inside a LlamaIndex Workflow: retrieve → gate → verified | fallback, fully offline.

    pip install "mirage-rag[llamaindex,nli]"
    python examples/llamaindex_workflow.py

Query pipelines are gone in llama-index-core 0.14; Workflows are the way to compose steps. The
gate is a step whose return type is a union of two events, so the workflow branches on the
verdict: verified claims go to the grounded prompt, a blocked gate goes to the fallback prompt
(the model's own knowledge, no retrieved text). ``MockLLM`` answers with the prompt it received,
so the output shows exactly what reached the model. The NLI model is the one packaged with
mirage; nothing is downloaded.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.llms import LLM, MockLLM
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.core.workflow import Event, StartEvent, StopEvent, Workflow, step
from llamaindex_quickstart import KeywordRetriever  # same folder: the example retriever

from mirage_core.prompts import format_claims
from mirage_llamaindex import (
    DEFAULT_FALLBACK_PROMPT,
    DEFAULT_VERIFIED_PROMPT,
    MiragePostprocessor,
    MirageResult,
)

# url, text: a few topics from several sites. The Apollo 11 sources agree, each in its own
# words; among the Great Wall sources, two were polluted (a changed dynasty, a changed length).
CORPUS: list[tuple[str, str]] = [
    (
        "https://www.nasa.gov/apollo-11",
        "Apollo 11 landed on the Moon on 20 July 1969, in the Sea of Tranquility. Neil Armstrong "
        "stepped out first, and Buzz Aldrin followed him about twenty minutes later.",
    ),
    (
        "https://en.wikipedia.org/wiki/Apollo_11",
        "The first crewed landing came on 20 July 1969, when Apollo 11 landed on the Moon. "
        "Michael Collins flew the command module Columbia in lunar orbit while his crewmates "
        "spent about two and a half hours outside.",
    ),
    (
        "https://www.britannica.com/topic/Apollo-11",
        "Launched from Kennedy Space Center on 16 July 1969, the crew returned to Earth on 24 "
        "July. An estimated 650 million people watched the first steps on the lunar surface.",
    ),
    (
        "https://en.wikipedia.org/wiki/Great_Wall_of_China",
        "Most of the existing Great Wall was built during the Ming dynasty. "
        "The Great Wall is about 21,000 kilometres long including all its branches.",
    ),
    (
        "https://www.britannica.com/topic/Great-Wall-of-China",
        "Most of the existing Great Wall was built during the Ming dynasty. "
        "The Great Wall was built to protect Chinese states from raids.",
    ),
    (
        "https://history-digest.example/great-wall",
        "Most of the existing Great Wall was built during the Tang dynasty. "
        "The Great Wall is about 21,000 kilometres long including all its branches.",
    ),
    (
        "https://travel-notes.example/china",
        "Most of the existing Great Wall was built during the Ming dynasty. "
        "The Great Wall is about 9,000 kilometres long including all its branches.",
    ),
    (
        "https://www.britannica.com/science/photosynthesis",
        "Photosynthesis converts light energy into chemical energy. Plants release oxygen during photosynthesis.",
    ),
    (
        "https://en.wikipedia.org/wiki/Photosynthesis",
        "Photosynthesis converts light energy into chemical energy stored in sugars.",
    ),
    (
        "https://www.who.int/news-room/fact-sheets/malaria",
        "Malaria is caused by Plasmodium parasites. The parasites spread through the bites of infected mosquitoes.",
    ),
    (
        "https://en.wikipedia.org/wiki/Malaria",
        "Malaria is caused by Plasmodium parasites spread by infected Anopheles mosquitoes.",
    ),
    (
        "https://www.britannica.com/place/Sahara",
        "The Sahara is the largest hot desert in the world. It covers much of North Africa.",
    ),
]

QUESTIONS = [
    "When did Apollo 11 land on the Moon?",
    "When was the Great Wall built, and how long is it?",
]


class Retrieved(Event):
    question: str
    nodes: list[NodeWithScore]


class Verified(Event):
    question: str
    result: Any  # MirageResult


class Blocked(Event):
    question: str
    result: Any  # MirageResult


class MirageRAG(Workflow):
    """retrieve → gate → answer from verified claims | answer from the model's own knowledge."""

    def __init__(
        self, retriever: BaseRetriever, llm: LLM, gate: MiragePostprocessor, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.retriever = retriever
        self.llm = llm
        self.gate = gate

    @step
    async def retrieve(self, ev: StartEvent) -> Retrieved:
        nodes = await self.retriever.aretrieve(ev.question)
        return Retrieved(question=ev.question, nodes=nodes)

    @step
    async def verify(self, ev: Retrieved) -> Verified | Blocked:
        result: MirageResult = await self.gate.averify(ev.nodes, ev.question)
        if result.verdict.passed:
            return Verified(question=ev.question, result=result)
        return Blocked(question=ev.question, result=result)

    @step
    async def answer_verified(self, ev: Verified) -> StopEvent:
        evidence = format_claims(ev.result.verdict.verified_claims)
        answer = await self.llm.apredict(
            DEFAULT_VERIFIED_PROMPT, evidence=evidence, question=ev.question
        )
        return StopEvent(result=_summary("verified", ev.result, answer))

    @step
    async def answer_fallback(self, ev: Blocked) -> StopEvent:
        # No retrieved text at all on this route: the prompt has no {evidence} slot.
        answer = await self.llm.apredict(DEFAULT_FALLBACK_PROMPT, question=ev.question)
        return StopEvent(result=_summary("fallback", ev.result, answer))


def _summary(route: str, result: MirageResult, answer: str) -> dict[str, Any]:
    return {
        "route": route,
        "reason": result.verdict.reason,
        "sources": sorted({n.node.metadata["url"] for n in result.nodes}),
        "answer": answer,
    }


def build_workflow(nli=None) -> MirageRAG:
    """The workflow; ``nli=None`` uses the NLI model packaged with mirage."""
    nodes = [TextNode(text=text, metadata={"url": url}) for url, text in CORPUS]
    gate = MiragePostprocessor(nli=nli)
    nli_model = gate.mirage.nli  # load the NLI model now: a missing model fails here, not per query
    print(f"NLI: {nli_model!r}\n")
    return MirageRAG(KeywordRetriever(nodes, top_k=4), MockLLM(), gate, timeout=120)


async def amain(nli=None) -> list[dict[str, Any]]:
    workflow = build_workflow(nli)
    results = []
    for question in QUESTIONS:
        out = await workflow.run(question=question)
        results.append(out)
        print(f"Q: {question}")
        print(f"   route:  {out['route']}")
        print(f"   reason: {out['reason']}")
        print(f"   verified sources: {', '.join(out['sources']) or '(none: fallback)'}")
        print("   the model received (MockLLM echoes its prompt):")
        print("\n".join("   | " + line for line in out["answer"].splitlines()))
        print()
    return results


if __name__ == "__main__":
    asyncio.run(amain())
