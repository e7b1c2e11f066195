"""Training and evaluation of the compact NLI cross-encoder shipped with mirage.

Modules: :mod:`~mirage_core.training.data` (loaders and the held-out split),
:mod:`~mirage_core.training.augment` (minimal-edit contradictions, entailing rewrites, neutral
pairs), :mod:`~mirage_core.training.train` (the training loop), :mod:`~mirage_core.training.evaluate`
and :mod:`~mirage_core.training.cli` (``mirage train-nli``). torch and transformers are imported
lazily, inside the functions that need them.
"""
