"""Settings of ``mirage serve``: the model, batching, replicas and where it listens.

Defaults are for one CPU machine; a JSON or TOML file holds the same fields, and command-line
flags override the file.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mirage_core.errors import DuplicateKeyError
from mirage_core.jsonl import json_loads

__all__ = ["ServeConfig"]


@dataclass(frozen=True)
class ServeConfig:
    """How ``mirage serve`` runs.

    Args:
        model: NLI model spec (preset, local directory, hub id, or ``module:attribute``; see
            :func:`~mirage_core.nli.loading.load_backend`). ``None``: the packaged model.
        device: torch device of each replica (``"auto"``: cuda when the replica has a GPU).
        model_batch_size: pairs per forward pass inside a replica. Default 64.
        torch_threads: torch CPU threads per replica (``None``: torch's default).
        quantize: ``TransformersNLI``'s int8 setting. Default ``False`` (full precision):
            dynamic int8 quantizes each forward pass's activations with one scale for the
            whole batch, so a pair's scores, and a verdict, would depend on which other
            clients' requests the dynamic batcher merged with it. ``True`` or ``None`` (int8 on
            the CPU) trade that for speed. ``"static-int8"``: the static int8 graph on ONNX
            Runtime (:class:`~mirage_core.nli.OnnxNLI`, CPU only, the ``[onnx-int8]``
            extra), faster and with scores that do not depend on batch mates.
        cache_size: entries of each replica's pair cache (0: none). Default 100 000.
        cache_bytes: bytes each replica's pair cache holds at most (texts and rows,
            approximately). Default 256 MiB.
        batching: merge concurrent requests into one forward pass (``@serve.batch``).
        max_batch_size: requests merged at most into one forward pass. Default 32.
        batch_wait_timeout_s: how long a batch waits to fill up. Default 0.005 s.
        num_replicas: fixed replica count (ignored when ``max_replicas`` is set). Default 1.
        min_replicas, max_replicas: autoscaling bounds; setting ``max_replicas`` turns
            autoscaling on (``min_replicas`` defaults to 1).
        target_ongoing_requests: autoscaling target of in-flight requests per replica.
        max_ongoing_requests: requests a replica accepts at once (the rest queue). Default 256.
        max_batch_pairs: pairs one request may carry (announced on ``/info``). Default 1024.
        max_text_chars: characters of one premise or hypothesis at most. Default 10 000.
        max_body_bytes: bytes of one request body at most (a longer one is answered 413).
            Default 4 MiB.
        token: bearer token every request but ``/health`` must carry (``Authorization: Bearer
            <token>``; compared in constant time). ``None``: no authentication. ``mirage
            serve`` reads it from ``--token`` or the ``MIRAGE_SERVE_TOKEN`` environment
            variable.
        num_cpus: CPUs reserved per replica. Default 1.
        num_gpus: GPUs per replica; ``None``: 1 when ``device`` starts with ``cuda``, else 0.
        name: Serve application name. Default ``"mirage-nli"``.
        route_prefix: HTTP prefix of the routes. Default ``"/nli"``.
        host, port: where Serve's HTTP proxy listens. Default ``127.0.0.1:8000`` (loopback
            only). ``0.0.0.0`` accepts any machine that can reach this one: set a ``token``
            and put the server behind TLS and a firewall first (``docs/serving.md``).
        address: Ray cluster to join (``"auto"``, ``"ray://head:10001"``); ``None`` starts a
            local Ray instance.
    """

    model: str | None = None
    device: str = "auto"
    model_batch_size: int = 64
    torch_threads: int | None = None
    quantize: bool | Literal["static-int8"] | None = False
    cache_size: int = 100_000
    cache_bytes: int = 256 * 2**20
    batching: bool = True
    max_batch_size: int = 32
    batch_wait_timeout_s: float = 0.005
    num_replicas: int = 1
    min_replicas: int | None = None
    max_replicas: int | None = None
    target_ongoing_requests: float = 8.0
    max_ongoing_requests: int = 256
    max_batch_pairs: int = 1024
    max_text_chars: int = 10_000
    max_body_bytes: int = 4 * 2**20
    token: str | None = dataclasses.field(default=None, repr=False)
    num_cpus: float = 1.0
    num_gpus: float | None = None
    name: str = "mirage-nli"
    route_prefix: str = "/nli"
    host: str = "127.0.0.1"
    port: int = 8000
    address: str | None = None

    def __post_init__(self) -> None:
        for name in ("model_batch_size", "max_batch_size", "num_replicas", "max_ongoing_requests"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        for name in ("max_batch_pairs", "max_text_chars", "max_body_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if self.token is not None:
            token = self.token.strip() if isinstance(self.token, str) else ""
            # what a client can send in an Authorization header: printable ASCII, no spaces
            if not token or not all("!" <= ch <= "~" for ch in token):
                raise ValueError(
                    "token must be None or a non-empty string of printable ASCII characters "
                    "without spaces"
                )
            object.__setattr__(self, "token", token)  # a secret read from a file ends in "\n"
        if self.quantize not in (True, False, None, "static-int8"):
            raise ValueError(
                f"quantize must be True, False, None or 'static-int8', got {self.quantize!r}"
            )
        if self.quantize == "static-int8" and self.device not in ("auto", "cpu"):
            raise ValueError(f"quantize='static-int8' runs on the CPU, got device={self.device!r}")
        # numbers Ray reads later: refused here, with their name, not inside a deployment
        for name in ("batch_wait_timeout_s", "num_cpus", "num_gpus", "target_ongoing_requests"):
            value = getattr(self, name, None)
            if value is None and name in ("num_gpus", "target_ongoing_requests"):
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.target_ongoing_requests is not None and self.target_ongoing_requests <= 0:
            raise ValueError("target_ongoing_requests must be > 0")
        if self.cache_size < 0 or self.cache_bytes < 0:
            raise ValueError("cache_size and cache_bytes must be >= 0")
        if self.max_replicas is not None and self.max_replicas < 1:
            raise ValueError(f"max_replicas must be >= 1, got {self.max_replicas}")
        lo = self.min_replicas if self.min_replicas is not None else 1
        if self.max_replicas is not None and not 0 <= lo <= self.max_replicas:
            raise ValueError(
                f"autoscaling needs 0 <= min_replicas <= max_replicas, got {lo}..{self.max_replicas}"
            )
        if self.min_replicas is not None and self.max_replicas is None:
            raise ValueError("min_replicas needs max_replicas (which turns autoscaling on)")
        if not self.route_prefix.startswith("/"):
            raise ValueError(f"route_prefix must start with '/', got {self.route_prefix!r}")
        if isinstance(self.port, bool) or not isinstance(self.port, int):
            raise ValueError(f"port must be an int, got {self.port!r}")
        if not 0 < self.port < 65536:
            raise ValueError(f"port must be in 1..65535, got {self.port}")

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServeConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown ServeConfig fields {unknown}; known: {sorted(known)}")
        return cls(**data)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> ServeConfig:
        """Read a JSON or TOML (``.toml``) file of ServeConfig fields. A key given twice is an
        error (:class:`~mirage_core.errors.DuplicateKeyError` in JSON, naming the file and the
        key; TOML refuses it itself)."""
        path = Path(path)
        text = path.read_text(encoding="utf-8")
        try:
            data = tomllib.loads(text) if path.suffix == ".toml" else json_loads(text)
        except DuplicateKeyError as exc:
            raise DuplicateKeyError(exc.key, str(path)) from None
        except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(
                f"{path}: not valid {path.suffix.lstrip('.') or 'JSON'}: {exc}"
            ) from exc
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object of ServeConfig fields")
        return cls.from_dict(data)

    def backend_kwargs(self) -> dict[str, Any]:
        """What each replica passes to :func:`~mirage_core.nli.loading.load_backend`."""
        kwargs: dict[str, Any] = {
            "device": self.device,
            "batch_size": self.model_batch_size,
            "cache_size": self.cache_size,
            "quantize": self.quantize,
        }
        if self.torch_threads is not None:
            kwargs["torch_threads"] = self.torch_threads
        return kwargs

    def replace(self, **changes: Any) -> ServeConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    # -- what Ray Serve gets -----------------------------------------------------------------

    @property
    def url(self) -> str:
        """The application's base URL (what :class:`~mirage_core.nli.HTTPNLI` takes)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        if ":" in host:  # an IPv6 address goes in brackets
            host = f"[{host}]"
        return f"http://{host}:{self.port}{self.route_prefix.rstrip('/')}"

    def deployment_options(self) -> dict[str, Any]:
        """Keyword arguments of ``Deployment.options``: replicas or autoscaling, resources."""
        gpus = self.num_gpus
        if gpus is None:
            gpus = 1.0 if self.device.strip().lower().startswith("cuda") else 0.0
        options: dict[str, Any] = {
            "max_ongoing_requests": self.max_ongoing_requests,
            "ray_actor_options": {"num_cpus": self.num_cpus, "num_gpus": gpus},
        }
        if self.max_replicas is not None:
            options["autoscaling_config"] = {
                "min_replicas": self.min_replicas if self.min_replicas is not None else 1,
                "max_replicas": self.max_replicas,
                "target_ongoing_requests": self.target_ongoing_requests,
            }
        else:
            options["num_replicas"] = self.num_replicas
        return options
