"""Which output column of an NLI model holds entailment, neutral and contradiction: read from
its label names (``config.id2label``, or a server's label list), or given by an explicit
``label_map``. A label name matches a role by prefix (entail / neutral / contra, any case).

Every NLI backend orders its probabilities as :data:`~mirage_core.nli.base.LABELS` with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mirage_core.nli.base import LABELS

__all__ = ["resolve_label_columns"]

# Role of each output column, in LABELS order; a label name matches a role by prefix.
_ROLE_PREFIXES: tuple[tuple[str, ...], ...] = (("entail",), ("neutral", "neut"), ("contra",))


def _role_of(label: str) -> int | None:
    name = str(label).strip().lower()
    for role, prefixes in enumerate(_ROLE_PREFIXES):
        if name.startswith(prefixes):
            return role
    return None


def resolve_label_columns(
    id2label: Mapping[Any, str],
    label_map: Mapping[str, int] | None = None,
    *,
    model_name: str = "the model",
) -> tuple[int, int, int]:
    """Model output column of entailment, neutral and contradiction, in that order.

    ``label_map`` (names as in :data:`LABELS`, or any name starting with entail / neutral /
    contra, case-insensitive) wins over ``id2label``. Raises ValueError when neither gives
    three distinct, valid columns.
    """
    num_labels = len(id2label)
    hint = (
        "pass label_map={'entailment': i, 'neutral': j, 'contradiction': k} with the model's "
        "output index of each label"
    )
    if label_map is not None:
        cols: list[int | None] = [None, None, None]
        for key, value in label_map.items():
            role = _role_of(key)
            if role is None:
                raise ValueError(
                    f"label_map key {key!r} is not one of {list(LABELS)} "
                    "(or a name starting with entail / neutral / contra)"
                )
            if cols[role] is not None:
                raise ValueError(f"label_map names {LABELS[role]!r} twice")
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"label_map[{key!r}] must be an int, got {value!r}")
            if not 0 <= int(value) < num_labels:
                raise ValueError(
                    f"label_map[{key!r}] = {value} is out of range: {model_name} has "
                    f"{num_labels} output labels"
                )
            cols[role] = int(value)
        missing = [LABELS[r] for r in range(3) if cols[r] is None]
        if missing:
            raise ValueError(f"label_map lacks {missing}; {hint}")
        if len(set(cols)) != 3:
            raise ValueError(f"label_map maps two labels to the same column: {dict(label_map)}")
        return cols[0], cols[1], cols[2]  # type: ignore[return-value]

    found: list[int | None] = [None, None, None]
    for idx, label in id2label.items():
        role = _role_of(label)
        if role is None:
            continue
        if found[role] is not None:
            raise ValueError(
                f"cannot read the label order of {model_name}: config.id2label "
                f"{dict(id2label)} has two {LABELS[role]!r} labels; {hint}"
            )
        found[role] = int(idx)
    missing = [LABELS[r] for r in range(3) if found[r] is None]
    if missing:
        raise ValueError(
            f"cannot read the label order of {model_name}: config.id2label {dict(id2label)} "
            f"has no label for {missing} (expected names starting with 'entail', 'neutral' "
            f"and 'contra', any case); {hint}"
        )
    return found[0], found[1], found[2]  # type: ignore[return-value]
