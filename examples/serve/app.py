"""Serving a `model.disc` artifact with Ray Serve (the `serve` extra).

    disc-compile test/models/mlp_dyn.mlir -o model.disc
    serve run examples.serve.app:app artifact=model.disc replicas=2

Each replica loads the artifact with `disc_ir.runtime.load` (no compiler in
the replica: linking the stored machine code takes milliseconds) and answers
``POST /`` with a JSON body ``{"inputs": [array, ...]}`` (one nested list per
input, in order, or ``{"inputs": {"name": array, ...}}``) of any batch size
the graph's dynamic dimensions allow. The reply is
``{"outputs": [array, ...], "shapes": [[...], ...], "replica": pid}``; an input
the graph does not accept is answered with status 400 and the runtime's
message.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from ray import serve
from ray.serve import Application
from starlette.requests import Request
from starlette.responses import JSONResponse


@serve.deployment(ray_actor_options={"num_cpus": 0})
class DiscModel:
    """One replica: the artifact loaded once, called for every request."""

    def __init__(self, artifact: str, device: str = "cpu") -> None:
        from disc_ir.runtime import load

        self.module = load(artifact, device=device)
        shapes, dtypes = self.module.get_input_info()
        self.names = list(shapes)
        self.dtypes = [np.dtype(dtypes[n]) for n in self.names]

    def _arrays(self, inputs: Any) -> list[np.ndarray]:
        if isinstance(inputs, dict):
            unknown = sorted(set(inputs) - set(self.names))
            if unknown:
                raise KeyError(f"unknown inputs {unknown} (inputs: {self.names})")
            inputs = [inputs.get(n) for n in self.names]
        if not isinstance(inputs, list) or len(inputs) != len(self.names):
            raise ValueError(f"expected {len(self.names)} inputs ({', '.join(self.names)})")
        return [np.asarray(v, dtype=d) for v, d in zip(inputs, self.dtypes, strict=True)]

    async def __call__(self, request: Request) -> Any:
        try:
            body = await request.json()
            arrays = self._arrays(body["inputs"])
            outputs = self.module(*arrays)
        except (ValueError, KeyError, TypeError) as exc:  # RalInputError is a ValueError
            return JSONResponse({"error": str(exc)}, status_code=400)
        return {
            "outputs": [o.tolist() for o in outputs],
            "shapes": [list(o.shape) for o in outputs],
            "replica": os.getpid(),
        }


def app(args: dict[str, str]) -> Application:
    """The application `serve run examples.serve.app:app artifact=... [replicas=N] [device=...]` builds."""
    if "artifact" not in args:
        raise ValueError("give the artifact: serve run examples.serve.app:app artifact=model.disc")
    replicas = int(args.get("replicas", "2"))
    return DiscModel.options(num_replicas=replicas).bind(
        args["artifact"], args.get("device", "cpu")
    )
