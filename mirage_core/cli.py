"""The ``mirage`` command line: ``mirage defend`` plus subcommands registered by other modules.

Subcommand modules expose ``register(subparsers)``; heavy imports stay inside their handlers so
``mirage --help`` is instant.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from mirage_core.defense import Mirage
from mirage_core.jsonl import iter_jsonl
from mirage_core.types import to_passage

__all__ = ["check_passage", "int_at_least", "main", "read_passages", "sanitize", "say"]

#: Unicode categories a terminal must never receive raw: controls (C0, C1: ESC, CSI, BEL,
#: backspace, carriage return...), format characters (bidi overrides and isolates, zero-width
#: characters, soft hyphen, BOM, tag characters), lone surrogates, line and paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape(ch: str) -> str:
    code = ord(ch)
    if code > 0xFFFF:  # a surrogate pair: still a valid JSON escape
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def sanitize(text: object, *, newlines: bool = True) -> str:
    """``text`` safe to print on a terminal: every control, format, surrogate and separator
    character becomes a visible ``\\uXXXX`` escape (``\\x1b[2J`` prints as ``\\u001b[2J``;
    the escapes are valid JSON, so JSON output keeps its meaning). Tabs stay, and line feeds
    too unless ``newlines`` is false (for one-line fields: a source or a passage)."""
    text = str(text)
    keep = "\t\n" if newlines else "\t"
    return "".join(
        _escape(ch) if ch not in keep and unicodedata.category(ch) in _HIDDEN else ch for ch in text
    )


def say(*parts: Any, file: TextIO | None = None, sep: str = " ", end: str = "\n") -> None:
    """``print`` for the command line: everything goes through :func:`sanitize`."""
    print(sep.join(sanitize(p) for p in parts), file=file or sys.stdout, end=end)


# Modules that add subcommands (train-nli, pollute, calibrate, bench, serve, ...); absent ones are
# skipped. ``training`` (train-nli) is not in the wheel: it is a top-level package of a source
# checkout, found beside mirage_core/ when it is not importable otherwise.
_SUBCOMMAND_MODULES = (
    "training.cli",
    "mirage_core.evaluation.cli",
    "mirage_core.serve.cli",
)
_CHECKOUT = Path(__file__).resolve().parents[1]


def _from_checkout(name: str) -> ModuleType | None:
    """Module ``name`` of a top-level package of the source checkout this ``mirage_core`` lies
    in (an editable install maps only the wheel's packages, so ``mirage`` run as a script does
    not see the checkout's others); None outside a checkout or when it has no such package."""
    top = name.partition(".")[0]
    init = _CHECKOUT / top / "__init__.py"
    if top in sys.modules or not init.is_file() or not (_CHECKOUT / "pyproject.toml").is_file():
        return None
    spec = importlib.util.spec_from_file_location(
        top, init, submodule_search_locations=[str(init.parent)]
    )
    if spec is None or spec.loader is None:
        return None
    package = importlib.util.module_from_spec(spec)
    sys.modules[top] = package
    try:
        spec.loader.exec_module(package)
        return importlib.import_module(name)
    except ModuleNotFoundError:
        del sys.modules[top]
        return None


def _subcommand_module(name: str) -> ModuleType | None:
    """The subcommand module ``name``, or None when that part of mirage is not installed."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            return _from_checkout(name)
        raise


def read_passages(path: str | Path) -> list[dict]:
    """Read JSONL rows ``{"text", "source"|"url", "score", ...}``; blank lines are skipped.
    ``ValueError`` names the file and line of a row that is no passage (a field of the wrong
    type as well as a missing ``text``)."""
    rows = []
    for lineno, row in iter_jsonl(path):
        if not isinstance(row.get("text"), str):
            raise ValueError(f"{path}:{lineno}: each row needs a string 'text' field")
        check_passage(row, f"{path}:{lineno}")
        rows.append(row)
    return rows


def check_passage(obj: object, where: str) -> None:
    """Refuse ``obj`` as the engine would read it (:func:`~mirage_core.types.to_passage`),
    with ``ValueError`` naming ``where`` (``file:line``): a bad row of an input file is an
    error at its line, not a traceback later."""
    try:
        to_passage(obj)  # type: ignore[arg-type]
    except TypeError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _make_mirage(config, model: str | None):
    return Mirage(config, nli=model)


def _run_defend(args: argparse.Namespace) -> int:
    from mirage_core.config import MirageConfig

    if args.paper and args.config:
        raise ValueError("give --paper or --config, not both (--paper is the published method)")
    config = MirageConfig.from_file(args.config) if args.config else MirageConfig()
    if args.paper:
        config = MirageConfig.paper()
    if args.independence:
        config = config.replace(independence=args.independence)
    rows = read_passages(args.passages)
    mirage = _make_mirage(config, args.model)
    verdict = mirage.defend(args.query, rows)
    if args.html:
        # errors="replace": a lone surrogate in a passage cannot stop the report being written
        Path(args.html).write_text(verdict.to_html(rows), encoding="utf-8", errors="replace")
    if args.json:
        say(verdict.to_json(indent=2))
    else:
        say(verdict.explain(max_claims=args.max_claims))
        if verdict.passed:
            say("\nverified evidence:")
            for vp in verdict.verified_passages():
                src = verdict.claims[vp.claim_indices[0]].source
                source = sanitize(src, newlines=False)
                say(f"  [{vp.passage_index}] {source}: {sanitize(vp.text, newlines=False)}")
    if args.html:
        say(f"HTML report: {args.html}", file=sys.stderr if args.json else sys.stdout)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mirage", description="MIRAGE: keep polluted evidence out of RAG."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    defend = sub.add_parser(
        "defend", help="run the defense on one query and a JSONL file of passages"
    )
    defend.add_argument("--query", required=True, help="the user question")
    defend.add_argument(
        "--passages",
        required=True,
        help="JSONL: one passage per line (text, source/url, score, ...)",
    )
    defend.add_argument(
        "--model",
        default=None,
        help="NLI model: preset (paper, base, fast), hub id or local path; default: the packaged model",
    )
    defend.add_argument(
        "--config",
        default=None,
        help="JSON file of MirageConfig fields (e.g. from `mirage calibrate`)",
    )
    defend.add_argument(
        "--paper",
        action="store_true",
        help="use MirageConfig.paper() (the method exactly as published)",
    )
    defend.add_argument(
        "--independence",
        choices=("none", "domain", "embedding"),
        default=None,
        help="what counts as one source (overrides the config): every source, one per "
        "publisher domain, or also near-duplicate passages (coordinated poisoning)",
    )
    defend.add_argument("--json", action="store_true", help="print the full verdict as JSON")
    defend.add_argument(
        "--html",
        metavar="PATH",
        default=None,
        help="also write the verdict as one self-contained HTML page (claim graph, "
        "contradictions, each passage with its sentences marked)",
    )
    defend.add_argument(
        "--max-claims",
        type=int_at_least(0),
        default=10,
        help="claims of S* listed in the text output (an int >= 0)",
    )
    defend.set_defaults(func=_run_defend)
    for name in _SUBCOMMAND_MODULES:
        module = _subcommand_module(name)
        if module is not None:
            module.register(sub)
    return parser


def int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type``: an int >= ``minimum``, refused with what it must be."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an int >= {minimum}, got {text!r}")
        return value

    return parse


def _runs_on_torch(args: argparse.Namespace) -> bool:
    """Whether ``defend`` will load its model with torch (importing transformers to quiet it
    costs half a second that the ONNX runtime never spends)."""
    from mirage_core.nli.onnx_nli import model_graph_dir
    from mirage_core.onnx_models import use_onnx

    try:
        return not use_onnx(model_graph_dir(getattr(args, "model", None)))
    except ValueError:  # a bad $MIRAGE_RUNTIME: loading the model says so
        return False


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Model-loading progress bars of huggingface libraries are noise on a command line.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    if "transformers" in sys.modules or (args.command == "defend" and _runs_on_torch(args)):
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
        except ImportError:
            pass
    try:
        return int(args.func(args) or 0)
    except (OSError, ValueError, ImportError) as exc:  # a file, a bad input, a missing extra
        if isinstance(exc, BrokenPipeError):  # the reader (``| head``) closed the pipe: done
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        say(f"mirage: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
