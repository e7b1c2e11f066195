"""Fixtures on the tiny BERT NLI model of :mod:`tests.tiny_bert` (shared by the NLI, serving
and evaluation tests)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.tiny_bert import build_tiny_model


@pytest.fixture(scope="session")
def tiny_nli_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny NLI model with id2label {0: CONTRADICTION, 1: Entailment, 2: neutral}."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_tiny_model(tmp_path_factory.mktemp("tiny-nli"))


@pytest.fixture(scope="session")
def generic_label_dir(tmp_path_factory: pytest.TempPathFactory, tiny_nli_dir: Path) -> Path:
    """The tiny model again, with id2label LABEL_0/1/2 (names that say nothing)."""
    import shutil

    target = tmp_path_factory.mktemp("tiny-nli-generic") / "model"
    shutil.copytree(tiny_nli_dir, target)
    config = json.loads((target / "config.json").read_text(encoding="utf-8"))
    config["id2label"] = {str(i): f"LABEL_{i}" for i in range(3)}
    config["label2id"] = {f"LABEL_{i}": i for i in range(3)}
    (target / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return target


@pytest.fixture(scope="session")
def tiny_nli(tiny_nli_dir: Path):
    """One TransformersNLI on the tiny model in fp32 (the reference the tests compare against),
    shared by the tests that only read from it."""
    from mirage_core.nli import TransformersNLI

    return TransformersNLI(tiny_nli_dir, device="cpu", cache_size=0, quantize=False)


@pytest.fixture(scope="session")
def sharp_nli_dir(tmp_path_factory: pytest.TempPathFactory, tiny_nli_dir: Path) -> Path:
    """The tiny model with its classifier weights scaled ×30: confident, varied answers, so the
    engine's verdicts differ from query to query (the random model alone says ~1/3 everywhere)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    target = tmp_path_factory.mktemp("sharp-nli")
    model = AutoModelForSequenceClassification.from_pretrained(str(tiny_nli_dir))
    with torch.no_grad():
        model.classifier.weight.mul_(30.0)
    model.save_pretrained(str(target))
    AutoTokenizer.from_pretrained(str(tiny_nli_dir)).save_pretrained(str(target))
    return target


TEST_DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="session")
def bench_instances():
    """Benchmark inputs (PoisonedRAG NQ from tests/data: clean, mixed and full regimes)."""
    from mirage_core.evaluation.poisonedrag import load_poisonedrag

    return load_poisonedrag("nq", root=TEST_DATA / "poisonedrag", limit=6).instances


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray instance for the session: 2 CPUs, loopback only, no dashboard. Its workers
    import this checkout's mirage_core (PYTHONPATH), not another installed copy."""
    ray = pytest.importorskip("ray")
    root = str(Path(__file__).resolve().parents[2])
    ray.init(
        num_cpus=2,
        _node_ip_address="127.0.0.1",
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": root, "TOKENIZERS_PARALLELISM": "false"}},
    )
    yield ray
    if "ray.serve" in sys.modules:  # importing it only to shut it down warns (pydantic)
        from ray import serve

        serve.shutdown()
    ray.shutdown()


@pytest.fixture
def patched_nli(monkeypatch, fake_nli, fake_embedder):
    """The CLI's engine built on the test doubles."""
    from mirage_core import cli

    # The CLI resolves --model through Mirage; route it to the test doubles.
    monkeypatch.setattr(
        cli,
        "_make_mirage",
        lambda config, model: cli.Mirage(config, nli=fake_nli, embedder=fake_embedder),
    )
