"""Teacher targets: a teacher part's pairs train towards the teacher's probabilities, in the
training label order, and every other pair towards its own label."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from training.data import LABELS, NLIExample
from training.teacher import TEACHER_PARTS, soft_targets, teacher_probabilities, teacher_rows

PAIRS = [
    NLIExample("the cat sat on the mat.", "a cat sat.", 0, "snli"),
    NLIExample(
        "paris is the capital of france", "the city hosted the games in 1924", 1, TEACHER_PARTS[0]
    ),
    NLIExample("he won the match", "he lost the match", 2, "cad"),
    NLIExample("the bridge opened in 1932", "the bridge is made of steel", 1, TEACHER_PARTS[0]),
]


def test_teacher_rows_are_the_teacher_parts_pairs() -> None:
    assert teacher_rows(PAIRS) == [1, 3]
    assert teacher_rows(PAIRS[:1]) == []


def test_soft_targets_keep_labels_and_take_the_teachers_rows() -> None:
    labels = [e.label for e in PAIRS]
    probs = np.array([[0.2, 0.6, 0.2], [1.0, 1.0, 2.0]])  # the second is not normalized
    out = soft_targets(labels, [1, 3], probs)
    np.testing.assert_allclose(out[0], [1, 0, 0])
    np.testing.assert_allclose(out[2], [0, 0, 1])
    np.testing.assert_allclose(out[1], [0.2, 0.6, 0.2])
    np.testing.assert_allclose(out[3], [0.25, 0.25, 0.5])
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-6)


def test_soft_targets_smooth_labels_as_cross_entropy_does() -> None:
    torch = pytest.importorskip("torch")
    labels = [0, 2, 1]
    out = soft_targets(labels, [], np.zeros((0, 3)), smoothing=0.1)
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3], [-2.0, 1.0, 0.0]])
    hard = torch.nn.CrossEntropyLoss(label_smoothing=0.1)(logits, torch.tensor(labels))
    soft = torch.nn.CrossEntropyLoss()(logits, torch.from_numpy(out))
    assert float(hard) == pytest.approx(float(soft), rel=1e-6)


def test_soft_targets_refuse_rows_without_probabilities() -> None:
    with pytest.raises(ValueError, match="2 teacher rows but 1"):
        soft_targets([0, 1, 2, 1], [1, 3], np.ones((1, 3)))


def test_teacher_probabilities_come_in_the_training_label_order(
    build_tiny_model, tmp_path: Path
) -> None:
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    # the tiny model's id2label is CONTRADICTION, Entailment, neutral: not the training order
    model_dir = build_tiny_model(tmp_path / "teacher")
    probs = teacher_probabilities(str(model_dir), PAIRS, threads=1)
    assert probs.shape == (len(PAIRS), len(LABELS))

    tok = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir)).float().eval()
    enc = tok(
        [e.premise for e in PAIRS], [e.hypothesis for e in PAIRS], padding=True, return_tensors="pt"
    )
    with torch.no_grad():
        raw = torch.softmax(model(**enc).logits, dim=-1).numpy()
    order = [
        next(i for i, name in model.config.id2label.items() if name.lower().startswith(label[:6]))
        for label in LABELS
    ]
    np.testing.assert_allclose(probs, raw[:, order], atol=1e-4)
    assert teacher_probabilities(str(model_dir), []).shape == (0, 3)


def test_training_on_a_bundle_refuses_teacher_parts(build_tiny_model, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from training.bundle import META_FILE
    from training.train import main

    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / META_FILE).write_text(
        json.dumps({"mix_name": "m", "mix": {TEACHER_PARTS[0]: 10}, "max_length": 32})
    )
    with pytest.raises(SystemExit, match="teacher parts need the data"):
        main(["--bundle", str(bundle), "--out", str(tmp_path / "out"), "--steps", "1"])
