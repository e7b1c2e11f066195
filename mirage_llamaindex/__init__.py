"""mirage_llamaindex — MIRAGE for LlamaIndex: a node postprocessor and a query engine with the
fallback branch. Thin over :mod:`mirage_core`: nodes in, passages to the engine, nodes out.

>>> from mirage_llamaindex import MiragePostprocessor, MirageQueryEngine
>>> engine = MirageQueryEngine(index.as_retriever(similarity_top_k=8), llm=llm)  # doctest: +SKIP
>>> response = engine.query("When was the Eiffel Tower completed?")              # doctest: +SKIP
>>> response.metadata["mirage"]["route"]                                         # doctest: +SKIP
'verified'
"""

from mirage_llamaindex._convert import DEFAULT_SOURCE_KEYS, MIRAGE_KEY, PassedOver
from mirage_llamaindex.events import MirageGateEvent
from mirage_llamaindex.postprocessor import MiragePostprocessor, MirageResult
from mirage_llamaindex.query_engine import (
    DEFAULT_FALLBACK_PROMPT,
    DEFAULT_UNCHECKED_PROMPT,
    DEFAULT_VERIFIED_PROMPT,
    MirageQueryEngine,
)

__all__ = [
    "DEFAULT_FALLBACK_PROMPT",
    "DEFAULT_SOURCE_KEYS",
    "DEFAULT_UNCHECKED_PROMPT",
    "DEFAULT_VERIFIED_PROMPT",
    "MIRAGE_KEY",
    "MirageGateEvent",
    "MiragePostprocessor",
    "MirageQueryEngine",
    "MirageResult",
    "PassedOver",
]
