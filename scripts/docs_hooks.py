"""MkDocs hooks.

- The command-line reference is the parser's own help, so it cannot go stale: a page line
  ``<!-- mirage-help: defend -->`` becomes the output of ``mirage defend --help``
  (``<!-- mirage-help: -->`` for ``mirage --help``). Importing the CLI loads no model: heavy
  imports stay inside the command handlers.
- Docstrings use Sphinx roles (``:class:`~mirage_core.types.Passage```); in the rendered API
  pages they become plain code (``Passage``) instead of showing the role.
"""

from __future__ import annotations

import os
import re

_MARKER = re.compile(r"^<!-- mirage-help:\s*([\w-]*)\s*-->$", re.M)
_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj|const):<code>(~?)([^<]+)</code>")


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


def on_page_content(html: str, page, config, files) -> str:
    return _ROLE.sub(
        lambda m: f"<code>{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}</code>",
        html,
    )
