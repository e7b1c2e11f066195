"""A training bundle: pairs tokenized once and read back as the tokenizer gave them; weights
cut into parts and joined; a training run on a bundle, on the tiny model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from training.bundle import (
    BASE_DIR,
    META_FILE,
    PAIRS_FILE,
    encode_pairs,
    join_parts,
    load_pairs,
    save_pairs,
    split_file,
)

PREMISES = ["the cat sat on the mat.", "paris is the capital of france", "he won"]
HYPOTHESES = ["a cat sat.", "paris is not the capital of france", "he lost the game in march"]


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory, build_tiny_model) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny-base"))


@pytest.fixture(scope="module")
def tokenizer(tiny_dir: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_dir))


def test_pairs_read_back_as_the_tokenizer_gave_them(tokenizer, tmp_path: Path) -> None:
    enc = tokenizer(PREMISES, HYPOTHESES, truncation=True, max_length=12)
    arrays = encode_pairs(tokenizer, PREMISES, HYPOTHESES, max_length=12)
    save_pairs(tmp_path / PAIRS_FILE, arrays, [0, 2, 1])
    ids, types, labels = load_pairs(tmp_path / PAIRS_FILE)
    assert ids == enc["input_ids"]
    assert types == enc["token_type_ids"]
    assert labels == [0, 2, 1]
    assert max(len(x) for x in ids) == 12  # the longest pair was truncated


def test_ids_that_do_not_fit_uint16_are_refused() -> None:
    def huge_vocab(a, b, **_):
        return {"input_ids": [[2, 70_000, 3]], "token_type_ids": [[0, 0, 0]]}

    with pytest.raises(ValueError, match="uint16"):
        encode_pairs(huge_vocab, ["a"], ["b"], max_length=8)


def test_split_parts_respect_the_limit_and_join_back(tmp_path: Path) -> None:
    blob = np.random.default_rng(0).bytes(2_500)
    (tmp_path / "model.safetensors").write_bytes(blob)
    parts = split_file(tmp_path / "model.safetensors", tmp_path / "parts", max_bytes=1_000)
    assert [p.stat().st_size for p in parts] == [1_000, 1_000, 500]
    joined = join_parts(tmp_path / "parts", tmp_path / "out" / "model.safetensors")
    assert joined.read_bytes() == blob


def test_join_refuses_a_missing_part(tmp_path: Path) -> None:
    (tmp_path / "w.bin").write_bytes(b"x" * 30)
    parts = split_file(tmp_path / "w.bin", tmp_path / "parts", max_bytes=10)
    parts[1].unlink()
    with pytest.raises(FileNotFoundError, match=r"are not 0\.\.1"):
        join_parts(tmp_path / "parts", tmp_path / "w2.bin")


def test_training_on_a_bundle_saves_a_model_that_loads(
    tiny_dir: Path, tokenizer, tmp_path: Path
) -> None:
    pytest.importorskip("torch")
    from training.train import main

    bundle = tmp_path / "bundle"
    (bundle / BASE_DIR).mkdir(parents=True)
    for f in tiny_dir.iterdir():
        (bundle / BASE_DIR / f.name).write_bytes(f.read_bytes())
    arrays = encode_pairs(tokenizer, PREMISES * 4, HYPOTHESES * 4, max_length=32)
    save_pairs(bundle / PAIRS_FILE, arrays, [0, 1, 2] * 4)
    (bundle / META_FILE).write_text(
        json.dumps({"mix_name": "test-mix", "mix": {"test": 12}, "max_length": 32})
    )

    out = tmp_path / "trained"
    argv = ["--bundle", str(bundle), "--out", str(out), "--device", "auto", "--steps", "2"]
    assert main([*argv, "--batch-size", "4"]) == 0
    meta = json.loads((out / "training_meta.json").read_text())
    assert meta["train_pairs"] == 12 and meta["steps_done"] == 2 and meta["mix"] == {"test": 12}
    assert meta["max_length"] == 32  # the bundle's truncation, not --max-length (128)
    assert meta["mix_name"] == "test-mix"  # the bundle's mix, not --mix (v1)

    from mirage_core.nli import TransformersNLI

    probs = TransformersNLI(out, device="cpu", cache_size=0).predict(PREMISES, HYPOTHESES)
    assert probs.shape == (3, 3) and np.all(np.isfinite(probs))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
