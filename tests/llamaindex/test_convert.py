"""Node ↔ passage bookkeeping: scores read, nodes passed over with their reason, output modes."""

from __future__ import annotations

import numpy as np
import pytest
from llama_index.core.schema import ImageNode, NodeWithScore, TextNode

from mirage_core import Mirage
from mirage_llamaindex import MiragePostprocessor
from mirage_llamaindex._convert import to_passages


@pytest.mark.parametrize(
    ("score", "expected"),
    [(0.5, 0.5), (np.float32(0.25), 0.25), (None, None), (float("nan"), None), (True, None)],
)
def test_a_node_score_is_read_when_it_is_a_finite_number(score, expected):
    item = NodeWithScore(node=TextNode(text="The tower is in Paris."), score=0.0)
    object.__setattr__(item, "score", score)  # as a custom retriever may leave it
    assert to_passages([item]).passages[0].score == expected


def test_the_reasons_a_node_is_passed_over():
    nodes = [
        NodeWithScore(node=ImageNode(image_url="https://img.example/a.png", text="A caption.")),
        NodeWithScore(node=TextNode(text="  \n ")),
    ]
    passed = to_passages(nodes).passed_over
    assert [p.reason for p in passed] == [
        "image node: mirage verifies text claims only",
        "no text: the node is empty",
    ]
    assert [p.to_dict()["index"] for p in passed] == [0, 1]


def test_each_passage_remembers_its_node():
    nodes = [NodeWithScore(node=TextNode(text="The tower is in Paris.", id_="n-1"))]
    assert to_passages(nodes).passages[0].metadata == {"node_id": "n-1"}


@pytest.mark.model
def test_nodes_output_keeps_the_whole_text_where_sentences_output_cuts_it(
    mirage: Mirage, clean_nodes: list[NodeWithScore]
):
    whole = MiragePostprocessor(mirage=mirage, output="nodes").verify(clean_nodes, "q").nodes
    cut = MiragePostprocessor(mirage=mirage, output="sentences").verify(clean_nodes, "q").nodes
    originals = {n.node.node_id: n.node.get_content() for n in clean_nodes}
    assert [n.node.node_id for n in whole] == [n.node.node_id for n in cut]
    assert all(n.node.get_content() == originals[n.node.node_id] for n in whole)
    # the clean pages hold facts no other page states: delivery cuts them from the sentences
    assert any(c.node.get_content() != originals[c.node.node_id] for c in cut)
