"""Reading JSONL files of objects, with errors that name the file and line."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["iter_jsonl"]


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for every non-blank line; ``ValueError`` on a line that is
    not UTF-8 text, not JSON or not a JSON object, naming the file and line. A byte-order mark
    that opens the file is read past."""
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
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError(f"{path}:{lineno}: JSON nested too deeply") from None
    if not isinstance(row, dict):
        raise ValueError(f"{path}:{lineno}: each row must be a JSON object")
    return row
