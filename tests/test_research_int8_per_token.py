"""research/int8_per_token.py: the per-token int8 rewrite of a graph computes what its rounds
measured, against per-token quantization written out in numpy."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from research import int8_per_token as per_token


def _matmul_model(weight: np.ndarray):
    """A graph of one product ``y = x @ weight`` (x: [batch, tokens, K], a free batch)."""
    from onnx import TensorProto, helper, numpy_helper

    k, n = weight.shape
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="product")],
        "one-matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "t", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "t", n])],
        [numpy_helper.from_array(weight.astype(np.float32), "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _run(model, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(["y"], {"x": x.astype(np.float32)})[0]


def _reference(x: np.ndarray, w: np.ndarray, zero_points: bool) -> np.ndarray:
    """Per-token quantization written out in numpy: int8 weights per output channel; each row
    of ``x`` to uint8 with its own scale (and zero point)."""
    ws = np.abs(w).max(axis=0) / 127.0
    wq = np.clip(np.round(w / ws), -127, 127)
    if zero_points:
        lo = np.minimum(x.min(axis=-1, keepdims=True), 0)
        hi = np.maximum(x.max(axis=-1, keepdims=True), 0)
        s = np.maximum(hi - lo, 1e-8) / 255.0
        z = np.round(-lo / s)
        q = np.clip(np.round(x / s) + z, 0, 255)
    else:
        s = np.maximum(np.abs(x).max(axis=-1, keepdims=True), 1e-8) / 127.0
        z = 128.0
        q = np.round(x / s) + 128
    return ((q - z) @ wq) * s * ws


@pytest.mark.parametrize("zero_points", [True, False])
def test_rewrite_computes_per_token_quantization(zero_points: bool) -> None:
    rng = np.random.default_rng(3)
    w = rng.normal(size=(24, 10)).astype(np.float32)
    # rows of very different ranges, one skewed above zero, one all zero
    x = rng.normal(size=(2, 4, 24)).astype(np.float32)
    x[0, 1] *= 50
    x[1, 2] = np.abs(x[1, 2]) + 3
    x[1, 3] = 0
    model = per_token.quantize_per_token(_matmul_model(w), zero_points=zero_points)
    assert "MatMulInteger" in {n.op_type for n in model.graph.node}
    got = _run(model, x)
    np.testing.assert_allclose(got, _reference(x, w, zero_points), rtol=1e-4, atol=1e-4)
    exact = x @ w
    # close to the exact product, row by row relative to the row's size
    scale = np.abs(exact).max(axis=-1, keepdims=True) + 1e-6
    assert (np.abs(got - exact) / scale).max() < 0.05
    # a row's result does not depend on the rows beside it
    np.testing.assert_array_equal(_run(model, x[:1, 1:2]), got[:1, 1:2])


def test_rewrite_keeps_matching_products_in_fp32() -> None:
    w = np.eye(6, dtype=np.float32)
    model = per_token.quantize_per_token(_matmul_model(w), keep_fp32=("prod",))
    assert [n.op_type for n in model.graph.node] == ["MatMul"]
