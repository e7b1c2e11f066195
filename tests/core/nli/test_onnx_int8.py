"""OnnxNLI(quantize="static-int8") on the tiny test model: calibrated with
scripts/calibrate_int8.py, built on first use into $MIRAGE_CACHE, scores independent of batch
mates. Offline (the tiny model is exported here; the packaged model's test is marked ``model``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from mirage_core.errors import ModelNotFoundError
from mirage_core.nli import OnnxNLI
from mirage_core.nli import int8 as int8_module
from mirage_core.nli.int8 import RANGES_FILE
from tests.conftest import load_script
from tests.core.nli.pairs import EMPTY, HYPOTHESES, PREMISES

# The pairs without the empty premise: calibration and int8 scoring read real text.
PREMISES = [p for i, p in enumerate(PREMISES) if i != EMPTY]
HYPOTHESES = [h for i, h in enumerate(HYPOTHESES) if i != EMPTY]


@pytest.fixture(scope="module")
def int8_dir(tiny_nli_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model, exported and calibrated on pairs that are not the ones scored below."""
    target = tmp_path_factory.mktemp("tiny-int8") / "model"
    shutil.copytree(tiny_nli_dir, target)
    load_script("export_onnx").export_nli(target)
    calibration = [(p, h) for p in PREMISES[::-1] for h in HYPOTHESES[::2]]
    ranges = load_script("calibrate_int8").calibrate(target, calibration, batch_size=4)
    int8_module.write_ranges(target, ranges, "test pairs")
    return target


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("MIRAGE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_scores_do_not_depend_on_batch_mates(int8_dir: Path, cache: Path) -> None:
    nli = OnnxNLI(int8_dir, quantize="static-int8", cache_size=0, batch_size=4)
    together = nli.predict(PREMISES, HYPOTHESES)  # batches of 4 padded to the longest pair
    alone = np.concatenate([nli.predict([p], [h]) for p, h in zip(PREMISES, HYPOTHESES)])
    np.testing.assert_allclose(together, alone, atol=1e-6)
    reordered = nli.predict(PREMISES[::-1], HYPOTHESES[::-1])
    np.testing.assert_allclose(reordered[::-1], together, atol=1e-6)
    # near the fp32 scores: the same model, rounded
    fp32 = OnnxNLI(int8_dir, cache_size=0).predict(PREMISES, HYPOTHESES)
    assert np.abs(together - fp32).max() < 0.05
    assert "quantize='static-int8'" in repr(nli)


def test_graph_is_int8_and_built_once(
    int8_dir: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnx

    path = int8_module.static_int8_graph(int8_dir)
    assert path.is_relative_to(cache) and path.is_file()
    graph = onnx.load(str(path)).graph
    ops = {n.op_type for n in graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops
    int8_weights = [i for i in graph.initializer if i.data_type == onnx.TensorProto.INT8]
    assert len(int8_weights) >= 4  # q, k, v, dense, FFN of each layer (per-channel int8)
    assert not list(path.parent.glob(".build-*"))  # the build folder is gone

    def no_rebuild(*args, **kwargs):
        raise AssertionError("rebuilt although the graph is cached")

    monkeypatch.setattr(int8_module, "quantize", no_rebuild)
    assert int8_module.static_int8_graph(int8_dir) == path
    OnnxNLI(int8_dir, quantize="static-int8").predict(PREMISES[:2], HYPOTHESES[:2])


def test_ranges_must_fit_the_graph(int8_dir: Path, cache: Path, tmp_path: Path) -> None:
    stale = tmp_path / "stale"
    shutil.copytree(int8_dir, stale)
    data = json.loads((stale / RANGES_FILE).read_text(encoding="utf-8"))
    data["graph_sha256"] = "0" * 64
    (stale / RANGES_FILE).write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelNotFoundError, match="calibrate_int8"):
        OnnxNLI(stale, quantize="static-int8")
    (stale / RANGES_FILE).unlink()
    with pytest.raises(ModelNotFoundError, match="calibrate_int8"):
        OnnxNLI(stale, quantize="static-int8")
    OnnxNLI(stale).predict(PREMISES[:1], HYPOTHESES[:1])  # fp32 needs no ranges


def test_every_calibration_method_reads_batches_of_different_lengths(int8_dir: Path) -> None:
    """The histogram calibrators stack a tensor's batches, which differ in length here (pairs
    are padded to their batch's longest); every method gives each tensor a range, and the
    methods that clip the tails stay inside the min / max."""
    script = load_script("calibrate_int8")
    calibration = [(p, h) for p in PREMISES[::-1] for h in HYPOTHESES[::2]]
    lengths = {len(p) + len(h) for p, h in calibration}
    assert len(lengths) > 1
    by_method = {
        m: script.calibrate(int8_dir, calibration, batch_size=3, method=m) for m in script.METHODS
    }
    minmax = by_method["minmax"]
    for method, ranges in by_method.items():
        assert ranges.keys() == minmax.keys(), method
        for name, (lo, hi) in ranges.items():
            assert np.isfinite([lo, hi]).all() and lo < hi, (method, name)
            if method.startswith(("percentile", "minmax-moving")):
                assert minmax[name][0] - 1e-6 <= lo and hi <= minmax[name][1] + 1e-6, (method, name)
    # clipping a tail narrows some range
    assert any(by_method["percentile-99.99"][k] != minmax[k] for k in minmax)


def test_bad_quantize_value(int8_dir: Path) -> None:
    for bad in ("int8", True, "dynamic-int8"):
        with pytest.raises(ValueError, match="quantize"):
            OnnxNLI(int8_dir, quantize=bad)


@pytest.mark.model
def test_packaged_model_static_int8(cache: Path) -> None:
    fp32 = OnnxNLI(cache_size=0)
    nli = OnnxNLI(cache_size=0, quantize="static-int8")
    premises = [*PREMISES, "The Eiffel Tower was completed in 1889."]
    hypotheses = [*HYPOTHESES, "The Eiffel Tower was completed in 1925."]
    together = nli.predict(premises, hypotheses)
    alone = np.concatenate([nli.predict([p], [h]) for p, h in zip(premises, hypotheses)])
    np.testing.assert_allclose(together, alone, atol=1e-6)
    assert together[-1].argmax() == 2  # 1889 vs 1925: a contradiction, as fp32 says
    assert fp32.predict(premises[-1:], hypotheses[-1:])[0].argmax() == 2


def test_load_backend_builds_static_int8_on_either_runtime(
    int8_dir: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mirage_core.nli.loading import load_backend

    for runtime in ("torch", "onnx"):
        monkeypatch.setenv("MIRAGE_RUNTIME", runtime)
        nli = load_backend(str(int8_dir), quantize="static-int8", torch_threads=1)
        assert isinstance(nli, OnnxNLI) and nli.quantize == "static-int8"
    monkeypatch.setenv("MIRAGE_RUNTIME", "onnx")
    assert load_backend(str(int8_dir)).quantize is None
    with pytest.raises(ValueError, match="dynamic int8 need torch"):
        load_backend(str(int8_dir), quantize=True)


def test_a_serve_replica_loads_static_int8(int8_dir: Path, cache: Path) -> None:
    """``mirage serve --static-int8``: each replica's backend is the static int8 graph."""
    from mirage_core.nli.loading import load_backend
    from mirage_core.serve.config import ServeConfig

    cfg = ServeConfig(model=str(int8_dir), quantize="static-int8", torch_threads=1)
    nli = load_backend(cfg.model, **cfg.backend_kwargs())
    assert isinstance(nli, OnnxNLI) and nli.quantize == "static-int8"
