"""benchmarks/perf_runtimes.py: the runtime table, its plot and the installed-size sum, on
made-up timings (the real run times models for minutes)."""

from __future__ import annotations

import importlib.metadata as md
from pathlib import Path

import pytest

from benchmarks import perf_runtimes as pr

NAMES = ["torch fp32", "onnx fp32", "onnx int8"]
KS = [5, 20]


def fake_table() -> dict:
    rt: dict = {}
    for k in KS:
        for i, n in enumerate(NAMES):
            p50 = k / (i + 1)
            rt[(k, n)] = {
                "defend_p50_s": p50,
                "defend_p95_s": 1.5 * p50,
                "nli_p50_s": 0.8 * p50,
                "models_share": 0.9,
            }
    for i, n in enumerate(NAMES):
        rt[("cold", n)] = {"cold_start_s": 5.0 / (i + 1), "peak_rss_mib": 600.0 - 100 * i}
        rt[("load", n)] = 1.0 + i
    return rt


def test_lines_give_ratios_and_the_nli_ratio() -> None:
    sizes = {
        "mirage": 90.0,
        "onnx": {"onnxruntime": 80.0, "tiny": 0.2},
        "onnx_total": 170.2,
        "torch_total": 1500.0,
        "int8_extra": 30.0,
    }
    text = "\n".join(pr.runtime_lines(fake_table(), KS, NAMES, 3, sizes))
    # k = 20: torch 20 s, onnx fp32 10 s, int8 6.67 s; torch NLI forward p50 16 s
    assert "| 20 | 20.00 / 30.00 | 10.00 / 15.00 | 6.67 / 10.00 | 2.00× | 3.00× |" in text
    assert "torch fp32 1.25, onnx fp32 0.62, onnx int8 0.42" in text
    assert "- onnx int8: 1.67 s, 400 MiB" in text
    assert "**170 MB**" in text and "onnxruntime 80" in text and "tiny" not in text


def test_plot_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "img" / "runtimes.png"
    pr.plot(fake_table(), KS, NAMES, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_closure_follows_requirements() -> None:
    """numpy's closure is numpy alone; the sizes are what its RECORD lists."""
    sizes = pr._closure(("numpy",))
    dist = md.distribution("numpy")
    want = sum(f.locate().stat().st_size for f in dist.files if Path(f.locate()).is_file())
    assert sizes == {"numpy": want}
    assert "numpy" in pr._closure(("mirage-rag",))  # mirage requires numpy
    assert pr._closure(("no-such-distribution-here",)) == {}
