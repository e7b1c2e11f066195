"""The LLM polluter: any LangChain chat model, one prompt per pollution family.

``langchain_core`` is imported when a polluter is built, never when this module is imported.

Example::

    from langchain_openai import ChatOpenAI
    polluter = LLMPolluter(ChatOpenAI(model="gpt-4o-mini", temperature=0))
    polluted = polluter.pollute("The tower was completed in 1889.", "unambiguous")
    polluted.text, polluted.edits   # the edited passage and the spans that changed

The model's reply is checked: it must differ from the original, stay close to it (a minimal
edit, ``min_similarity``) and not be empty; otherwise ``pollute`` returns ``None``. The edited
spans are recovered with a word-level diff, so metrics can tell polluted claims from clean ones
whatever the model did.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

from mirage_core.pollution.families import Family, PollutedPassage, diff_edits
from mirage_core.types import PassageLike, to_passage

__all__ = ["DEFAULT_PROMPTS", "SYSTEM_PROMPT", "LLMPolluter"]

SYSTEM_PROMPT = (
    "You help build a robustness benchmark for retrieval-augmented generation. You receive a "
    "passage and rewrite it with ONE small, fluent edit of the kind requested, so that the "
    "passage stays on topic and reads naturally but is no longer accurate. Change as few words "
    "as possible and keep everything else verbatim. Reply with the full edited passage between "
    "<passage> and </passage> and nothing else."
)

DEFAULT_PROMPTS: dict[Family, str] = {
    Family.UNAMBIGUOUS: (
        "Edit kind: UNAMBIGUOUS FACT CHANGE. Change exactly one atomic fact — a number, a date, "
        "a person's name or a place — to a different value of the same kind that sounds "
        "plausible.\n\n<passage>{text}</passage>"
    ),
    Family.CONFLICTING: (
        "Edit kind: POLARITY FLIP. Flip the polarity of exactly one claim (add or remove a "
        "negation, or swap a word for its antonym) so that it states the opposite.\n\n"
        "<passage>{text}</passage>"
    ),
    Family.MISLEADING: (
        "Edit kind: MISLEADING FRAME. Keep the facts but change the framing of one sentence "
        "(hedging, false emphasis, a misleading qualifier or implied causation) so that a "
        "reader would draw a false conclusion.\n\n<passage>{text}</passage>"
    ),
    Family.FABRICATED: (
        "Edit kind: FABRICATED DETAIL. Add one specific, plausible but non-existent detail "
        "(an attribution, a date, a figure or a named participant) to one sentence.\n\n"
        "<passage>{text}</passage>"
    ),
}

_PASSAGE = re.compile(r"<passage>(.*?)(?:</passage>|$)", re.DOTALL | re.IGNORECASE)


class LLMPolluter:
    """Pollute passages with a LangChain chat model (``BaseChatModel`` or any runnable that
    takes a list of messages and returns a message or a string).

    Args:
        model: the chat model.
        prompts: family -> user prompt with a ``{text}`` slot (defaults: :data:`DEFAULT_PROMPTS`).
        system_prompt: the system message (``None`` to send none).
        min_similarity: the reply must keep at least this word-level similarity to the original
            (difflib ratio), so a rewrite is not mistaken for a minimal edit.
    """

    name = "llm"

    def __init__(
        self,
        model: Any,
        *,
        prompts: Mapping[Family | str, str] | None = None,
        system_prompt: str | None = SYSTEM_PROMPT,
        min_similarity: float = 0.6,
    ) -> None:
        if not callable(getattr(model, "invoke", None)):
            raise TypeError(
                f"model must be a LangChain chat model (with .invoke), got {type(model).__name__}"
            )
        from langchain_core.messages import HumanMessage, SystemMessage  # lazy: optional extra

        self._human, self._system = HumanMessage, SystemMessage
        self.model = model
        self.prompts: dict[Family, str] = dict(DEFAULT_PROMPTS)
        for fam, prompt in (prompts or {}).items():
            if "{text}" not in prompt:
                raise ValueError(f"the prompt for {fam!s} needs a {{text}} slot")
            self.prompts[Family.parse(fam)] = prompt
        self.system_prompt = system_prompt
        if not 0 <= min_similarity <= 1:
            raise ValueError("min_similarity must be in [0, 1]")
        self.min_similarity = min_similarity

    def __repr__(self) -> str:
        return f"LLMPolluter(model={type(self.model).__name__})"

    def messages(self, text: str, family: Family | str) -> list[Any]:
        """The chat messages sent for one passage."""
        fam = Family.parse(family)
        out: list[Any] = [self._system(content=self.system_prompt)] if self.system_prompt else []
        out.append(self._human(content=self.prompts[fam].replace("{text}", text)))
        return out

    def pollute(
        self, passage: PassageLike, family: Family | str, *, seed: int | str = 0
    ) -> PollutedPassage | None:
        """One polluted variant, or ``None`` when the reply is not a usable minimal edit.
        ``seed`` is accepted for the :class:`Polluter` protocol; LLM output is only as
        deterministic as the model (use temperature 0)."""
        p = to_passage(passage)
        reply = self.model.invoke(self.messages(p.text, family))
        return self._parse(p, Family.parse(family), reply)

    def pollute_many(
        self,
        passages: Sequence[PassageLike],
        family: Family | str,
        *,
        max_concurrency: int | None = None,
    ) -> list[PollutedPassage | None]:
        """``pollute`` for many passages in one ``model.batch`` call."""
        ps = [to_passage(p) for p in passages]
        fam = Family.parse(family)
        config = {"max_concurrency": max_concurrency} if max_concurrency else None
        replies = self.model.batch([self.messages(p.text, fam) for p in ps], config=config)
        return [self._parse(p, fam, r) for p, r in zip(ps, replies, strict=True)]

    async def apollute(
        self, passage: PassageLike, family: Family | str, *, seed: int | str = 0
    ) -> PollutedPassage | None:
        p = to_passage(passage)
        reply = await self.model.ainvoke(self.messages(p.text, family))
        return self._parse(p, Family.parse(family), reply)

    def _parse(self, p, fam: Family, reply: Any) -> PollutedPassage | None:
        content = getattr(reply, "content", reply)
        if isinstance(content, list):  # content blocks
            content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        if not isinstance(content, str):
            return None
        m = _PASSAGE.search(content)
        edited = (m.group(1) if m else content).strip()
        if not edited or edited == p.text.strip():
            return None
        words_a, words_b = p.text.split(), edited.split()
        if SequenceMatcher(a=words_a, b=words_b, autojunk=False).ratio() < self.min_similarity:
            return None
        edits = diff_edits(p.text, edited, kind=f"llm-{fam.value}")
        if not edits:
            return None
        return PollutedPassage.from_passage(p, edited, fam.value, edits, polluter=self.name)
