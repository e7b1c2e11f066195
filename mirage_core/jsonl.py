"""Reading JSONL files of objects, with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["iter_jsonl"]


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for every non-blank line; ``ValueError`` on a line that is
    not JSON or not a JSON object, and on a file that is not UTF-8 text. A byte-order mark
    that opens the file is read past."""
    with open(path, encoding="utf-8-sig") as fh:
        lineno = 0
        try:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                yield lineno, _object(path, lineno, line)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text after line {lineno} ({exc.reason})") from None


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
