"""mirage_langchain — MIRAGE for LangChain (``langchain_core`` only).

>>> from mirage_langchain import MirageRetriever, create_mirage_rag_chain
>>> retriever = MirageRetriever(base_retriever=vectorstore.as_retriever(), k=4)
>>> chain = create_mirage_rag_chain(retriever, llm)
>>> chain.invoke("When was the Eiffel Tower completed?")["route"]
'verified'

- :class:`MirageRetriever`: wraps any retriever; returns only verified text (``[]`` when blocked).
- :class:`MirageCompressor`: the same as a ``BaseDocumentCompressor``.
- :func:`create_mirage_rag_chain`: verified-claims prompt when the gate passes, the model's own
  knowledge (no retrieved text) when it blocks.

Every verdict is dispatched as the custom event ``"mirage_verdict"`` (:data:`EVENT_NAME`).
"""

from mirage_langchain._convert import EVENT_NAME, METADATA_KEY, documents_to_passages
from mirage_langchain.chain import create_mirage_rag_chain
from mirage_langchain.compressor import MirageCompressor
from mirage_langchain.retriever import MirageRetrieval, MirageRetriever

__all__ = [
    "EVENT_NAME",
    "METADATA_KEY",
    "MirageCompressor",
    "MirageRetrieval",
    "MirageRetriever",
    "create_mirage_rag_chain",
    "documents_to_passages",
]
