"""MiragePostprocessor: nodes in, verified NEW nodes out; the caller's nodes untouched."""

from __future__ import annotations

import copy
import inspect
import pickle
import threading

import pytest
from llama_index.core import Settings, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.schema import (
    Document,
    ImageNode,
    IndexNode,
    MediaResource,
    MetadataMode,
    Node,
    NodeRelationship,
    NodeWithScore,
    RelatedNodeInfo,
    TextNode,
)

from mirage_core import Mirage, MirageConfig
from mirage_llamaindex import MIRAGE_KEY, MiragePostprocessor
from mirage_llamaindex._convert import to_passages
from tests.conftest import CLEAN_YEAR, NO_SIGNALS


@pytest.fixture
def pp(mirage: Mirage) -> MiragePostprocessor:
    return MiragePostprocessor(mirage=mirage)


def snapshot(nodes: list[NodeWithScore]) -> list[dict]:
    return [copy.deepcopy(n.model_dump()) for n in nodes]


@pytest.mark.model
def test_verified_sentences_are_new_nodes_with_scores(
    every_pair_mirage, mixed_nodes, polluted_sentence
):
    pp = MiragePostprocessor(mirage=every_pair_mirage)
    out = pp.postprocess_nodes(mixed_nodes, query_str="When was the Eiffel Tower completed?")
    assert out, "the mixed set passes the gate"
    texts = [n.node.get_content() for n in out]
    assert all(polluted_sentence not in t for t in texts)
    assert CLEAN_YEAR in " ".join(texts)
    by_id = {n.node.node_id: n for n in mixed_nodes}
    for n in out:
        original = by_id[n.node.node_id]  # sentences mode keeps the node id
        assert n is not original and n.node is not original.node
        assert n.score == original.score
        spans = n.node.metadata[MIRAGE_KEY]["spans"]
        assert n.node.get_content() == " ".join(original.node.get_content()[s:e] for s, e in spans)
    # the polluted source keeps only its corroborated sentence
    evil = [n for n in out if n.node.metadata["url"] == "https://evil.example/x"]
    assert [n.node.get_content() for n in evil] == [
        "Until the Chrysler Building rose in New York, it was the tallest structure in the world."
    ]


@pytest.mark.model
@pytest.mark.parametrize("output", ["sentences", "claims"])
def test_metadata_says_which_claims_an_independent_source_corroborates(mirage, mixed_nodes, output):
    result = MiragePostprocessor(mirage=mirage, output=output).verify(
        mixed_nodes, "When was the Eiffel Tower completed?"
    )
    assert result.nodes and result.verdict.corroborated is not None
    for n in result.nodes:
        info = n.node.metadata[MIRAGE_KEY]
        expected = [i for i in info["claim_indices"] if result.verdict.corroborated[i]]
        assert info["corroborated_claims"] == expected
    # what passes here is what a second source states
    assert all(n.node.metadata[MIRAGE_KEY]["corroborated_claims"] for n in result.nodes)


@pytest.mark.model
def test_mirage_metadata_stays_out_of_llm_and_embed_text(pp, mixed_nodes):
    out = pp.postprocess_nodes(mixed_nodes, query_str="q")
    for n in out:
        info = n.node.metadata[MIRAGE_KEY]
        assert info["decision"] == "verified" and info["claim_indices"] and info["spans"]
        assert MIRAGE_KEY in n.node.excluded_llm_metadata_keys
        assert MIRAGE_KEY in n.node.excluded_embed_metadata_keys
        for mode in (MetadataMode.LLM, MetadataMode.EMBED):
            text = n.node.get_content(metadata_mode=mode)
            assert "claim_indices" not in text and "agreeing_sources" not in text
            assert n.node.metadata["url"] in text  # the caller's metadata still shows


@pytest.mark.model
def test_blocked_gate_returns_no_nodes(pp, polluted_nodes):
    assert pp.postprocess_nodes(polluted_nodes, query_str="Where is the Eiffel Tower?") == []
    result = pp.verify(polluted_nodes, "Where is the Eiffel Tower?")
    assert result.route == "fallback" and result.verdict.reason.startswith("blocked")


