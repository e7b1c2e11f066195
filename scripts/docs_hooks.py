"""MkDocs hook: the command-line reference is the parser's own help, so it cannot go stale.

A page line ``<!-- mirage-help: defend -->`` becomes the output of ``mirage defend --help``
(``<!-- mirage-help: -->`` for ``mirage --help``). Importing the CLI loads no model: heavy
imports stay inside the command handlers.
"""

from __future__ import annotations

import os
import re

_MARKER = re.compile(r"^<!-- mirage-help:\s*([\w-]*)\s*-->$", re.M)


def _help(command: str) -> str:
    import argparse

    from mirage_core.cli import build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: fix the width
    parser = build_parser()
    if not command:
        return parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command].format_help()
    raise ValueError(f"docs: no `mirage {command}` command (stale <!-- mirage-help --> marker)")


def on_page_markdown(markdown: str, page, config, files) -> str:
    return _MARKER.sub(lambda m: "```text\n" + _help(m.group(1)).rstrip() + "\n```", markdown)
