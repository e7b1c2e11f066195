"""A backend for the serve tests (``tests.core.serve.faulty_backend:FaultyNLI``): fixed
probabilities, a TypeError when a premise holds BOOM and an NLIError when one holds DOWN."""

from __future__ import annotations

import numpy as np

from mirage_core.errors import NLIError


class FaultyNLI:
    name = "faulty"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def predict(self, premises, hypotheses) -> np.ndarray:
        self.calls.append(len(premises))
        if any("BOOM" in p for p in premises):
            raise TypeError("this backend cannot take BOOM")
        if any("DOWN" in p for p in premises):
            raise NLIError("the model is down")
        return np.tile([0.7, 0.2, 0.1], (len(premises), 1))