@pytest.mark.model
def test_output_nodes_returns_contributing_nodes_whole(mirage, mixed_nodes):
    out = MiragePostprocessor(mirage=mirage, output="nodes").postprocess_nodes(
        mixed_nodes, query_str="q"
    )
    originals = {n.node.node_id: n.node.get_content() for n in mixed_nodes}
    assert out and all(n.node.get_content() == originals[n.node.node_id] for n in out)


@pytest.mark.model
def test_output_claims_one_node_per_claim_with_offsets(mirage, clean_passages, polluted_sentence):
    doc_offset = 100
    nodes = [
        NodeWithScore(
            node=TextNode(
                text=p.text,
                metadata={"url": p.source},
                start_char_idx=doc_offset,
                end_char_idx=doc_offset + len(p.text),
            ),
            score=p.score,
        )
        for p in clean_passages
    ]
    result = MiragePostprocessor(mirage=mirage, output="claims").verify(nodes, "q")
    assert len(result.nodes) == len(result.verdict.verified_claims)
    assert len({n.node.node_id for n in result.nodes}) == len(result.nodes)
    by_id = {n.node.node_id: n for n in nodes}
    for n in result.nodes:
        parent_id, _, claim = n.node.node_id.partition("#claim-")
        parent = by_id[parent_id].node
        ((start, end),) = n.node.metadata[MIRAGE_KEY]["spans"]
        assert parent.text[start:end] == n.node.text
        assert (n.node.start_char_idx, n.node.end_char_idx) == (
            doc_offset + start,
            doc_offset + end,
        )
        assert n.node.metadata[MIRAGE_KEY]["claim_indices"] == [int(claim)]
        assert n.score == by_id[parent_id].score


def test_bad_output_option_is_refused(mirage):
    with pytest.raises(ValueError):
        MiragePostprocessor(mirage=mirage, output="paragraphs")
    with pytest.raises(ValueError, match="source_keys"):  # one key is still a sequence of keys
        MiragePostprocessor(mirage=mirage, source_keys="url")


