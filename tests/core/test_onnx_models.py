"""Which runtime the default backends pick (:func:`mirage_core.onnx_models.use_onnx`)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

import pytest

from mirage_core import onnx_models
from mirage_core.onnx_models import (
    onnx_runtime_available,
    runtime_forced,
    torch_build_accelerated,
    use_onnx,
)


@pytest.fixture
def torch_build(tmp_path: Path, monkeypatch):
    """Point ``find_spec("torch")`` at a package directory whose ``version.py`` the test
    writes; returns the writer."""
    package = tmp_path / "torch"
    package.mkdir()
    (package / "__init__.py").write_text("")
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        if name == "torch":
            return importlib.machinery.ModuleSpec(
                "torch", None, origin=str(package / "__init__.py")
            )
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.setattr(onnx_models.sys, "platform", "linux")

    def write(text: str | None) -> None:
        version = package / "version.py"
        if text is None:
            version.unlink(missing_ok=True)
        else:
            version.write_text(text)

    return write


CPU_BUILD = "__version__ = '2.13.0+cpu'\ncuda: Optional[str] = None\nhip: Optional[str] = None\n"


def test_a_cpu_only_build_has_no_accelerator(torch_build) -> None:
    torch_build(CPU_BUILD + "xpu: Optional[str] = None\n")
    assert torch_build_accelerated() is False


@pytest.mark.parametrize(
    "text",
    [
        "__version__ = '2.13.0+cu126'\ncuda: Optional[str] = '12.6'\nhip = None\n",
        "__version__ = '2.13.0+rocm6.2'\ncuda = None\nhip = '6.2.4'\n",
        CPU_BUILD + "xpu = '2025.1'\n",
        "__version__ = '2.13.0'\n",  # unreadable build: assume it may run on a GPU
        "cuda = (\n",  # not Python
        None,  # no version.py
    ],
)
def test_an_accelerated_or_unreadable_build_keeps_torch(torch_build, text) -> None:
    torch_build(text)
    assert torch_build_accelerated() is True


def test_macos_keeps_torch_for_mps(torch_build, monkeypatch) -> None:
    torch_build(CPU_BUILD)
    monkeypatch.setattr(onnx_models.sys, "platform", "darwin")
    assert torch_build_accelerated() is True


def test_no_torch_installed_is_no_accelerator(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a, **k: None if n == "torch" else real(n, *a, **k)
    )
    assert torch_build_accelerated() is False


def test_use_onnx_needs_a_graph_the_runtime_and_a_cpu_only_torch(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("MIRAGE_RUNTIME", raising=False)
    graph_dir, hub_dir = tmp_path / "exported", tmp_path / "hub"
    graph_dir.mkdir()
    hub_dir.mkdir()
    (graph_dir / "model.onnx").write_bytes(b"")
    monkeypatch.setattr(onnx_models, "torch_runtime_available", lambda: True)
    monkeypatch.setattr(onnx_models, "onnx_runtime_available", lambda: True)
    monkeypatch.setattr(onnx_models, "torch_build_accelerated", lambda: False)
    assert use_onnx() and use_onnx(graph_dir)
    assert not use_onnx(hub_dir)  # no graph: torch runs it
    assert not use_onnx(graph_dir, needs_torch=True)  # a setting only torch has
    monkeypatch.setattr(onnx_models, "torch_build_accelerated", lambda: True)
    assert not use_onnx(graph_dir)  # a GPU build of torch keeps torch
    monkeypatch.setattr(onnx_models, "torch_build_accelerated", lambda: False)
    monkeypatch.setattr(onnx_models, "onnx_runtime_available", lambda: False)
    assert not use_onnx(graph_dir)  # ONNX Runtime not installed
    monkeypatch.setattr(onnx_models, "torch_runtime_available", lambda: False)
    assert use_onnx(hub_dir)  # neither: the ONNX runtime says what to install
    monkeypatch.setenv("MIRAGE_RUNTIME", "torch")
    assert not use_onnx(graph_dir)
    monkeypatch.setenv("MIRAGE_RUNTIME", "onnx")
    monkeypatch.setattr(onnx_models, "torch_build_accelerated", lambda: True)
    assert use_onnx(hub_dir)
    assert use_onnx(graph_dir, needs_torch=True)  # forced: ONNX then says what it cannot run


@pytest.mark.parametrize(
    ("value", "forced"), [("", None), ("torch", "torch"), (" ONNX ", "onnx"), ("tensorrt", None)]
)
def test_runtime_forced_reads_the_environment(monkeypatch, value, forced) -> None:
    monkeypatch.setenv("MIRAGE_RUNTIME", value)
    if value == "tensorrt":
        with pytest.raises(ValueError, match="MIRAGE_RUNTIME must be"):
            runtime_forced()
        with pytest.raises(ValueError, match="MIRAGE_RUNTIME must be"):
            use_onnx()
    else:
        assert runtime_forced() == forced


def test_an_onnxruntime_that_cannot_import_is_not_available(monkeypatch) -> None:
    pytest.importorskip("onnxruntime")
    assert onnx_runtime_available()
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import raises ImportError
    assert not onnx_runtime_available()
