"""The LLM polluter with an offline fake chat model."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from mirage_core.pollution import Family, LLMPolluter

TEXT = "The tower was completed in 1889. It is located in Paris."


def test_llm_polluter_records_the_edited_span():
    model = FakeListChatModel(
        responses=["<passage>The tower was completed in 1925. It is located in Paris.</passage>"]
    )
    pp = LLMPolluter(model).pollute(TEXT, "unambiguous")
    assert pp.family == "unambiguous" and pp.polluter == "llm" and pp.original == TEXT
    (e,) = pp.edits
    assert (e.original, e.replacement) == ("1889", "1925")
    assert pp.text[e.start : e.end] == "1925"


def test_llm_polluter_rejects_rewrites_and_no_ops():
    rewrite = FakeListChatModel(
        responses=["Completely different text about another subject entirely."]
    )
    assert LLMPolluter(rewrite).pollute(TEXT, "fabricated") is None
    same = FakeListChatModel(responses=[f"<passage>{TEXT}</passage>"])
    assert LLMPolluter(same).pollute(TEXT, "conflicting") is None


def test_one_prompt_per_family():
    polluter = LLMPolluter(FakeListChatModel(responses=["x"]))
    prompts = {fam: polluter.messages(TEXT, fam)[-1].content for fam in Family}
    assert len(set(prompts.values())) == 4 and all(TEXT in p for p in prompts.values())
    with pytest.raises(ValueError):
        LLMPolluter(FakeListChatModel(responses=["x"]), prompts={"misleading": "no slot"})


def test_pollute_many_batches():
    model = FakeListChatModel(
        responses=[
            "<passage>The tower was not completed in 1889. It is located in Paris.</passage>"
        ]
        * 2
    )
    out = LLMPolluter(model).pollute_many([TEXT, TEXT], "conflicting")
    assert [o.edits[0].replacement for o in out] == ["not", "not"]
