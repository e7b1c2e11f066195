"""``mirage train-nli``: the command-line entry of the NLI training pipeline.

``mirage_core/cli.py`` adds it as a subcommand when this package is importable (a source
checkout; the wheel does not ship it). Nothing heavy is imported here: torch / transformers load
inside :func:`run` only, so ``mirage --help`` stays fast.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``train-nli`` subcommand to an ``argparse`` subparsers object."""
    from training.train import add_arguments

    parser = subparsers.add_parser(
        "train-nli",
        help="train the compact 3-way NLI cross-encoder (MiniLM-L6) on ../shared/data/nli",
        description="Train the compact NLI model shipped with mirage: seeded, CPU-friendly, "
        "with a progress bar and a final evaluation table on held-out sets.",
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the training described by the parsed ``args``; returns an exit status."""
    import os

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from training.train import train

    return int(train(args) or 0)
