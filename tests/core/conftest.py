"""A tiny, randomly initialised BERT NLI model built and saved by the tests themselves (shared by
the NLI, serving and evaluation tests).

Nothing is downloaded: the WordPiece vocabulary is written here, the tokenizer is built from it
and the weights come from ``torch.manual_seed(0)``. The labels are in a non-standard order
(contradiction, entailment, neutral) so that a hard-coded column order would be caught.
"""

from __future__ import annotations

import json
import string
import sys
from pathlib import Path

import pytest

#: The tiny model's label order: output column i is ID2LABEL[i].
ID2LABEL = {0: "CONTRADICTION", 1: "Entailment", 2: "neutral"}
#: Where each of [entail, neutral, contra] sits in the tiny model's output.
EXPECTED_COLUMNS = (1, 2, 0)
#: Positions of the tiny model (and its tokenizer's model_max_length).
MAX_POSITIONS = 128

_WORDS = """
the of and to in a is that for it as was with be by on not he i this are or his from at which
but have an they you were her she there one all we their has been would will if more when can
who no said its so up out about them than into could only other new some time these two may
then do first any my now such like our over man me even most made after also did many before
must through back years where much your way well down should because each just those people how
too little state good very make world still own see men work long get here between both life
being under never day same another know while last might us great old year off come since against
go came right used take three city river war water house school company team game film music
police report study data claim source news bank market price rate percent million billion cat dog
sat mat animal car road red blue green big small high low early late north south east west
president minister government country capital population born died founded built won lost
increase decrease rose fell record record true false yes no january february march april may june
july august september october november december monday friday paris london berlin tokyo france
germany japan china europe america
""".split()


def write_vocab(path: Path) -> list[str]:
    """Write a WordPiece vocab.txt: specials, characters, ``##`` pieces and common words."""
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = list(string.ascii_lowercase + string.digits + string.punctuation)
    tokens += chars + ["##" + c for c in string.ascii_lowercase + string.digits]
    seen = set(tokens)
    for word in _WORDS:
        if word not in seen:
            seen.add(word)
            tokens.append(word)
    path.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    return tokens


def build_tiny_model(directory: Path, id2label: dict[int, str] = ID2LABEL, *, fp16: bool = False):
    """Save a tiny BERT sequence classifier + tokenizer in ``directory``; return the directory."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    directory.mkdir(parents=True, exist_ok=True)
    vocab = write_vocab(directory / "vocab.txt")
    # BertTokenizer(vocab_file=...) is silently ignored by transformers 5; from_pretrained on a
    # directory holding vocab.txt works on 4.x and 5.x alike.
    tokenizer = BertTokenizer.from_pretrained(str(directory), model_max_length=MAX_POSITIONS)
    assert tokenizer.vocab_size == len(vocab)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=MAX_POSITIONS,
        num_labels=len(id2label),
        id2label=dict(id2label),
        label2id={v: k for k, v in id2label.items()},
    )
    torch.manual_seed(0)
    model = BertForSequenceClassification(config).eval()
    if fp16:
        model = model.half()
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory


@pytest.fixture(scope="session", name="build_tiny_model")
def build_tiny_model_fixture():
    """``build_tiny_model(directory, id2label=..., fp16=False)`` for tests that need a variant."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_tiny_model


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
    from mirage_core.evaluation.datasets import load_poisonedrag

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
