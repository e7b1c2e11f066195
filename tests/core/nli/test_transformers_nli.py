"""TransformersNLI on a tiny model the tests build themselves (see tests/core/conftest.py). Offline."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from mirage_core.errors import ModelNotFoundError, NLIError  # noqa: E402
from mirage_core.nli import PRESETS, NLIBackend, TransformersNLI  # noqa: E402
from mirage_core.nli import transformers_nli as tn  # noqa: E402
from tests.core.nli.pairs import HYPOTHESES, PREMISES, TRUNCATED  # noqa: E402

# Mirrors tests/core/conftest.py (no package __init__ here, so conftest is not importable by name).
ID2LABEL = {0: "CONTRADICTION", 1: "Entailment", 2: "neutral"}
EXPECTED_COLUMNS = (1, 2, 0)  # where [entail, neutral, contra] sit in the tiny model's output
MAX_POSITIONS = 128

# The pairs without the one past the tiny model's positions.
PREMISES, HYPOTHESES = PREMISES[:TRUNCATED], HYPOTHESES[:TRUNCATED]


def manual_probs(model_dir: Path, premises, hypotheses, columns) -> np.ndarray:
    """One pair at a time (no padding), plain transformers: the reference for predict()."""
    tok = transformers.AutoTokenizer.from_pretrained(str(model_dir))
    model = transformers.AutoModelForSequenceClassification.from_pretrained(str(model_dir))
    model = model.float().eval()
    rows = []
    with torch.no_grad():
        for p, h in zip(premises, hypotheses, strict=True):
            enc = tok(p, h, return_tensors="pt", truncation=True, max_length=MAX_POSITIONS)
            logits = model(**enc).logits[0]
            rows.append(torch.softmax(logits, dim=-1)[list(columns)].numpy())
    return np.asarray(rows, dtype=np.float64)


def count_forwards(nli: TransformersNLI) -> list[int]:
    calls = [0]

    def hook(module, args, kwargs):
        calls[0] += 1

    nli.model.register_forward_pre_hook(hook, with_kwargs=True)
    return calls


def assert_probs(arr: np.ndarray, n: int) -> None:
    assert arr.shape == (n, 3)
    assert arr.dtype == np.float64
    assert np.all(np.isfinite(arr))
    assert np.all((arr >= 0) & (arr <= 1))
    np.testing.assert_allclose(arr.sum(axis=1), 1.0, atol=1e-6)


# -- loading -------------------------------------------------------------------------------


@pytest.mark.parametrize("as_path", [True, False])
def test_loads_by_local_path(tiny_nli_dir: Path, as_path: bool) -> None:
    nli = TransformersNLI(tiny_nli_dir if as_path else str(tiny_nli_dir), device="cpu")
    assert nli.name == str(tiny_nli_dir)
    assert nli.device == "cpu"
    assert nli.id2label == ID2LABEL
    assert nli.label_columns == EXPECTED_COLUMNS
    assert isinstance(nli, NLIBackend)
    assert next(nli.model.parameters()).dtype == torch.float32
    text = repr(nli)
    assert text.startswith("TransformersNLI(") and str(tiny_nli_dir) in text
    assert_probs(nli.predict(PREMISES[:2], HYPOTHESES[:2]), 2)


def test_id2label_is_a_copy(tiny_nli: TransformersNLI) -> None:
    tiny_nli.id2label[0] = "changed"
    assert tiny_nli.id2label == ID2LABEL


def test_fp16_weights_run_as_float32_on_cpu(tmp_path: Path, build_tiny_model) -> None:
    model_dir = build_tiny_model(tmp_path / "fp16", fp16=True)
    nli = TransformersNLI(model_dir, device="cpu")
    assert next(nli.model.parameters()).dtype == torch.float32
    assert_probs(nli.predict(PREMISES, HYPOTHESES), len(PREMISES))


def test_default_model_is_the_packaged_directory(tiny_nli_dir: Path, monkeypatch) -> None:
    monkeypatch.setattr(tn, "DEFAULT_MODEL_DIR", tiny_nli_dir)
    for model in (None, "default"):
        nli = TransformersNLI(model, device="cpu")
        assert nli.name == str(tiny_nli_dir)


def test_packaged_model_missing_says_what_to_do(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tn, "DEFAULT_MODEL_DIR", tmp_path / "not-trained-yet")
    with pytest.raises(ModelNotFoundError, match="packaged NLI model is missing") as info:
        TransformersNLI()
    assert "hub id" in str(info.value) and "path" in str(info.value)
    assert isinstance(info.value, FileNotFoundError)


@pytest.mark.parametrize("preset", ["paper", "base", "fast"])
def test_presets_resolve_to_hub_ids(preset: str, monkeypatch) -> None:
    seen = []

    def fake_load(self, transformers_mod, name):
        seen.append(name)
        raise ModelNotFoundError("stop here")

    monkeypatch.setattr(TransformersNLI, "_load", fake_load)
    with pytest.raises(ModelNotFoundError):
        TransformersNLI(preset, device="cpu")
    assert seen == [PRESETS[preset]]


def test_missing_local_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        TransformersNLI(missing)
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        TransformersNLI(str(missing))
    with pytest.raises(ModelNotFoundError, match=r"config\.json"):
        TransformersNLI(tmp_path)  # exists, but is no model directory


def test_unknown_hub_id_offline(tmp_path: Path, monkeypatch) -> None:
    import huggingface_hub.constants as hub_constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    # huggingface_hub reads the variable at import time; set the constant it consults too.
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.chdir(tmp_path)  # so the id cannot be mistaken for a relative directory
    hub_id = "mirage-tests/no-such-nli-model"
    with pytest.raises(ModelNotFoundError, match=hub_id) as info:
        TransformersNLI(hub_id, device="cpu")
    assert isinstance(info.value.__cause__, OSError)


def test_import_error_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(ImportError, match=r"pip install 'mirage-rag\[nli\]'"):
        tn._import_backend()


def test_importing_the_package_does_not_import_torch() -> None:
    """Nor the remote backends' httpx, nor ray."""
    code = (
        "import sys, mirage_core.nli as nli; nli.TransformersNLI, nli.HTTPNLI, nli.TEINLI; "
        "bad = [m for m in ('torch', 'transformers', 'httpx', 'ray') if m in sys.modules]; "
        "sys.exit(f'imported at import time: {bad}' if bad else 0)"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr + done.stdout


@pytest.mark.parametrize(
    "kwargs",
    [{"batch_size": 0}, {"max_length": 0}, {"batch_size": 2.5}, {"torch_threads": 0}],
)
def test_invalid_arguments(tiny_nli_dir: Path, kwargs) -> None:
    with pytest.raises(ValueError):
        TransformersNLI(tiny_nli_dir, **kwargs)


def test_invalid_device_and_quantize_off_cpu(tiny_nli_dir: Path) -> None:
    with pytest.raises(ValueError, match="device"):
        TransformersNLI(tiny_nli_dir, device="not-a-device")
    with pytest.raises(ValueError, match="CPU"):
        TransformersNLI(tiny_nli_dir, device="cuda", quantize=True)


# -- label order ---------------------------------------------------------------------------


def test_columns_follow_id2label(tiny_nli_dir: Path, tiny_nli: TransformersNLI) -> None:
    got = tiny_nli.predict(PREMISES, HYPOTHESES)
    want = manual_probs(tiny_nli_dir, PREMISES, HYPOTHESES, EXPECTED_COLUMNS)
    assert_probs(got, len(PREMISES))
    np.testing.assert_allclose(got, want, atol=1e-5)
    # And the mapping is not the identity: a hard-coded order would give other numbers.
    raw = manual_probs(tiny_nli_dir, PREMISES, HYPOTHESES, (0, 1, 2))
    assert not np.allclose(got, raw, atol=1e-4)


def test_label_map_overrides_id2label(tiny_nli_dir: Path, tiny_nli: TransformersNLI) -> None:
    label_map = {"entailment": 0, "neutral": 1, "contradiction": 2}
    nli = TransformersNLI(tiny_nli_dir, device="cpu", label_map=label_map, quantize=False)
    assert nli.label_columns == (0, 1, 2)
    got = nli.predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(
        got, manual_probs(tiny_nli_dir, PREMISES, HYPOTHESES, (0, 1, 2)), atol=1e-5
    )
    # Same logits, other columns: the default instance's rows are a permutation of these.
    default = tiny_nli.predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(default, got[:, [1, 2, 0]], atol=1e-6)


def test_uninformative_labels_raise(generic_label_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"id2label.*LABEL_0.*label_map"):
        TransformersNLI(generic_label_dir, device="cpu")
    nli = TransformersNLI(
        generic_label_dir,
        device="cpu",
        label_map={"Entailment": 1, "NEUTRAL": 2, "contra": 0},
    )
    assert nli.label_columns == EXPECTED_COLUMNS


@pytest.mark.parametrize(
    ("label_map", "match"),
    [
        ({"entailment": 0, "neutral": 1}, "lacks"),
        ({"entailment": 0, "neutral": 1, "contradiction": 3}, "out of range"),
        ({"entailment": 0, "neutral": 0, "contradiction": 1}, "same column"),
        ({"entailment": 0, "neutral": 1, "contradiction": 2, "maybe": 1}, "not one of"),
        ({"entailment": "0", "neutral": 1, "contradiction": 2}, "must be an int"),
    ],
)
def test_bad_label_map(label_map, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        tn.resolve_label_columns(ID2LABEL, label_map)


@pytest.mark.parametrize(
    ("id2label", "expected"),
    [
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, (0, 1, 2)),
        ({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, (2, 1, 0)),  # deberta-large-mnli
        ({"0": "contradiction", "1": "entailment", "2": "neutral"}, (1, 2, 0)),  # str keys
        ({0: "Neut", 1: "Contra", 2: "Entails"}, (2, 0, 1)),
    ],
)
def test_id2label_names(id2label, expected) -> None:
    assert tn.resolve_label_columns(id2label) == expected


def test_duplicate_label_names_raise() -> None:
    with pytest.raises(ValueError, match="two 'entailment'"):
        tn.resolve_label_columns({0: "entailment", 1: "entails", 2: "contradiction"})


# -- prediction ----------------------------------------------------------------------------


def test_batches_preserve_order(tiny_nli_dir: Path) -> None:
    fp32 = dict(device="cpu", cache_size=0, quantize=False)
    small = TransformersNLI(tiny_nli_dir, batch_size=2, **fp32)
    large = TransformersNLI(tiny_nli_dir, batch_size=64, **fp32)
    calls = count_forwards(small)
    got_small = small.predict(PREMISES, HYPOTHESES)
    assert calls[0] == 4  # 7 pairs in batches of 2
    got_large = large.predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(got_small, got_large, atol=1e-5)
    np.testing.assert_allclose(
        got_small, manual_probs(tiny_nli_dir, PREMISES, HYPOTHESES, EXPECTED_COLUMNS), atol=1e-5
    )


def test_empty_input(tiny_nli: TransformersNLI) -> None:
    assert tiny_nli.predict([], []).shape == (0, 3)
    assert tiny_nli._predict_uncached([], []).shape == (0, 3)


def test_long_input_is_truncated(tiny_nli: TransformersNLI) -> None:
    assert tiny_nli.max_length == MAX_POSITIONS  # 256 asked, the model has 128 positions
    long_text = "the market price rose in march " * 200
    assert_probs(tiny_nli.predict([long_text, "a"], ["the price fell", long_text]), 2)


def test_cache_hits_skip_the_model(tiny_nli_dir: Path) -> None:
    nli = TransformersNLI(tiny_nli_dir, device="cpu")
    calls = count_forwards(nli)
    first = nli.predict(PREMISES[:3], HYPOTHESES[:3])
    assert calls[0] == 1
    assert (nli.cache.hits, nli.cache.misses, len(nli.cache)) == (0, 3, 3)

    second = nli.predict(PREMISES[:3], HYPOTHESES[:3])
    assert calls[0] == 1  # no new forward pass
    assert (nli.cache.hits, nli.cache.misses) == (3, 3)
    np.testing.assert_array_equal(first, second)

    # One new pair among cached ones: only the new pair reaches the model.
    seen: list[int] = []
    original = nli._predict_uncached

    def spy(premises, hypotheses):
        seen.append(len(premises))
        return original(premises, hypotheses)

    nli._predict_uncached = spy  # type: ignore[method-assign]
    third = nli.predict(PREMISES[:4], HYPOTHESES[:4])
    assert seen == [1] and calls[0] == 2
    np.testing.assert_array_equal(third[:3], first)


def predict_from_threads(nli: TransformersNLI, n_threads: int = 16) -> dict[int, tuple]:
    """Start ``n_threads`` predict calls at the same instant on overlapping pair windows."""
    barrier = threading.Barrier(n_threads)
    results: dict[int, tuple[list[int], np.ndarray]] = {}
    errors: list[BaseException] = []

    def work(t: int) -> None:
        idx = [(t + k) % len(PREMISES) for k in range(5)]  # rotated, overlapping windows
        try:
            barrier.wait(timeout=30)
            out = nli.predict([PREMISES[i] for i in idx], [HYPOTHESES[i] for i in idx])
            results[t] = (idx, out)
        except BaseException as exc:  # pragma: no cover - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert len(results) == n_threads
    return results


@pytest.mark.parametrize("cache_size", [100, 0])  # shared cache hits / every forward races
def test_sixteen_threads_at_once(tiny_nli_dir: Path, cache_size: int) -> None:
    # fp32: dynamic int8 scales activations per batch, so its rows depend on the batch mates
    expected = TransformersNLI(tiny_nli_dir, device="cpu", cache_size=0, quantize=False).predict(
        PREMISES, HYPOTHESES
    )
    nli = TransformersNLI(
        tiny_nli_dir, device="cpu", batch_size=3, cache_size=cache_size, quantize=False
    )
    for idx, out in predict_from_threads(nli).values():
        np.testing.assert_allclose(out, expected[idx], atol=1e-5)
    if cache_size:
        assert len(nli.cache) == len(PREMISES)


def test_quantized_model_gives_probabilities(tiny_nli_dir: Path, tiny_nli: TransformersNLI) -> None:
    nli = TransformersNLI(tiny_nli_dir, quantize=True)  # "auto" means cpu with quantize
    assert nli.device == "cpu" and nli.quantize
    assert "quantized" in type(nli.model.classifier).__module__  # Linear layers were replaced
    got = nli.predict(PREMISES, HYPOTHESES)
    assert_probs(got, len(PREMISES))
    np.testing.assert_allclose(got, tiny_nli.predict(PREMISES, HYPOTHESES), atol=0.05)


def test_default_is_fp32_and_quantize_none_is_int8_on_the_cpu(tiny_nli_dir: Path) -> None:
    default = TransformersNLI(tiny_nli_dir, device="cpu", cache_size=0)
    assert default.quantize is False
    assert "quantized" not in type(default.model.classifier).__module__
    auto = TransformersNLI(tiny_nli_dir, device="cpu", cache_size=0, quantize=None)
    assert auto.quantize is True
    assert "quantized" in type(auto.model.classifier).__module__
    assert "quantize=True" in repr(auto)
    want = default.predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(auto.predict(PREMISES, HYPOTHESES), want, atol=0.05)


def test_quantize_none_is_full_precision_off_the_cpu(tiny_nli_dir: Path) -> None:
    # "meta" stands for any accelerator here: the model moves there and is not quantized.
    nli = TransformersNLI(tiny_nli_dir, device="meta", cache_size=0, quantize=None)
    assert nli.device == "meta" and nli.quantize is False
    assert "quantized" not in type(nli.model.classifier).__module__


@pytest.mark.parametrize("quantize", ["yes", 1, 0.0])
def test_quantize_must_be_a_bool_or_none(tiny_nli_dir: Path, quantize) -> None:
    with pytest.raises(TypeError, match="quantize"):
        TransformersNLI(tiny_nli_dir, quantize=quantize)


def test_forward_failure_is_an_nli_error(tiny_nli_dir: Path) -> None:
    nli = TransformersNLI(tiny_nli_dir, device="cpu")

    def broken(**kwargs):
        raise RuntimeError("out of memory")

    nli.model = broken  # type: ignore[assignment]
    with pytest.raises(NLIError, match="out of memory"):
        nli.predict(["a"], ["b"])


# -- ONNX Runtime ----------------------------------------------------------------------------


def test_onnx_runtime_matches_torch_and_reuses_its_export(
    tiny_nli_dir: Path, tiny_nli: TransformersNLI, tmp_path: Path
) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    nli = TransformersNLI(
        tiny_nli_dir, runtime="onnx", onnx_dir=tmp_path, cache_size=0, quantize=False
    )
    assert nli.device == "cpu" and nli.runtime == "onnx" and nli.quantize is False
    exported = tmp_path / "model.onnx"
    assert exported.is_file()
    got = nli.predict(PREMISES, HYPOTHESES)
    assert_probs(got, len(PREMISES))
    # Same graph, same label columns: the torch model's probabilities to float precision.
    np.testing.assert_allclose(got, tiny_nli.predict(PREMISES, HYPOTHESES), atol=1e-4)
    stamp = exported.stat().st_mtime_ns
    again = TransformersNLI(tiny_nli_dir, runtime="onnx", onnx_dir=tmp_path, quantize=False)
    assert exported.stat().st_mtime_ns == stamp  # loaded, not exported again
    np.testing.assert_allclose(again.predict(PREMISES, HYPOTHESES), got, atol=1e-6)
    quantized = TransformersNLI(tiny_nli_dir, runtime="onnx", onnx_dir=tmp_path, quantize=None)
    assert quantized.quantize is True  # None on the CPU: ONNX Runtime's int8
    assert quantized._onnx.path == tmp_path / "model.int8.onnx" and quantized._onnx.path.is_file()
    np.testing.assert_allclose(quantized.predict(PREMISES, HYPOTHESES), got, atol=0.05)


def test_onnx_runtime_arguments(tiny_nli_dir: Path, tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(ValueError, match="runtime"):
        TransformersNLI(tiny_nli_dir, runtime="tensorrt")
    with pytest.raises(ValueError, match="CPU"):
        TransformersNLI(tiny_nli_dir, runtime="onnx", device="cuda")
    from mirage_core.nli.onnx_runtime import default_onnx_dir

    monkeypatch.setenv("MIRAGE_CACHE", str(tmp_path))
    first = default_onnx_dir(str(tiny_nli_dir))
    assert first.parent == tmp_path / "onnx" and first == default_onnx_dir(str(tiny_nli_dir))
    (tiny_nli_dir / "extra.txt").write_text("a changed model directory")
    try:
        assert default_onnx_dir(str(tiny_nli_dir)) != first  # a changed model: a new export
    finally:
        (tiny_nli_dir / "extra.txt").unlink()
