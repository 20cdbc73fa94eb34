"""Session-wide test settings.

The tests hold disc-ir to XLA's CPU backend: jax runs on the CPU even on a
machine with a GPU (there, XLA's GPU backend applies repeated `.at[].set`
indices in another order and computes f32 dots in TF32), unless
``JAX_PLATFORMS`` is already set.
"""

from __future__ import annotations

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
