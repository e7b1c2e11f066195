"""Field rules and the settings tables generated from the dataclasses' docstrings."""

from __future__ import annotations

from dataclasses import dataclass, field

from mirage_core.checks import field_docs, markdown_table


@dataclass(frozen=True)
class _Settings:
    threshold: float = 0.5
    """Lowest score | highest
    score, read together."""
    label = "not a field"
    """An assignment without an annotation documents nothing."""
    name: str = "x"
    mapping: dict = field(default_factory=dict)
    """An empty mapping."""
    filled: dict = field(default_factory=lambda: {"a": 1})


def test_a_field_s_docstring_is_the_string_under_it_unwrapped():
    assert field_docs(_Settings) == {
        "threshold": "Lowest score | highest score, read together.",
        "mapping": "An empty mapping.",
    }


def test_the_table_escapes_pipes_and_shows_each_default():
    rows = markdown_table(_Settings()).splitlines()
    assert rows[:2] == ["| field | default | what it does |", "|---|---|---|"]
    assert rows[2] == r"| `threshold` | `0.5` | Lowest score \| highest score, read together. |"
    assert rows[3] == "| `name` | `'x'` |  |"  # no docstring: an empty cell
    assert rows[4] == "| `mapping` | `{}` | An empty mapping. |"
    assert rows[5] == "| `filled` | `{'a': 1}` |  |"


def test_a_describe_function_replaces_the_docstrings():
    table = markdown_table(_Settings(), describe=lambda name: f"about {name}")
    assert "| `name` | `'x'` | about name |" in table.splitlines()