def test_options_are_keyword_arguments(mirage):
    pp = MiragePostprocessor(mirage=mirage, output="claims", source_keys=["url", "id"])
    assert (pp.output, pp.source_keys) == ("claims", ("url", "id"))
    params = inspect.signature(MiragePostprocessor.__init__).parameters
    assert params["output"].kind is params["source_keys"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.model
@pytest.mark.parametrize("output", ["sentences", "nodes", "claims"])
async def test_caller_nodes_untouched_sync_and_async(mirage, mixed_nodes, polluted_nodes, output):
    pp = MiragePostprocessor(mirage=mirage, output=output)
    for nodes in (mixed_nodes, polluted_nodes):
        nodes[0].node.excluded_llm_metadata_keys = ["internal"]  # a caller's own list, shared below
        before = snapshot(nodes)
        ids = [id(n.node) for n in nodes]
        out = pp.postprocess_nodes(nodes, query_str="q")
        aout = await pp.apostprocess_nodes(nodes, query_str="q")
        assert snapshot(nodes) == before
        assert [id(n.node) for n in nodes] == ids
        assert not {id(n.node) for n in out + aout} & set(ids)
        assert nodes[0].node.excluded_llm_metadata_keys == ["internal"]


@pytest.mark.model
async def test_async_matches_sync(pp, mixed_nodes, clean_nodes, polluted_nodes):
    for nodes in (mixed_nodes, clean_nodes, polluted_nodes, []):
        sync = pp.postprocess_nodes(nodes, query_str="q")
        asyn = await pp.apostprocess_nodes(nodes, query_str="q")
        assert [(n.node.node_id, n.node.get_content(), n.score, n.node.metadata) for n in sync] == [
            (n.node.node_id, n.node.get_content(), n.score, n.node.metadata) for n in asyn
        ]


@pytest.mark.model
def test_image_and_empty_nodes_passed_over_with_reason(pp, clean_nodes):
    image = NodeWithScore(
        node=ImageNode(image_url="https://img.example/tower.png", text="A caption."), score=0.99
    )
    empty = NodeWithScore(node=TextNode(text="   "), score=0.5)
    media = NodeWithScore(
        node=Node(image_resource=MediaResource(url="https://img.example/a.png")), score=0.4
    )
    nodes = [image, *clean_nodes, empty, media]
    result = pp.verify(nodes, "q")
    assert result.route == "verified"
    skipped = {p.index: p for p in result.passed_over}
    assert set(skipped) == {0, len(nodes) - 2, len(nodes) - 1}
    assert skipped[0].node_id == image.node.node_id and "image node" in skipped[0].reason
    assert "no text" in skipped[len(nodes) - 2].reason
    assert "image" in skipped[len(nodes) - 1].reason
    returned = {n.node.node_id for n in result.nodes}
    assert not returned & {image.node.node_id, empty.node.node_id, media.node.node_id}
    assert result.to_metadata()["passed_over"][0]["reason"] == skipped[0].reason


@pytest.mark.parametrize("kind", ["audio", "video"])
def test_a_node_with_audio_or_video_is_passed_over_whatever_its_text(fake_nli, clean_nodes, kind):
    media = Node(
        text="The Eiffel Tower stands in Paris.",
        **{f"{kind}_resource": MediaResource(url=f"https://media.example/a.{kind}")},
    )
    nodes = [*clean_nodes, NodeWithScore(node=media, score=0.9)]
    result = MiragePostprocessor(NO_SIGNALS, fake_nli).verify(nodes, "Where is the Eiffel Tower?")
    [skipped] = result.passed_over
    assert skipped.index == len(clean_nodes) and f"carries {kind} content" in skipped.reason
    assert media.node_id not in {n.node.node_id for n in result.nodes}


async def test_nodes_retrieved_but_all_passed_over_fall_back_saying_none_held_text(pp):
    """Nothing is left to check, so the gate blocks as for an empty retrieval; the reason says
    nodes were retrieved (not that none were)."""
    image = NodeWithScore(node=ImageNode(image_url="https://img.example/a.png"), score=0.9)
    blank = NodeWithScore(node=TextNode(text=" \n\t "), score=0.8)
    for nodes, reason in (
        ([image], "no evidence: 1 retrieved node holds no text to check"),
        ([image, blank], "no evidence: 2 retrieved nodes hold no text to check"),
    ):
        for result in (pp.verify(nodes, "q"), await pp.averify(nodes, "q")):
            assert result.nodes == [] and result.route == "fallback"
            assert result.verdict.reason == reason == result.to_metadata()["reason"]
            assert result.verdict.n_passages == 0
            assert [p.index for p in result.passed_over] == list(range(len(nodes)))
    assert pp.verify([], "q").verdict.reason == "no evidence: no passages were retrieved"


def test_sources_and_domains_from_node_metadata():
    doc = RelatedNodeInfo(node_id="doc-7")
    nodes = [
        NodeWithScore(
            node=TextNode(
                text="a b c.", metadata={"url": "https://www.bbc.co.uk/x", "file_name": "f.txt"}
            ),
            score=1,
        ),
        NodeWithScore(
            node=TextNode(
                text="a b c.", metadata={"file_name": "report.pdf", "domain": "acme.org"}
            ),
            score=None,
        ),
        NodeWithScore(
            node=TextNode(text="a b c.", relationships={NodeRelationship.SOURCE: doc}), score=0.5
        ),
        NodeWithScore(node=TextNode(id_="node-9", text="a b c."), score=float("nan")),
        NodeWithScore(node=Document(text="a b c.", metadata={"source": "wiki/Paris"})),
    ]
    conv = to_passages(nodes)
    assert [p.source for p in conv.passages] == [
        "https://www.bbc.co.uk/x",
        "report.pdf",
        "doc-7",
        "node-9",
        "wiki/Paris",
    ]
    assert [p.resolved_domain(i) for i, p in enumerate(conv.passages)] == [
        "bbc.co.uk",
        "acme.org",
        "doc-7",
        "node-9",
        "wiki/paris",  # domains are case-insensitive
    ]
    assert [p.score for p in conv.passages] == [1.0, None, 0.5, None, None]
    assert conv.node_indices == [0, 1, 2, 3, 4] and conv.passed_over == []


@pytest.mark.model
def test_one_engine_per_instance(fake_nli, clean_nodes):
    pp = MiragePostprocessor(MirageConfig(d_min=3), nli=fake_nli)
    engine = pp.mirage
    pp.postprocess_nodes(clean_nodes, query_str="q")
    pp.postprocess_nodes(clean_nodes, query_str="q2")
    assert pp.mirage is engine and engine.nli is fake_nli and engine.config.d_min == 3
    with pytest.raises(ValueError):
        MiragePostprocessor(MirageConfig(), mirage=engine)
    with pytest.raises(TypeError):
        MiragePostprocessor(mirage="not an engine")


@pytest.mark.model
def test_inside_vector_store_index_query_engine(pp, mixed_nodes, polluted_nodes, polluted_sentence):
    settings_before = (Settings._llm, Settings._embed_model)
    embed, llm = MockEmbedding(embed_dim=8), MockLLM()

    def engine(nodes):
        index = VectorStoreIndex([n.node for n in nodes], embed_model=embed)
        return index.as_query_engine(llm=llm, node_postprocessors=[pp], similarity_top_k=len(nodes))

    response = engine(mixed_nodes).query("When was the Eiffel Tower completed?")
    echoed = str(response)  # MockLLM echoes the prompt it got
    assert CLEAN_YEAR in echoed
    assert polluted_sentence not in echoed
    assert "claim_indices" not in echoed and "agreeing_sources" not in echoed
    assert response.source_nodes and all(
        MIRAGE_KEY in n.node.metadata for n in response.source_nodes
    )

    # Blocked: the postprocessor returns [], so no retrieved text reaches the model; LlamaIndex's
    # own synthesizer then says "Empty Response" (MirageQueryEngine answers from the fallback).
    blocked = engine(polluted_nodes).query("Where is the Eiffel Tower?")
    assert blocked.source_nodes == [] and "Eiffel" not in str(blocked)
    assert (Settings._llm, Settings._embed_model) == settings_before


def test_a_llamaindex_embedding_model_drives_source_independence(fake_nli, mixed_nodes):
    embed_model = MockEmbedding(embed_dim=8)
    calls = []
    batch = embed_model.get_text_embedding_batch

    class Spy:
        def get_text_embedding_batch(self, texts, **kwargs):
            calls.append(len(texts))
            return batch(texts, **kwargs)

    pp = MiragePostprocessor(MirageConfig(independence="embedding"), fake_nli, embedder=Spy())
    verdict = pp.verify(mixed_nodes, "When was the Eiffel Tower completed?").verdict
    assert calls == [len(mixed_nodes)]
    # MockEmbedding gives every text the same vector: all passages are one source.
    assert len(verdict.extras["groups"]) == 1 and "d_src=1" in verdict.reason
    with pytest.raises(ValueError, match="embedder"):
        MiragePostprocessor(mirage=pp.mirage, embedder=Spy())


def test_the_redundancy_filter_keeps_held_back_nodes_out(near_copy_engine):
    # three near-copies and two pages of their own: the copies' nodes do not come back
    from tests.conftest import NEAR_COPIES, NEAR_COPY_QUERY, OWN_PAGES

    texts = NEAR_COPIES + OWN_PAGES
    nodes = [
        NodeWithScore(
            node=TextNode(text=t, id_=f"n{i}", metadata={"url": f"https://site{i}.example/p"}),
            score=0.9,
        )
        for i, t in enumerate(texts)
    ]
    out = MiragePostprocessor(mirage=near_copy_engine).postprocess_nodes(
        nodes, query_str=NEAR_COPY_QUERY
    )
    assert out and {n.node.node_id for n in out} <= {"n3", "n4"}


@pytest.mark.parametrize("output", ["sentences", "claims"])
def test_provenance_metadata_matches_the_verdict(fake_nli, clean_nodes, output):
    result = MiragePostprocessor(NO_SIGNALS, fake_nli, output=output).verify(
        clean_nodes, "Where is the Eiffel Tower?"
    )
    verdict = result.verdict
    by_passage = {vp.passage_index: vp for vp in verdict.verified_passages()}
    assert result.nodes
    for n in result.nodes:
        info = n.node.metadata[MIRAGE_KEY]
        first = verdict.claims[info["claim_indices"][0]]
        vp = by_passage[first.passage_index]
        assert (info["source"], info["domain"]) == (first.source, first.domain)
        assert info["source"] == n.node.metadata["url"]
        assert info["agreeing_sources"] == list(vp.agreeing_sources)
        if output == "claims":
            assert info["support"] == int(verdict.support[first.index])
        else:
            assert info["support"] == vp.support


def test_source_keys_choose_the_metadata_that_names_a_source():
    node = TextNode(text="a b c.", metadata={"url": "https://a.example/x", "outlet": "Reuters"})
    nodes = [NodeWithScore(node=node, score=1.0)]
    assert [p.source for p in to_passages(nodes).passages] == ["https://a.example/x"]
    assert [p.source for p in to_passages(nodes, ("outlet", "url")).passages] == ["Reuters"]


async def test_returned_nodes_share_no_metadata_with_the_caller_s(fake_nli, clean_nodes):
    for n in clean_nodes:
        n.node.metadata["tags"] = ["encyclopedia"]
    pp = MiragePostprocessor(NO_SIGNALS, fake_nli, output="nodes")
    out = pp.postprocess_nodes(clean_nodes, query_str="Where is the Eiffel Tower?")
    out += await pp.apostprocess_nodes(clean_nodes, query_str="Where is the Eiffel Tower?")
    assert out
    for n in out:
        n.node.metadata["tags"].append("edited downstream")
    assert all(n.node.metadata["tags"] == ["encyclopedia"] for n in clean_nodes)


def test_two_files_of_one_name_in_two_folders_are_two_sources():
    nodes = [
        NodeWithScore(
            node=TextNode(
                text="a b c.", metadata={"file_name": "README.md", "file_path": f"/{p}/README.md"}
            )
        )
        for p in ("repo-a", "repo-b")
    ]
    assert [p.source for p in to_passages(nodes).passages] == [
        "/repo-a/README.md",
        "/repo-b/README.md",
    ]


@pytest.mark.model
def test_an_index_node_s_object_is_shared_not_copied(fake_nli, clean_nodes):
    class Client:  # an object that cannot be deep-copied, as a retriever holding a lock
        def __init__(self) -> None:
            self.lock = threading.Lock()

    client = Client()
    first = clean_nodes[0].node
    nodes = [
        NodeWithScore(
            node=IndexNode(
                text=first.text, metadata=dict(first.metadata), index_id="x", obj=client
            ),
            score=clean_nodes[0].score,
        ),
        *clean_nodes[1:],
    ]
    out = MiragePostprocessor(NO_SIGNALS, fake_nli, output="nodes").postprocess_nodes(
        nodes, query_str="Where is the Eiffel Tower?"
    )
    [index_node] = [n.node for n in out if isinstance(n.node, IndexNode)]
    assert index_node.obj is client and index_node is not nodes[0].node
    assert MIRAGE_KEY not in nodes[0].node.metadata


@pytest.mark.model
def test_a_pickled_postprocessor_defends_with_its_own_engine(fake_nli, clean_nodes):
    pp = MiragePostprocessor(
        mirage=Mirage(NO_SIGNALS.replace(r_max=0.05, nli_error_policy="raise"), nli=fake_nli),
        output="claims",
    )
    for copy_of in (pickle.loads(pickle.dumps(pp)), copy.deepcopy(pp)):
        assert copy_of.output == "claims" and copy_of.mirage.config == pp.mirage.config
        assert copy_of.mirage.nli.predict is not None
        got = copy_of.verify(clean_nodes, "Where is the Eiffel Tower?").verdict
        want = pp.verify(clean_nodes, "Where is the Eiffel Tower?").verdict
        assert (got.decision, got.selected) == (want.decision, want.selected)


def test_an_option_set_later_is_checked(fake_nli):
    pp = MiragePostprocessor(nli=fake_nli)
    pp.output = "claims"
    with pytest.raises(ValueError, match="output"):
        pp.output = "paragraphs"
    assert pp.output == "claims"


def test_a_postprocessor_whose_engine_cannot_be_pickled_says_so():
    class Session:  # a model session that cannot be pickled
        def __init__(self) -> None:
            self.lock = threading.Lock()

        def predict(self, premises, hypotheses):
            raise AssertionError("not called")

    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(MiragePostprocessor(nli=Session()))
