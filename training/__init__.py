"""Training and evaluation of the compact NLI cross-encoder shipped with mirage.

Modules: :mod:`~training.data` (loaders and the held-out split),
:mod:`~training.augment` (minimal-edit contradictions, entailing rewrites, neutral
pairs), :mod:`~training.mixes` (pairs per source), :mod:`~training.train` (the training loop),
:mod:`~training.evaluate`, :mod:`~training.cli` (``mirage train-nli``),
:mod:`~training.bundle` and :mod:`~training.device` (a run on a lent GPU machine). torch and transformers are imported
lazily, inside the functions that need them.

Part of the source checkout, not of the ``mirage-rag`` wheel. From the repository root:
``python -m training --out DIR`` (the same as ``mirage train-nli --out DIR``).
"""
