"""Client of Hugging Face text-embeddings-inference (TEI) serving an NLI cross-encoder.

TEI serves sequence-classification models on ``POST /predict`` (a batch of ``[premise,
hypothesis]`` pairs in, a list of ``{"label", "score"}`` per pair out) and describes the model on
``GET /info`` (``model_type.classifier.id2label``, ``max_client_batch_size``). This backend reads
the label order from ``/info``, asks for raw scores and applies the softmax over the three NLI
labels itself, as :class:`~mirage_core.nli.TransformersNLI` does in-process.

Example::

    # docker run -p 8080:80 ghcr.io/huggingface/text-embeddings-inference:cpu-latest \\
    #     --model-id cross-encoder/nli-roberta-base    (TEI runs BERT/RoBERTa, not DeBERTa)
    nli = TEINLI("http://localhost:8080")
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mirage_core.nli.protocol import is_real
from mirage_core.nli.remote import RemoteNLI, ServerInfo

__all__ = ["TEINLI"]


class TEINLI(RemoteNLI):
    """NLI backend calling a text-embeddings-inference server's ``/predict`` route.

    Takes the arguments of :class:`~mirage_core.nli.remote.RemoteNLI`, plus ``truncate``
    (default True: TEI truncates pairs longer than the model's limit instead of refusing them).
    """

    info_route = "/info"
    predict_route = "/predict"

    def __init__(self, url: str, *, truncate: bool = True, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.truncate = bool(truncate)

    def _parse_info(self, body: Any) -> ServerInfo:
        if not isinstance(body, dict):
            raise ValueError(f"/info is not a JSON object: {body!r:.200}")
        model_type = body.get("model_type")
        classifier = model_type.get("classifier") if isinstance(model_type, dict) else None
        if not isinstance(classifier, dict):
            kind = ", ".join(model_type) if isinstance(model_type, dict) else repr(model_type)
            raise ValueError(
                f"the server's model is not a sequence classifier (model_type: {kind}); "
                "serve an NLI cross-encoder"
            )
        id2label = classifier.get("id2label")
        if not isinstance(id2label, Mapping) or not id2label:
            raise ValueError(f"/info has no id2label: {classifier!r:.200}")
        labels = tuple(str(id2label[k]) for k in sorted(id2label, key=int))
        if len(set(labels)) != len(labels):
            raise ValueError(f"id2label names a label twice: {dict(id2label)}")
        limit = body.get("max_client_batch_size")
        return ServerInfo(
            model=str(body.get("model_id", "?")),
            labels=labels,
            max_batch_pairs=limit if type(limit) is int and limit > 0 else None,
            logits=True,
        )

    def _encode(self, premises: list[str], hypotheses: list[str]) -> dict[str, Any]:
        return {
            "inputs": [[p, h] for p, h in zip(premises, hypotheses, strict=True)],
            "raw_scores": True,
            "truncate": self.truncate,
        }

    def _decode(self, body: Any, n: int, info: ServerInfo) -> np.ndarray:
        """Strict: each prediction a list naming every label exactly once, each score a finite
        number (raw scores: any real)."""
        if not isinstance(body, list) or len(body) != n:
            raise ValueError(f"expected a list of {n} predictions, got {body!r:.200}")
        column = {label: i for i, label in enumerate(info.labels)}
        out = np.empty((n, len(info.labels)))
        for i, row in enumerate(body):
            if not isinstance(row, list) or len(row) != len(column):
                raise ValueError(
                    f"prediction {i} is not a list of {len(column)} labels: {row!r:.200}"
                )
            seen: set[str] = set()
            for item in row:
                label = item.get("label") if isinstance(item, dict) else None
                score = item.get("score") if isinstance(item, dict) else None
                if not isinstance(label, str) or label not in column:
                    raise ValueError(f"prediction {i} names an unknown label: {item!r:.100}")
                if label in seen:
                    raise ValueError(f"prediction {i} lists the label {label!r} twice")
                if not is_real(score):
                    raise ValueError(
                        f"prediction {i}: the score of {label!r} is not a finite number: "
                        f"{score!r:.50}"
                    )
                seen.add(label)
                out[i, column[label]] = float(score)
        return out
