"""The memos of text functions: bounded by the characters they hold as well as by entries."""

from __future__ import annotations

import pickle
import threading

import pytest

from mirage_core.claims import content_tokens
from mirage_core.memo import MAX_CHARS, TextMemo, text_memo


def counting(calls: list[str]):
    def fn(text: str) -> str:
        calls.append(text)
        return text.upper()

    return fn


def test_the_least_recently_used_texts_leave_first_once_the_characters_run_over() -> None:
    calls: list[str] = []
    memo = TextMemo(counting(calls), maxsize=100, max_chars=300)
    texts = [f"{i:03d}" + "x" * 97 for i in range(4)]  # 100 characters each
    assert [memo(t) for t in texts[:3]] == [t.upper() for t in texts[:3]]
    memo(texts[0])  # a hit: texts[0] is now the most recently used
    memo(texts[3])  # 400 characters: texts[1] leaves, not texts[0]
    assert memo.chars <= 300 and memo.cache_info().currsize == 3
    calls.clear()
    memo(texts[0]), memo(texts[2]), memo(texts[3])
    assert calls == []
    memo(texts[1])
    assert calls == [texts[1]]


def test_a_text_longer_than_the_bound_is_computed_every_time_and_not_held() -> None:
    calls: list[str] = []
    memo = TextMemo(counting(calls), maxsize=100, max_chars=50)
    long = "y" * 51
    assert memo(long) == memo(long) == long.upper()
    assert calls == [long, long] and memo.chars == 0 and memo.cache_info().currsize == 0


def test_entries_are_bounded_too_and_the_other_arguments_are_part_of_the_key() -> None:
    memo = text_memo(maxsize=2)(lambda text, form: f"{text}:{form}")
    assert memo("a", "x") == "a:x" and memo("a", "y") == "a:y"
    memo("b", "x")
    assert memo.cache_info().currsize == 2
    memo.cache_clear()
    assert memo.cache_info() == (0, 0, 2, 0) and memo.chars == 0


def test_the_content_tokens_memo_holds_no_more_than_its_bound_of_page_text() -> None:
    # a service sees ever new pages: 300 pages of 20,000 characters are 6 million characters,
    # more than the bound, and each would hold a set of its tokens as well
    content_tokens.cache_clear()
    page = " ".join(f"word{i}" for i in range(2_500))[:19_990]
    try:
        for i in range(300):
            assert f"{i:05d}" in content_tokens(f"{i:05d} {page}")
        info = content_tokens.cache_info()
        assert content_tokens.chars <= MAX_CHARS and info.currsize < 300
        assert info.currsize >= MAX_CHARS // 20_000 - 1  # the newest pages are still held
    finally:
        content_tokens.cache_clear()


def test_a_memo_is_pickled_by_reference_and_safe_across_threads() -> None:
    assert pickle.loads(pickle.dumps(content_tokens)) is content_tokens
    memo = TextMemo(lambda t: len(t), maxsize=64, max_chars=1_000)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(2_000):
                text = "z" * ((i * 7 + k) % 90 + 1)
                assert memo(text) == len(text)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and memo.chars <= 1_000 and memo.cache_info().currsize <= 64
    assert memo.chars == sum(len(k[0]) for k in memo._data)


def test_bounds_are_validated() -> None:
    with pytest.raises(ValueError):
        TextMemo(len, maxsize=-1, max_chars=10)
