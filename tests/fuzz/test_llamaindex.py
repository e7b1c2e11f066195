"""Property-based fuzzing of ``MiragePostprocessor.postprocess_nodes`` on hostile nodes.

The engine records the verdict of each call, so every returned node can be checked against it.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from llama_index.core.schema import (
    ImageNode,
    MetadataMode,
    NodeRelationship,
    NodeWithScore,
    RelatedNodeInfo,
    TextNode,
)

from mirage_llamaindex import MIRAGE_KEY, MiragePostprocessor
from tests.fuzz.conftest import (
    FUZZ,
    check_no_nan,
    check_verified_text,
    claim_texts,
    hostile_text,
    note_route,
    query_text,
    recording_engine,
    score,
    snapshot,
    source,
)

POSTPROCESSORS = {
    (coordination, output): MiragePostprocessor(
        mirage=recording_engine(coordination), output=output
    )
    for coordination in ("text", "none")
    for output in ("sentences", "claims")
}

node_id = st.one_of(
    st.sampled_from(("n0", "n1", "n1", "", " ", "doc#claim-0")), st.text(max_size=6)
)
metadata = st.fixed_dictionaries(
    {},
    optional={
        "url": st.one_of(st.none(), source, st.integers()),
        "source": st.one_of(st.none(), source),
        "file_name": st.one_of(st.none(), source),
        "domain": st.one_of(st.none(), source, st.just("a.example")),
        "tags": st.lists(st.sampled_from(("encyclopedia", "news", "\u200b")), max_size=3),
        MIRAGE_KEY: st.just("the caller's own key"),
    },
)


@st.composite
def node(draw: st.DrawFn) -> NodeWithScore:
    kind = draw(st.sampled_from(("text",) * 8 + ("image", "sourced")))
    fields = dict(text=draw(hostile_text()), metadata=draw(metadata), id_=draw(node_id))
    if kind == "image":  # passed over: never verified, never returned
        inner = ImageNode(image_url="https://img.example/a.png", **fields)
    else:
        start = draw(st.one_of(st.none(), st.integers(0, 10**6)))
        inner = TextNode(start_char_idx=start, **fields)
        if kind == "sourced":
            inner.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=draw(node_id))
    # NodeWithScore itself refuses a score no float can hold
    value = draw(score.filter(lambda v: not isinstance(v, int) or abs(v) < 2**1023))
    return NodeWithScore(node=inner, score=value)


nodes = st.lists(node(), max_size=30)


def _picture(ns: list[NodeWithScore]) -> str:
    return snapshot([n.model_dump() for n in ns])


def _without_mirage(metadata: dict) -> str:
    return snapshot({k: v for k, v in metadata.items() if k != MIRAGE_KEY})


@FUZZ
@given(key=st.sampled_from(sorted(POSTPROCESSORS)), query=query_text, ns=nodes)
def test_postprocess_nodes(key, query, ns) -> None:
    postprocessor = POSTPROCESSORS[key]
    output = key[1]
    pictures, identities = _picture(ns), [id(n) for n in ns]
    postprocessor.mirage.verdicts.clear()

    out = postprocessor.postprocess_nodes(ns, query_str=query)  # 1. no crash

    (verdict,) = postprocessor.mirage.verdicts
    note_route(verdict, len(ns))
    check_no_nan(verdict)  # 2.
    check_verified_text(verdict)
    # 3. only verified claim text is delivered, marked with the verdict's decision
    if not verdict.passed:
        assert out == []  # the documented blocked route: no node at all
    else:
        selected = set(verdict.selected)
        delivered: set[int] = set()
        texts = [n for n in ns if not isinstance(n.node, ImageNode) and n.node.text.strip()]
        for item in out:
            info = item.node.metadata[MIRAGE_KEY]
            assert info["decision"] == "verified"
            indices = info["claim_indices"]
            assert indices and set(indices) <= selected
            assert item.node.get_content(metadata_mode=MetadataMode.NONE) == claim_texts(
                verdict, indices
            )
            assert MIRAGE_KEY in item.node.excluded_llm_metadata_keys
            assert MIRAGE_KEY in item.node.excluded_embed_metadata_keys
            origin = texts[verdict.claims[indices[0]].passage_index]
            assert snapshot(item.score) == snapshot(origin.score)
            assert _without_mirage(item.node.metadata) == _without_mirage(origin.node.metadata)
            if output == "sentences":
                assert item.node.node_id == origin.node.node_id
            delivered |= set(indices)
        assert delivered == selected
    # 5. the caller's nodes are unchanged, also after the returned ones are edited
    for item in out:
        item.node.metadata.get("tags", []).append("edited")
        item.node.excluded_llm_metadata_keys.append("edited")
    assert _picture(ns) == pictures
    assert [id(n) for n in ns] == identities
