"""``python -m training``: the NLI training pipeline, as ``mirage train-nli``."""

from training.train import main

raise SystemExit(main())
