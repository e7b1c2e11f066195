"""One-off studies behind mirage's defaults, run from the repository root as
``python -m research.<name>``; their outputs are in ``research/results/``."""
