"""ServeConfig and the ``mirage serve`` flags (no Ray instance needed)."""

from __future__ import annotations

import json

import pytest

from mirage_core.cli import build_parser
from mirage_core.errors import DuplicateKeyError
from mirage_core.serve import ServeConfig
from mirage_core.serve.cli import config_from_args


def test_fixed_replicas_or_autoscaling() -> None:
    fixed = ServeConfig(num_replicas=3).deployment_options()
    assert fixed["num_replicas"] == 3 and "autoscaling_config" not in fixed
    auto = ServeConfig(
        min_replicas=0, max_replicas=4, target_ongoing_requests=2
    ).deployment_options()
    assert "num_replicas" not in auto
    assert auto["autoscaling_config"] == {
        "min_replicas": 0,
        "max_replicas": 4,
        "target_ongoing_requests": 2,
    }


@pytest.mark.parametrize(
    ("device", "num_gpus", "expected"),
    [("cpu", None, 0.0), ("auto", None, 0.0), ("cuda", None, 1.0), ("cuda:0", 0.5, 0.5)],
)
def test_gpus_follow_the_device(device, num_gpus, expected) -> None:
    options = ServeConfig(device=device, num_gpus=num_gpus).deployment_options()
    assert options["ray_actor_options"]["num_gpus"] == expected


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_replicas": 0},
        {"max_batch_size": 0},
        {"min_replicas": 2},
        {"min_replicas": 3, "max_replicas": 2},
        {"route_prefix": "nli"},
        {"port": 0},
        {"batch_wait_timeout_s": -1},
        {"batch_wait_timeout_s": float("nan")},
        {"num_cpus": float("nan")},
        {"target_ongoing_requests": -1},
        {"min_replicas": 0, "max_replicas": 0},
        {"port": "8000"},
    ],
)
def test_invalid_settings_are_refused(kwargs) -> None:
    with pytest.raises(ValueError):
        ServeConfig(**kwargs)


def test_url_is_what_clients_call() -> None:
    assert ServeConfig(host="0.0.0.0", port=9000).url == "http://127.0.0.1:9000/nli"
    assert ServeConfig(route_prefix="/").url == "http://127.0.0.1:8000"
    assert ServeConfig(host="::1").url == "http://[::1]:8000/nli"  # IPv6 in brackets


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_flags_override_the_config_file(tmp_path, suffix) -> None:
    path = tmp_path / f"serve{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps({"max_replicas": 4, "max_batch_size": 16, "device": "cuda"}))
    else:
        path.write_text('max_replicas = 4\nmax_batch_size = 16\ndevice = "cuda"\n')
    args = build_parser().parse_args(
        ["serve", "--config", str(path), "--max-batch-size", "8", "--no-batching", "--port", "9"]
    )
    config = config_from_args(args)
    assert (config.max_replicas, config.device) == (4, "cuda")  # from the file
    assert (config.max_batch_size, config.batching, config.port) == (8, False, 9)  # flags
    assert config.quantize is False  # full precision unless --int8
    assert config_from_args(build_parser().parse_args(["serve", "--int8"])).quantize is True
    static = config_from_args(build_parser().parse_args(["serve", "--static-int8"]))
    assert static.quantize == "static-int8"
    assert static.backend_kwargs()["quantize"] == "static-int8"
    with pytest.raises(SystemExit):  # one int8 or the other
        build_parser().parse_args(["serve", "--int8", "--static-int8"])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"quantize": "int4"}, "quantize must be"),
        ({"quantize": "static-int8", "device": "cuda"}, "runs on the CPU"),
    ],
)
def test_quantize_values_are_checked(changes, message) -> None:
    with pytest.raises(ValueError, match=message):
        ServeConfig(**changes)


def test_unknown_fields_in_a_file_are_refused(tmp_path) -> None:
    path = tmp_path / "serve.json"
    path.write_text(json.dumps({"replicas": 2}))
    with pytest.raises(ValueError, match="unknown ServeConfig fields"):
        ServeConfig.from_file(path)


def test_a_key_given_twice_in_a_file_is_refused(tmp_path) -> None:
    path = tmp_path / "serve.json"
    path.write_text('{"port": 8000, "num_replicas": 2, "port": 9000}')
    with pytest.raises(DuplicateKeyError, match=r"serve\.json: duplicate key 'port'"):
        ServeConfig.from_file(path)
    toml = tmp_path / "serve.toml"
    toml.write_text("port = 8000\nport = 9000\n")
    with pytest.raises(ValueError, match=r"serve\.toml: not valid toml"):
        ServeConfig.from_file(toml)


def test_mirage_serve_deploys_the_configuration_and_blocks(monkeypatch, capsys) -> None:
    import mirage_core.serve.app as app
    from mirage_core.cli import main

    calls = []
    monkeypatch.setattr(app, "run", lambda config, blocking: calls.append((config, blocking)))
    assert main(["serve", "--replicas", "2", "--no-batching", "--port", "8123"]) == 0
    [(config, blocking)] = calls
    assert blocking and config.num_replicas == 2 and not config.batching
    assert "HTTPNLI('http://127.0.0.1:8123/nli')" in capsys.readouterr().err
