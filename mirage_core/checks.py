"""Settings validation from field metadata, and the settings' documentation read off their
attribute docstrings (one source for the API docs, the generated docs table and the errors).

A settings dataclass declares each field's rule as ``field(default, metadata=rule(...))``;
:func:`validate` checks every field once, at construction. ``Literal`` fields need no rule:
their choices are read from the annotation.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import math
import textwrap
import typing
from collections.abc import Callable, Mapping
from dataclasses import Field, fields
from typing import Any, Literal, get_args, get_origin

from mirage_core.types import normalize_domain

__all__ = ["field_docs", "markdown_table", "rule", "validate"]

Kind = Literal[
    "unit",  # a number in [0, 1]
    "positive_unit",  # a number in (0, 1]
    "finite",  # any finite number
    "nonnegative",  # a finite number >= 0
    "int",  # an int >= minimum
    "bool",
    "kinds",  # a non-empty sequence of the names in ``choices``
    "trust",  # a mapping domain -> [0, 1]
    "overrides",  # a mapping field name -> value (the owner checks names and values)
]


def rule(
    kind: Kind,
    *,
    optional: bool = False,
    minimum: int = 1,
    choices: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Field metadata for :func:`validate`: ``optional`` lets ``None`` through."""
    return {"kind": kind, "optional": optional, "minimum": minimum, "choices": choices}


def _is_number(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float)


def _check(name: str, value: Any, meta: Mapping[str, Any]) -> Any:
    """The normalized value, or ValueError naming the field and what it must be."""
    kind = meta["kind"]
    if value is None and meta["optional"]:
        return None
    none = " or None" if meta["optional"] else ""
    if kind in ("unit", "positive_unit"):
        low_ok = (lambda v: v > 0) if kind == "positive_unit" else (lambda v: v >= 0)
        if not (_is_number(value) and low_ok(value) and value <= 1):
            interval = "(0, 1]" if kind == "positive_unit" else "[0, 1]"
            raise ValueError(f"{name} must be a number in {interval}{none}, got {value!r}")
        return float(value)  # 1 and 1.0 are one setting: equal, and of one hash
    elif kind in ("finite", "nonnegative"):
        if not (_is_number(value) and math.isfinite(value)) or (
            kind == "nonnegative" and value < 0
        ):
            what = "a finite number >= 0" if kind == "nonnegative" else "a finite number"
            raise ValueError(f"{name} must be {what}{none}, got {value!r}")
        return float(value)
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < meta["minimum"]:
            raise ValueError(f"{name} must be an int >= {meta['minimum']}{none}, got {value!r}")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be a bool, got {value!r}")
    elif kind == "kinds":
        allowed = meta["choices"]
        empty_ok = meta["minimum"] == 0
        if (
            isinstance(value, str)
            or (not value and not empty_ok)
            or not all(v in allowed for v in value)
        ):
            what = "a sequence" if empty_ok else "a non-empty sequence"
            raise ValueError(f"{name} must be {what} of {list(allowed)}{none}, got {value!r}")
        return tuple(value)
    elif kind == "overrides":
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise ValueError(f"{name} must be a mapping of field names to values, got {value!r}")
        return dict(value)
    elif kind == "trust":
        if not isinstance(value, Mapping):
            raise ValueError(
                f"{name} must be a mapping domain -> [0, 1], got {type(value).__name__}"
            )
        out: dict[str, float] = {}
        for domain, v in value.items():
            if not isinstance(domain, str):
                raise ValueError(f"{name} keys must be domain strings, got {domain!r}")
            if not (_is_number(v) and 0 <= v <= 1):
                raise ValueError(f"{name}[{domain!r}] must be in [0, 1], got {v!r}")
            # keyed as passages' domains are read ("www.NYTimes.com" is "nytimes.com"); a
            # private plain dict, so settings pickle and deepcopy
            key = normalize_domain(domain)
            if key in out and out[key] != float(v):
                raise ValueError(f"{name} gives the domain {key!r} two values")
            out[key] = float(v)
        return out
    return value


def _literal_choices(annotation: Any) -> tuple[Any, ...] | None:
    if get_origin(annotation) is Literal:
        return get_args(annotation)
    return None


def validate(obj: Any) -> None:
    """Check every field of the frozen dataclass ``obj`` by its metadata or ``Literal`` type;
    store normalized values (tuples, lower-cased trust) in place."""
    hints = typing.get_type_hints(type(obj))
    for f in fields(obj):
        value = getattr(obj, f.name)
        choices = _literal_choices(hints.get(f.name))
        if choices is not None:
            if value not in choices:
                raise ValueError(
                    f"{f.name} must be one of {', '.join(map(repr, choices))}, got {value!r}"
                )
            continue
        if "kind" in f.metadata:
            checked = _check(f.name, value, f.metadata)
            if checked is not value:
                object.__setattr__(obj, f.name, checked)


def field_docs(cls: type) -> dict[str, str]:
    """Each field's attribute docstring (the string literal under its definition), unwrapped."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for stmt, nxt in itertools.pairwise(body):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            docs[stmt.target.id] = " ".join(inspect.cleandoc(nxt.value.value).split())
    return docs


def _default(f: Field, instance: Any) -> str:
    value = getattr(instance, f.name)
    if hasattr(value, "__dataclass_fields__"):
        return f"`{type(value).__name__}()`"
    if isinstance(value, Mapping):
        return "`{}`" if not value else f"`{dict(value)!r}`"
    return f"`{value!r}`"


def markdown_table(instance: Any, describe: Callable[[str], str] | None = None) -> str:
    """A Markdown table of ``instance``'s fields: name, default (its value) and docstring."""
    docs = field_docs(type(instance))
    rows = ["| field | default | what it does |", "|---|---|---|"]
    for f in fields(instance):
        doc = docs.get(f.name, "") if describe is None else describe(f.name)
        cell = doc.replace("|", r"\|")
        rows.append(f"| `{f.name}` | {_default(f, instance)} | {cell} |")
    return "\n".join(rows)
