"""The Retrieval Pollution Protocol (docs/method.md): four pollution families, three regimes at
constant evidence size, an offline rule-based polluter and an LLM polluter.

>>> from mirage_core.pollution import RulePolluter, apply_regime
>>> polluter = RulePolluter(["The tower opened in 1889.", "It opened in 1890 in Paris."])
>>> evidence = apply_regime(passages, "mixed", "unambiguous", polluter, seed=0)
"""

from typing import TYPE_CHECKING

from mirage_core.pollution.facts import find_facts
from mirage_core.pollution.families import (
    FAMILIES,
    LABEL_KEY,
    Edit,
    Family,
    PollutedPassage,
    Polluter,
    Regime,
    apply_regime,
    diff_edits,
    mixed_count,
    polluted_spans,
)
from mirage_core.pollution.rules import Corpus, RulePolluter

if TYPE_CHECKING:
    from mirage_core.pollution.llm import LLMPolluter

__all__ = [
    "FAMILIES",
    "LABEL_KEY",
    "Corpus",
    "Edit",
    "Family",
    "LLMPolluter",
    "PollutedPassage",
    "Polluter",
    "Regime",
    "RulePolluter",
    "apply_regime",
    "diff_edits",
    "find_facts",
    "mixed_count",
    "polluted_spans",
]


if not TYPE_CHECKING:
    # Type checkers read the import above; at runtime the LLM polluter (which imports
    # langchain_core lazily) is imported on first use, to keep `import mirage_core.pollution`
    # light.
    def __getattr__(name: str) -> type:
        if name == "LLMPolluter":
            from mirage_core.pollution.llm import LLMPolluter

            return LLMPolluter
        raise AttributeError(f"module 'mirage_core.pollution' has no attribute {name!r}")
