"""What ``pip install mirage-rag[...]`` pulls: the engine needs neither ray nor httpx, and the
setup command (``.[dev]``) installs the ``serve`` extra, so its tests run rather than skip."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0].lower() for r in requirements}


def extras_closure(extras: dict[str, list[str]], extra: str) -> set[str]:
    """Every package an extra pulls, following ``mirage-rag[...]`` self-references."""
    out: set[str] = set()
    for req in extras[extra]:
        inner = re.fullmatch(r"mirage-rag\[([\w,-]+)\]", req)
        if inner:
            for sub in inner.group(1).split(","):
                out |= extras_closure(extras, sub)
        else:
            out |= names([req])
    return out


def test_ray_and_httpx_only_with_their_extras() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert not {"ray", "httpx"} & names(project["dependencies"])
    assert "ray" in extras_closure(extras, "serve") and "httpx" in extras_closure(extras, "serve")
    assert "httpx" in extras_closure(extras, "remote") and "ray" not in extras_closure(
        extras, "remote"
    )
    for extra in ("nli", "langchain", "llamaindex", "bench", "onnx"):
        assert "ray" not in extras_closure(extras, extra), extra
    assert {"ray", "httpx"} <= extras_closure(extras, "dev")  # scripts/setup.sh installs .[dev]
    assert '-e ".[dev]"' in (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")


def test_the_wheel_ships_the_library_and_its_adapters_only() -> None:
    """training/, benchmarks/ and research/ are importable from a checkout, never installed."""
    from setuptools import find_packages

    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    shipped = find_packages(str(ROOT), include=find["find"]["include"])
    assert "mirage_core" in shipped and "mirage_core.nli" in shipped
    assert {p.split(".")[0] for p in shipped} == {
        "mirage_core",
        "mirage_langchain",
        "mirage_llamaindex",
    }
    assert all((ROOT / top / "__init__.py").is_file() for top in ("training", "benchmarks"))


def test_onnx_extra_pulls_no_torch() -> None:
    """``pip install mirage-rag[onnx]`` is the torch-free runtime: onnxruntime and tokenizers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert extras_closure(extras, "onnx") == {"onnxruntime", "tokenizers"}
    assert {"torch", "transformers", "onnx"} <= extras_closure(extras, "onnx-export")
    # static int8 is built from the shipped graph at first use: onnx, still no torch
    assert extras_closure(extras, "onnx-int8") == {"onnxruntime", "tokenizers", "onnx"}


def test_shipped_onnx_graphs_hold_no_weights() -> None:
    """Each weight ships once (the wheel stays under 100 MB): the graphs reference the
    safetensors beside them."""
    models = ROOT / "mirage_core" / "models"
    for name in ("mirage-nli-minilm-l6", "all-minilm-l6-v2"):
        weights = models / name / "model.safetensors"
        for graph in ("model.onnx", "model.fused.onnx"):
            assert (models / name / graph).stat().st_size < 1_000_000 < weights.stat().st_size
        assert b"Attention" in (models / name / "model.fused.onnx").read_bytes(), name
    # the static int8 variant ships its calibrated ranges only, not an int8 copy of the weights
    ranges = models / "mirage-nli-minilm-l6" / "int8-ranges.json"
    assert ranges.stat().st_size < 100_000
    assert not list(models.rglob("*int8*.onnx"))
    assert (models / "all-minilm-l6-v2" / "LICENSE").is_file()
    assert (models / "all-minilm-l6-v2" / "NOTICE").is_file()


def _requirements() -> list[Requirement]:
    """Every requirement pyproject declares: the dependencies and those of each extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"].values()
    return [Requirement(r) for r in [*project["dependencies"], *(r for e in extras for r in e)]]


def _pins() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        name, _, version = line.partition("#")[0].strip().partition("==")
        if version:
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_every_pinned_version_is_one_pyproject_admits() -> None:
    """constraints.txt pins the tested versions: each lies in the range pyproject declares."""
    pins = _pins()
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        if name != "mirage-rag":
            assert name in pins, requirement
            assert requirement.specifier.contains(pins[name], prereleases=True), requirement


def test_the_llamaindex_extra_starts_at_the_first_llama_index_core_with_what_mirage_uses() -> None:
    """MiragePostprocessor's async path overrides ``_apostprocess_nodes``, which LlamaIndex
    calls from 0.12.31 (``BaseNodePostprocessor.apostprocess_nodes``); 0.12.30 has no such
    method, and before 0.12.27 a workflow step annotated under ``from __future__ import
    annotations`` (examples/llamaindex_workflow.py) is refused."""
    from llama_index.core.postprocessor.types import BaseNodePostprocessor

    [requirement] = [r for r in _requirements() if canonicalize_name(r.name) == "llama-index-core"]
    assert not requirement.specifier.contains("0.12.30")
    assert requirement.specifier.contains("0.12.31")
    assert callable(getattr(BaseNodePostprocessor, "apostprocess_nodes", None))
