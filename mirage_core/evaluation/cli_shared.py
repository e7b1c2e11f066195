"""What ``mirage calibrate``, ``mirage bench`` and ``mirage pollute`` share: the NLI backend,
the chat model, the base configuration and the dataset named on the command line, and a
progress bar.

Heavy imports (datasets, the NLI model, tqdm) stay inside the functions so that ``mirage --help``
is instant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def _nli_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Settings of the packaged / transformers backend the bench and calibrate commands use."""
    kwargs: dict[str, Any] = {
        "batch_size": max(8, min(128, 4 * args.batch_size)),
        "torch_threads": args.threads,
    }
    if getattr(args, "quantize", None):
        kwargs["quantize"] = args.quantize
    return kwargs


def _nli(args: argparse.Namespace) -> Any:
    from mirage_core.nli.loading import load_backend

    return load_backend(args.model, **_nli_kwargs(args))


def _llm(spec: str) -> Any:
    from mirage_core.nli.loading import import_object

    obj = import_object(spec)
    if obj is not None:
        if isinstance(obj, type) or (callable(obj) and not callable(getattr(obj, "invoke", None))):
            obj = obj()
        return obj
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ValueError(
            f"--llm {spec!r}: 'provider:model' needs the langchain package (pip install langchain "
            "and the provider's integration), or pass 'module:attribute' naming a chat model"
        ) from None
    provider, _, model = spec.partition(":")
    return init_chat_model(
        model or provider, model_provider=provider if model else None, temperature=0
    )


def _config(args: argparse.Namespace):
    from mirage_core.config import MirageConfig

    return MirageConfig.from_file(args.config) if args.config else MirageConfig()


def _load(args: argparse.Namespace):
    from mirage_core.evaluation.datasets import load_dataset

    name = str(args.dataset).lower()
    kwargs: dict[str, Any] = {}
    if name in ("gpe", "gpe-eval"):
        kwargs.update(k=args.k, max_chars=args.max_chars)
        if args.families:
            kwargs["attacks"] = args.families
    elif args.families and Path(args.dataset).is_file():
        kwargs["families"] = args.families
    return load_dataset(args.dataset, limit=args.limit, seed=args.seed, **kwargs)


class _Progress:
    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(
                    total=total, desc=desc, unit="input", file=sys.stderr, dynamic_ncols=True
                )
            except ImportError:
                self.bar = None

    def __call__(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
