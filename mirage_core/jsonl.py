"""Reading JSON that mirage did not write: JSONL files of objects, with errors that name the
file and line, and JSON text in which an object that repeats a key is an error
(:class:`~mirage_core.errors.DuplicateKeyError`), never its last value read silently."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mirage_core.errors import DuplicateKeyError

__all__ = ["iter_jsonl", "json_loads", "unique_keys"]


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` for :func:`json.loads`: the object as a dict;
    :class:`~mirage_core.errors.DuplicateKeyError` when it names a key twice."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return obj


def json_loads(text: str | bytes, **kwargs: Any) -> Any:
    """:func:`json.loads` (``kwargs`` go to it) with a repeated key in any object an error,
    :class:`~mirage_core.errors.DuplicateKeyError` naming the key."""
    return json.loads(text, object_pairs_hook=unique_keys, **kwargs)


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for every non-blank line; ``ValueError`` on a line that is
    not UTF-8 text, not JSON or not a JSON object, and
    :class:`~mirage_core.errors.DuplicateKeyError` on one with an object that repeats a key,
    naming the file and line. A byte-order mark that opens the file is read past."""
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if lineno == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:  # line by line, so the line number is the line's
                raise ValueError(f"{path}:{lineno}: not UTF-8 text ({exc.reason})") from None
            if not line.strip():
                continue
            yield lineno, _object(path, lineno, line)


def _object(path: str | Path, lineno: int, line: str) -> dict[str, Any]:
    try:
        row = json_loads(line)
    except DuplicateKeyError as exc:
        raise DuplicateKeyError(exc.key, f"{path}:{lineno}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError(f"{path}:{lineno}: JSON nested too deeply") from None
    if not isinstance(row, dict):
        raise ValueError(f"{path}:{lineno}: each row must be a JSON object")
    return row
