"""examples/serve: a local Ray Serve app with two replicas answers requests of several shapes.

Needs the `serve` extra (CI installs it); skipped without Ray Serve.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import disc_ir

serve = pytest.importorskip("ray.serve")
ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[2]
GRAPH = ROOT / "test" / "models" / "layernorm_gelu_dyn.mlir"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _example() -> Any:
    spec = importlib.util.spec_from_file_location(
        "disc_serve_example", ROOT / "examples/serve/app.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    import sys

    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    # replicas get the deployment class by value: they need only disc_ir and ray
    ray.cloudpickle.register_pickle_by_value(module)
    return module


def _post(url: str, body: Any) -> tuple[int, Any]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_two_replicas_answer_several_batch_sizes(tmp_path: Path) -> None:
    exe = disc_ir.compile(GRAPH.read_text(), keep_ir=False)
    artifact = tmp_path / "model.disc"
    exe.save(artifact)
    example = _example()
    port = _free_port()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        serve.run(
            example.app({"artifact": str(artifact), "replicas": "2"}),
            name="disc",
            route_prefix="/model",
        )
        status = serve.status().applications["disc"]
        (deployment,) = status.deployments.values()
        assert deployment.replica_states.get("RUNNING") == 2
        url = f"http://127.0.0.1:{port}/model"
        rng = np.random.default_rng(0)
        for batch in (1, 2, 5, 16, 3, 1, 8, 32):
            args = [
                rng.standard_normal(tuple(batch if d is None else d for d in a.shape)).astype(
                    np.float32
                )
                for a in exe.inputs
            ]
            code, reply = _post(url, {"inputs": [a.tolist() for a in args]})
            assert code == 200, reply
            want = exe(*args)
            assert len(reply["outputs"]) == len(want)
            for got, w in zip(reply["outputs"], want, strict=True):
                got_array = np.asarray(got, dtype=w.dtype)
                assert got_array.shape == w.shape
                assert got_array.tobytes() == w.tobytes()
            assert isinstance(reply["replica"], int)
        code, reply = _post(url, {"inputs": [[1.0, 2.0]]})
        assert code == 400 and "expected" in reply["error"]
    finally:
        serve.shutdown()
        ray.shutdown()
