"""OnnxNLI (the torch-free runtime) against TransformersNLI on the tiny test model, exported here
with scripts/export_onnx.py; the factory's choice of runtime. Offline.

The export needs torch, transformers and onnx; the runtime needs onnxruntime and tokenizers only
(a subprocess with torch made unimportable checks that).
"""

from __future__ import annotations

import json
import os
import shutil
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

from mirage_core import onnx_models
from mirage_core.errors import ModelNotFoundError
from mirage_core.nli import NLIBackend, OnnxNLI, TransformersNLI, default_nli
from mirage_core.nli.loading import load_backend
from mirage_core.onnx_models import FUSED_GRAPH, open_session
from tests.conftest import load_script
from tests.core.nli.pairs import HYPOTHESES, PREMISES

ROOT = Path(__file__).resolve().parents[3]
EXPECTED_COLUMNS = (1, 2, 0)  # mirrors tests/core/conftest.py: [entail, neutral, contra] columns
BLOCK_TORCH = "import sys; sys.modules['torch'] = None; sys.modules['transformers'] = None; "


def exported_copy(src: Path, target: Path) -> Path:
    """A copy of the saved model ``src`` with its ONNX graph."""
    shutil.copytree(src, target)
    load_script("export_onnx").export_nli(target)
    return target


