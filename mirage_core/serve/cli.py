"""``mirage serve``: the NLI model on Ray Serve (registered by mirage_core.cli).

ray is imported inside the handler, so ``mirage --help`` stays instant and works without the
``serve`` extra.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from mirage_core.cli import say
from mirage_core.serve.config import ServeConfig

__all__ = ["config_from_args", "register"]

# flag -> ServeConfig field; a flag left unset keeps the config file's (or the default) value
_FIELDS = {
    "model": "model",
    "device": "device",
    "replicas": "num_replicas",
    "min_replicas": "min_replicas",
    "max_replicas": "max_replicas",
    "target_ongoing_requests": "target_ongoing_requests",
    "max_batch_size": "max_batch_size",
    "batch_wait_s": "batch_wait_timeout_s",
    "model_batch_size": "model_batch_size",
    "threads": "torch_threads",
    "num_cpus": "num_cpus",
    "num_gpus": "num_gpus",
    "host": "host",
    "port": "port",
    "route_prefix": "route_prefix",
    "name": "name",
    "address": "address",
    "max_batch_pairs": "max_batch_pairs",
    "max_text_chars": "max_text_chars",
    "max_body_bytes": "max_body_bytes",
    "token": "token",
}

#: Environment variable holding the bearer token when ``--token`` is not given (a flag shows
#: in the process list; the environment does not).
TOKEN_ENV = "MIRAGE_SERVE_TOKEN"


def register(subparsers: Any) -> None:
    """Add ``serve`` to an ``argparse`` subparsers object."""
    s = subparsers.add_parser(
        "serve",
        help="serve the NLI model on Ray Serve (dynamic batching, replicas, autoscaling)",
        description=(
            "Deploy an NLI model on Ray Serve: POST {prefix}/predict, GET {prefix}/info and "
            "{prefix}/health (see mirage_core.nli.protocol). Clients: HTTPNLI(url) over HTTP, "
            "ServeHandleNLI inside the Ray cluster. Needs the serve extra: "
            "pip install 'mirage-rag[serve]'."
        ),
    )
    s.add_argument("--config", default=None, help="JSON or TOML file of ServeConfig fields")
    s.add_argument(
        "--model",
        default=None,
        help="NLI model: preset, hub id, local path or module:attribute (default: the packaged model)",
    )
    s.add_argument("--device", default=None, help="torch device of each replica (default auto)")
    s.add_argument("--replicas", type=int, default=None, help="fixed replica count (default 1)")
    s.add_argument("--min-replicas", type=int, default=None, help="autoscaling lower bound")
    s.add_argument(
        "--max-replicas", type=int, default=None, help="autoscaling upper bound (turns it on)"
    )
    s.add_argument(
        "--target-ongoing-requests",
        type=float,
        default=None,
        help="autoscaling target of in-flight requests per replica (default 8)",
    )
    s.add_argument(
        "--max-batch-size",
        type=int,
        default=None,
        help="requests merged into one forward pass (default 32)",
    )
    s.add_argument(
        "--batch-wait-s",
        type=float,
        default=None,
        help="how long a batch waits to fill up, seconds (default 0.005)",
    )
    s.add_argument(
        "--no-batching",
        action="store_true",
        help="one request per forward pass (no @serve.batch)",
    )
    s.add_argument(
        "--model-batch-size", type=int, default=None, help="pairs per forward pass (default 64)"
    )
    s.add_argument("--threads", type=int, default=None, help="torch CPU threads per replica")
    int8 = s.add_mutually_exclusive_group()
    int8.add_argument(
        "--int8",
        action="store_true",
        help="dynamic int8 on the CPU (faster; a pair's scores then depend on the batch it is "
        "merged into); default: full precision",
    )
    int8.add_argument(
        "--static-int8",
        action="store_true",
        help="the packaged model's static int8 graph on ONNX Runtime (faster; scores independent "
        "of batch mates; needs the [onnx-int8] extra)",
    )
    s.add_argument("--num-cpus", type=float, default=None, help="CPUs per replica (default 1)")
    s.add_argument(
        "--num-gpus", type=float, default=None, help="GPUs per replica (default: 1 on cuda)"
    )
    s.add_argument(
        "--host",
        default=None,
        help="HTTP host (default 127.0.0.1: this machine only). 0.0.0.0 accepts any machine "
        "that can reach this one: set a token and put TLS and a firewall in front first",
    )
    s.add_argument("--port", type=int, default=None, help="HTTP port (default 8000)")
    s.add_argument(
        "--token",
        default=None,
        help=f"bearer token every request but /health must carry (default: ${TOKEN_ENV}, "
        "else none; prefer the variable: a flag shows in the process list)",
    )
    s.add_argument(
        "--max-batch-pairs", type=int, default=None, help="pairs per request (default 1024)"
    )
    s.add_argument(
        "--max-text-chars",
        type=int,
        default=None,
        help="characters of one premise or hypothesis (default 10000)",
    )
    s.add_argument(
        "--max-body-bytes",
        type=int,
        default=None,
        help="bytes of one request body; longer ones get 413 (default 4 MiB)",
    )
    s.add_argument("--route-prefix", default=None, help="route prefix (default /nli)")
    s.add_argument("--name", default=None, help="Serve application name (default mirage-nli)")
    s.add_argument(
        "--address",
        default=None,
        help="Ray cluster to join ('auto', 'ray://head:10001'); default: a local instance",
    )
    s.set_defaults(func=_run_serve)


def config_from_args(args: argparse.Namespace) -> ServeConfig:
    """The config file's settings (or the defaults), overridden by the flags given."""
    config = ServeConfig.from_file(args.config) if args.config else ServeConfig()
    changes = {field: getattr(args, flag) for flag, field in _FIELDS.items()}
    changes = {k: v for k, v in changes.items() if v is not None}
    if "token" not in changes and os.environ.get(TOKEN_ENV):
        changes["token"] = os.environ[TOKEN_ENV]
    if args.no_batching:
        changes["batching"] = False
    if args.int8:
        changes["quantize"] = True
    elif args.static_int8:
        changes["quantize"] = "static-int8"
    return config.replace(**changes)


def _run_serve(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    try:
        from mirage_core.serve.app import run
    except ImportError as exc:
        raise SystemExit(
            f"mirage serve needs Ray Serve ({exc}): pip install 'mirage-rag[serve]'"
        ) from None
    say(
        f"mirage serve: deploying {config.model or 'the packaged model'} as {config.name!r} "
        f"({'autoscaling' if config.max_replicas else f'{config.num_replicas} replica(s)'}, "
        f"batching {'on' if config.batching else 'off'}) on {config.host}:{config.port}, "
        f"{'bearer token required' if config.token else 'no token'}; "
        f"client: HTTPNLI({config.url!r})",
        file=sys.stderr,
    )
    if config.host not in ("127.0.0.1", "localhost", "::1") and not config.token:
        say(
            f"mirage serve: warning: listening on {config.host} without a token: any machine "
            f"that reaches port {config.port} can use the model (set --token or {TOKEN_ENV})",
            file=sys.stderr,
        )
    run(config, blocking=True)
    return 0
