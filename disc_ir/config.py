"""BladeDISC's environment switches, read where a pass's behaviour depends on them.

Names and defaults follow BladeDISC (`tao_compiler/mlir/disc/disc_util.cc` and
the passes that read them). Values are read on each call, so a RUN line's
`DISC_ENABLE_SHAPE_CONSTRAINT_IR=0 disc-opt ...` and a test's monkeypatched
environment both take effect.
"""

from __future__ import annotations

import os

_TRUE = {"1", "true", "on", "yes"}
_FALSE = {"0", "false", "off", "no"}

# switch -> default
SWITCHES: dict[str, bool] = {
    "DISC_ENABLE_SHAPE_CONSTRAINT_IR": True,
    "DISC_ENABLE_HORIZONTAL_FUSION": True,
    "DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL": True,
    "DISC_ENABLE_COMPUTE_INTENSIVE_FUSE": False,
    "DISC_ENABLE_TRANSFORM_SCHEDULE": False,
    "DISC_ENABLE_STITCH": True,
}


def env_flag(name: str, default: bool | None = None) -> bool:
    """The boolean value of environment switch `name` (BladeDISC's default if unset)."""
    if default is None:
        default = SWITCHES.get(name, False)
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    return default


def shape_constraint_ir_enabled() -> bool:
    """`DISC_ENABLE_SHAPE_CONSTRAINT_IR`, on by default."""
    return env_flag("DISC_ENABLE_SHAPE_CONSTRAINT_IR")