@pytest.fixture(scope="module")
def onnx_dir(tiny_nli_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return exported_copy(tiny_nli_dir, tmp_path_factory.mktemp("tiny-onnx") / "model")


@pytest.fixture(scope="module")
def onnx_nli(onnx_dir: Path) -> OnnxNLI:
    return OnnxNLI(onnx_dir, cache_size=0, batch_size=3)


def test_matches_torch_fp32(onnx_nli: OnnxNLI, tiny_nli: TransformersNLI) -> None:
    got = onnx_nli.predict(PREMISES, HYPOTHESES)
    assert isinstance(onnx_nli, NLIBackend) and got.shape == (len(PREMISES), 3)
    np.testing.assert_allclose(got.sum(1), 1.0, atol=1e-6)
    np.testing.assert_allclose(got, tiny_nli.predict(PREMISES, HYPOTHESES), atol=1e-4)
    # batches of 3, pairs sorted by length: any order of the input gives the same rows
    perm = [5, 2, 7, 0, 3, 6, 1, 4]
    again = onnx_nli.predict([PREMISES[i] for i in perm], [HYPOTHESES[i] for i in perm])
    np.testing.assert_allclose(again, got[perm], atol=1e-6)
    assert onnx_nli.predict([], []).shape == (0, 3)


def test_tokenization_equals_transformers(onnx_nli: OnnxNLI, tiny_nli: TransformersNLI) -> None:
    want = tiny_nli.tokenizer(
        PREMISES,
        HYPOTHESES,
        padding=True,
        truncation="longest_first",
        max_length=tiny_nli.max_length,
        return_tensors="np",
    )
    got = onnx_nli.tokenizer(PREMISES, HYPOTHESES)
    assert onnx_nli.max_length == tiny_nli.max_length
    for key in ("input_ids", "attention_mask", "token_type_ids"):
        np.testing.assert_array_equal(got[key], want[key])


def test_graph_holds_no_weights(onnx_dir: Path) -> None:
    """Every weight is read from model.safetensors: shipped once, whichever runtime reads it."""
    weights = (onnx_dir / "model.safetensors").stat().st_size
    for graph in ("model.onnx", "model.fused.onnx"):
        assert (onnx_dir / graph).stat().st_size < weights, graph


def test_fused_graph_runs_and_matches_the_plain_graph(onnx_dir: Path, onnx_nli: OnnxNLI) -> None:
    """The fp32 session runs the fused graph (its packed attention weights are built from the
    safetensors when the session opens); it computes what the plain graph computes."""
    import onnx

    fused = onnx.load(str(onnx_dir / "model.fused.onnx"), load_external_data=False)
    ops = {n.op_type for n in fused.graph.node}
    assert {"Attention", "SkipLayerNormalization", "EmbedLayerNormalization"} <= ops
    assert "Softmax" not in ops  # no attention left unfused
    assert onnx_nli.graph.name == FUSED_GRAPH
    plain = OnnxNLI(onnx_dir, cache_size=0, batch_size=3)
    plain.session = open_session(onnx_dir, graph=onnx_dir / "model.onnx")
    np.testing.assert_allclose(
        onnx_nli.predict(PREMISES, HYPOTHESES), plain.predict(PREMISES, HYPOTHESES), atol=1e-5
    )


def test_label_order_comes_from_id2label(onnx_dir: Path, onnx_nli: OnnxNLI, tmp_path: Path) -> None:
    assert onnx_nli.label_columns == EXPECTED_COLUMNS
    assert onnx_nli.id2label == {0: "CONTRADICTION", 1: "Entailment", 2: "neutral"}
    # Same weights, labels renamed: column 0 is now "entailment", 1 "neutral", 2 "contradiction".
    renamed = tmp_path / "renamed"
    shutil.copytree(onnx_dir, renamed)
    config = json.loads((renamed / "config.json").read_text(encoding="utf-8"))
    config["id2label"] = {"0": "entailment", "1": "neutral", "2": "contradiction"}
    config["label2id"] = {"entailment": 0, "neutral": 1, "contradiction": 2}
    (renamed / "config.json").write_text(json.dumps(config), encoding="utf-8")
    other = OnnxNLI(renamed, cache_size=0)
    assert other.label_columns == (0, 1, 2)
    a = onnx_nli.predict(PREMISES, HYPOTHESES)  # [p(col 1), p(col 2), p(col 0)]
    b = other.predict(PREMISES, HYPOTHESES)  # [p(col 0), p(col 1), p(col 2)]
    np.testing.assert_allclose(a, b[:, [1, 2, 0]], atol=1e-6)
    mapped = OnnxNLI(
        renamed, cache_size=0, label_map={"entailment": 1, "neutral": 2, "contradiction": 0}
    )
    np.testing.assert_allclose(mapped.predict(PREMISES, HYPOTHESES), a, atol=1e-6)


def test_fp16_weights_are_cast_to_fp32(build_tiny_model, tmp_path: Path) -> None:
    """fp16 weights (as the packaged model stores them) are read as fp16 and cast in the graph:
    the same fp32 values torch computes with."""
    half = build_tiny_model(tmp_path / "half", fp16=True)
    exported = exported_copy(half, tmp_path / "half-onnx")
    want = TransformersNLI(half, device="cpu", cache_size=0).predict(PREMISES, HYPOTHESES)
    got = OnnxNLI(exported, cache_size=0).predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_cache_hits_skip_the_session(onnx_dir: Path) -> None:
    nli = OnnxNLI(onnx_dir)
    calls = []
    run = nli.session.run
    nli.session = type("Spy", (), {"run": lambda self, *a: calls.append(1) or run(*a)})()
    first = nli.predict(PREMISES[:3], HYPOTHESES[:3])
    n = len(calls)
    np.testing.assert_array_equal(nli.predict(PREMISES[:3], HYPOTHESES[:3]), first)
    assert len(calls) == n and nli.cache.hits == 3


def test_stale_export_is_refused(onnx_dir: Path, tmp_path: Path) -> None:
    """A weights file re-saved with another layout must not be read at the old offsets."""
    from safetensors.numpy import load_file, save_file

    stale = tmp_path / "stale"
    shutil.copytree(onnx_dir, stale)
    tensors = load_file(str(stale / "model.safetensors"))
    tensors["extra.weight"] = np.zeros(3, dtype=np.float32)
    save_file(tensors, str(stale / "model.safetensors"))
    with pytest.raises(ModelNotFoundError, match="export_onnx"):
        OnnxNLI(stale)


def test_bad_models(tiny_nli_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"model\.onnx"):
        OnnxNLI(tiny_nli_dir)  # saved by transformers, never exported
    with pytest.raises(ModelNotFoundError, match="hub id"):
        OnnxNLI("fast")
    with pytest.raises(ModelNotFoundError, match="local model directory"):
        OnnxNLI(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="batch_size"):
        OnnxNLI(tmp_path, batch_size=0)


def test_factory_follows_the_runtime_setting(onnx_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("MIRAGE_RUNTIME", "onnx")
    assert isinstance(default_nli(onnx_dir, batch_size=7), OnnxNLI)
    backend = load_backend(str(onnx_dir), batch_size=5, torch_threads=1, cache_size=0)
    assert isinstance(backend, OnnxNLI) and backend.batch_size == 5
    with pytest.raises(ValueError, match="CPU"):
        load_backend(str(onnx_dir), device="cuda")
    monkeypatch.setenv("MIRAGE_RUNTIME", "torch")
    nli = default_nli(onnx_dir, batch_size=7, cache_size=0)
    assert isinstance(nli, TransformersNLI) and nli.batch_size == 7
    monkeypatch.delenv("MIRAGE_RUNTIME")
    monkeypatch.setattr(onnx_models, "torch_build_accelerated", lambda: False)
    assert isinstance(default_nli(onnx_dir), OnnxNLI)  # a CPU-only torch: ONNX Runtime
    assert isinstance(load_backend(str(onnx_dir)), OnnxNLI)
    assert isinstance(load_backend(str(onnx_dir), quantize=True), TransformersNLI)  # torch int8
    monkeypatch.setattr(onnx_models, "torch_build_accelerated", lambda: True)
    assert isinstance(default_nli(onnx_dir), TransformersNLI)  # a GPU build keeps torch
    assert isinstance(load_backend(str(onnx_dir)), TransformersNLI)
    monkeypatch.setenv("MIRAGE_RUNTIME", "tensorrt")
    with pytest.raises(ValueError, match="MIRAGE_RUNTIME"):
        default_nli(onnx_dir)


def test_factory_runs_a_model_with_no_graph_on_torch(tiny_nli_dir: Path, monkeypatch) -> None:
    monkeypatch.delenv("MIRAGE_RUNTIME", raising=False)
    monkeypatch.setattr(onnx_models, "torch_build_accelerated", lambda: False)
    assert isinstance(default_nli(tiny_nli_dir, cache_size=0), TransformersNLI)
    assert isinstance(load_backend(str(tiny_nli_dir), cache_size=0), TransformersNLI)


def test_factory_picks_onnx_when_torch_is_absent(onnx_dir: Path, tiny_nli: TransformersNLI) -> None:
    code = BLOCK_TORCH + (
        "import json; from mirage_core.nli import default_nli; from mirage_core.nli.loading "
        f"import load_backend; nli = default_nli({str(onnx_dir)!r}); "
        f"other = load_backend({str(onnx_dir)!r}); "
        f"p = nli.predict({PREMISES!r}, {HYPOTHESES!r}); "
        "print(json.dumps([type(nli).__name__, type(other).__name__, p.tolist()]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "MIRAGE_RUNTIME"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    name, other, probs = json.loads(done.stdout.strip().splitlines()[-1])
    assert name == other == "OnnxNLI"
    np.testing.assert_allclose(probs, tiny_nli.predict(PREMISES, HYPOTHESES), atol=1e-4)


# -- the packaged model -----------------------------------------------------------------------


@pytest.mark.model
def test_packaged_model_matches_torch() -> None:
    torch_nli = TransformersNLI(cache_size=0, quantize=False)
    onnx_nli = OnnxNLI(cache_size=0)
    assert onnx_nli.label_columns == torch_nli.label_columns
    premises = [*PREMISES, "The Eiffel Tower was completed in 1889."]
    hypotheses = [*HYPOTHESES, "The Eiffel Tower was completed in 1925."]
    got = onnx_nli.predict(premises, hypotheses)
    want = torch_nli.predict(premises, hypotheses)
    np.testing.assert_allclose(got, want, atol=1e-4)
    np.testing.assert_array_equal(got.argmax(1), want.argmax(1))
    assert got[-1].argmax() == 2  # 1889 vs 1925: a contradiction
