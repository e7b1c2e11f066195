"""Client of ``mirage serve`` (or any server speaking :mod:`mirage_core.nli.protocol`).

Example::

    from mirage_core import Mirage
    from mirage_core.nli import HTTPNLI

    nli = HTTPNLI("http://nli.internal:8000/nli")
    mirage = Mirage(nli=nli)   # NLI failures fail closed under the default policy
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mirage_core.nli.protocol as protocol
from mirage_core.nli.remote import RemoteNLI, ServerInfo

__all__ = ["HTTPNLI"]


class HTTPNLI(RemoteNLI):
    """NLI backend calling a ``mirage serve`` application over HTTP.

    Takes the arguments of :class:`~mirage_core.nli.remote.RemoteNLI`; ``url`` is the
    application's base URL including its route prefix, e.g. ``http://host:8000/nli``. The
    column order of the answers and the server's limits come from its ``/info`` route, read
    again when the server refuses a request with 400 or 413.
    """

    info_route = protocol.INFO_ROUTE
    predict_route = protocol.PREDICT_ROUTE
    #: 400 for more than ``max_batch_pairs`` pairs or a text over ``max_text_chars``, 413 for a
    #: body over ``max_body_bytes``. A malformed request is answered 400 too: the limits read
    #: again are then the same, and the call fails without a second try.
    size_statuses = frozenset({400, 413})

    def _parse_info(self, body: Any) -> ServerInfo:
        if not isinstance(body, dict) or body.get("protocol") != protocol.PROTOCOL:
            raise ValueError(
                f"{self.url}{self.info_route} does not speak {protocol.PROTOCOL} (got {body!r:.200})"
            )
        labels = body.get("labels")
        if (
            not isinstance(labels, list)
            or len(labels) != 3
            or not all(isinstance(x, str) for x in labels)
        ):
            raise ValueError(f"'labels' must be a list of 3 names, got {labels!r:.200}")
        if len(set(labels)) != len(labels):
            raise ValueError(f"'labels' names a label twice: {labels!r:.200}")
        return ServerInfo(
            model=str(body.get("model", "?"))[:200],
            labels=tuple(labels),
            max_batch_pairs=_limit(body.get("max_batch_pairs")),
            max_text_chars=_limit(body.get("max_text_chars")),
            max_body_bytes=_limit(body.get("max_body_bytes")),
        )

    def _encode(self, premises: list[str], hypotheses: list[str]) -> dict[str, Any]:
        return protocol.encode_pairs(premises, hypotheses)

    def _decode(self, body: Any, n: int, info: ServerInfo) -> np.ndarray:
        return protocol.decode_probs(body, n, len(info.labels))


def _limit(value: Any) -> int | None:
    """A limit the server announces: a positive int, else none."""
    return value if type(value) is int and value > 0 else None
