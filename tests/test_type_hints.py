"""The public annotations resolve at runtime: ``typing.get_type_hints`` works on every class
and function the packages export (what pydantic, typer or a runtime type checker reads), and the
annotations say what the docs say."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

import mirage_core
from mirage_core.answer_conflict import AnswerConflict
from mirage_core.verdict import Decision, Verdict

PACKAGES = ("mirage_core", "mirage_langchain", "mirage_llamaindex")
PUBLIC_MODULES = (
    "mirage_core",
    "mirage_core.config",
    "mirage_core.nli",
    "mirage_core.pollution",
    "mirage_core.prompts",
    "mirage_langchain",
    "mirage_llamaindex",
)
# networkx's DiGraph is generic in its type stubs only, so this return annotation is for type
# checkers and cannot be evaluated
CHECKERS_ONLY = {"Verdict.to_networkx"}


def _ours(obj: object) -> bool:
    return getattr(obj, "__module__", "").startswith(PACKAGES)


def _annotated(cls: type) -> Iterator[tuple[str, Callable[..., Any]]]:
    """The functions and property getters ``cls`` defines itself."""
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        func = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if inspect.isfunction(func) and _ours(func):
            yield f"{cls.__name__}.{name}", func


def _exported() -> Iterator[tuple[str, object]]:
    for module_name in PUBLIC_MODULES:
        module = pytest.importorskip(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and _ours(obj):
                yield f"{module_name}.{name}", obj
                yield from _annotated(obj)
            elif inspect.isfunction(obj) and _ours(obj):
                yield f"{module_name}.{name}", obj


def test_every_exported_annotation_resolves() -> None:
    unresolved = []
    for label, obj in _exported():
        if label in CHECKERS_ONLY:
            continue
        try:
            typing.get_type_hints(obj)
        except Exception as exc:
            unresolved.append(f"{label}: {type(exc).__name__}: {exc}")
    assert not unresolved


def test_every_name_in_all_is_importable() -> None:
    for module_name in PUBLIC_MODULES:
        module = pytest.importorskip(module_name)
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module_name}.{name}"
    from mirage_core.nli import TransformersNLI

    assert mirage_core.TransformersNLI is TransformersNLI


def test_verdict_fields_resolve_to_their_types() -> None:
    hints = typing.get_type_hints(Verdict)
    assert hints["decision"] == Decision
    assert hints["answer_conflicts"] == tuple[AnswerConflict, ...]


def test_rag_chain_is_typed_as_documented() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.runnables import Runnable

    from mirage_langchain import MirageRetrieval, create_mirage_rag_chain

    returns = typing.get_type_hints(create_mirage_rag_chain)["return"]
    assert returns == Runnable[str | Mapping[str, Any], dict[str, Any]]
    assert typing.get_type_hints(MirageRetrieval.route.fget)["return"] == Decision


def test_llamaindex_result_route_is_the_decision() -> None:
    pytest.importorskip("llama_index.core")
    from mirage_llamaindex import MirageResult

    assert typing.get_type_hints(MirageResult.route.fget)["return"] == Decision
