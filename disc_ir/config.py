"""Every environment switch disc-ir reads, declared once, with typed accessors.

Each switch is a `Switch` in `SWITCHES`: its name, type, default, a line of
documentation and where the name comes from (most are BladeDISC's own, read
by the BladeDISC source file named there, with the same default). The table
of switches in `docs/guide.md` is generated from these declarations
(`python -m disc_ir.tools.config_docs`).

Reading:

* `flag(name)` (bool), `get_int(name)` / `get_optional_int(name)`,
  `get_float(name)`, `get_str(name)` (str, path and choice switches), or
  `get(name)` for any type. Reading a name not declared here raises
  `KeyError`; asking a switch for another type than its own raises
  `TypeError` (both are programming errors).
* Values are read from the environment on every call, so a RUN line's
  `DISC_ENABLE_SHAPE_CONSTRAINT_IR=0 disc-opt ...` and a test's
  monkeypatched environment both take effect.
* An unset or empty variable gives the declared default. Booleans accept
  `1/true/on/yes` and `0/false/off/no` (any case).
* An invalid value (`DISC_REDUCTION_TILE_SIZE=banana`) never stops a
  compilation: it gives a `DiscConfigWarning` naming the variable, the value
  and what is expected, once per process for each variable and value, and
  the declared default is used.
* A `DISC_*` variable in the environment that is not declared here (a typo
  such as `DISC_ENABLE_STICH`) gives one `DiscConfigWarning` per process,
  naming the closest declared switch, at the first read of any switch or
  when `disc-opt`, `disc-compile` or `disc_ir.compile` starts
  (`warn_unknown_switches`).

This module imports neither xDSL nor the compiler: the runtime
(`disc_ir.runtime`) reads its switches through it too.
"""

from __future__ import annotations

import difflib
import os
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

#: the types a switch can have: `path` is a file-system path, `choice` one of `choices`
SwitchType = Literal["bool", "int", "float", "str", "path", "choice"]
SwitchValue = bool | int | float | str | None

#: variables of this prefix that are not declared are reported as likely typos
PREFIX = "DISC_"

_TRUE = frozenset({"1", "true", "on", "yes"})
_FALSE = frozenset({"0", "false", "off", "no"})

_BLADEDISC_UTIL = "BladeDISC `tao_compiler/mlir/disc/disc_util.cc`"
_BLADEDISC_FUSION_UTILS = "BladeDISC `tao_compiler/mlir/disc/transforms/fusion_utils.cc`"
_BLADEDISC_LHLO_FUSION = "BladeDISC `tao_compiler/mlir/disc/transforms/lhlo_fusion.cc`"
_BLADEDISC_RAL_CPU = "BladeDISC `tao_compiler/mlir/ral/context/common_context_impl.cc`"
_DISC_IR = "disc-ir's own"


class DiscConfigWarning(UserWarning):
    """An environment variable disc-ir cannot use as given (unknown name, invalid value)."""


@dataclass(frozen=True)
class Switch:
    """One environment switch: what it is called, its type and default, what it does."""

    name: str
    type: SwitchType
    #: the value when the variable is unset or empty (None: "not set", for optional switches)
    default: SwitchValue
    #: one line: what the switch changes
    doc: str
    #: where the name comes from: the BladeDISC source file that reads it, or disc-ir's own
    origin: str = _DISC_IR
    #: the accepted values of a `choice` switch
    choices: tuple[str, ...] = ()

    def expected(self) -> str:
        """What a valid value looks like, for error messages and the docs."""
        if self.type == "bool":
            return "a boolean (1/true/on/yes or 0/false/off/no)"
        if self.type == "int":
            return "an integer"
        if self.type == "float":
            return "a number"
        if self.type == "choice":
            return "one of " + ", ".join(self.choices)
        if self.type == "path":
            return "a path"
        return "a string"

    def parse(self, raw: str) -> SwitchValue:
        """The value of `raw` (non-empty) for this switch; ValueError when it is invalid."""
        text = raw.strip()
        if self.type == "bool":
            lowered = text.lower()
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
            raise ValueError(raw)
        if self.type == "int":
            return int(text)
        if self.type == "float":
            return float(text)
        if self.type == "choice":
            if text not in self.choices:
                raise ValueError(raw)
            return text
        return raw


_DECLARATIONS: tuple[Switch, ...] = (
    # -- compiler: fusion and code generation ------------------------------------------
    Switch(
        "DISC_ENABLE_SHAPE_CONSTRAINT_IR",
        "bool",
        True,
        "shape analysis and fusion read the shape-constraint IR (symbolic dimensions); the "
        "pipeline adds `disc-convert-shape-to-std` and `disc-strip-shape-constraint-ops`",
        _BLADEDISC_UTIL,
    ),
    Switch(
        "DISC_ENABLE_HORIZONTAL_FUSION",
        "bool",
        True,
        "`disc-fusion` also tries to merge unconnected clusters pairwise (horizontal fusion)",
        _BLADEDISC_UTIL,
    ),
    Switch(
        "DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL",
        "bool",
        True,
        "memory-intensive optimizations: speculation's row-reduction and vectorized versions, "
        "kStitch loop tiling and collapsing, folding `sqrt` of broadcast constants",
        _BLADEDISC_UTIL,
    ),
    Switch(
        "DISC_ENABLE_STITCH",
        "bool",
        True,
        "the pipeline's fusion strategy is `stitch` (a softmax or layer norm in one kernel); "
        "0 gives `base`",
        _BLADEDISC_UTIL,
    ),
    Switch(
        "DISC_ENABLE_COMPUTE_INTENSIVE_FUSE",
        "bool",
        False,
        "`disc-fusion`'s GPU stitch pipeline starts with the `pre_dot` and `dot` stages",
        _BLADEDISC_UTIL,
    ),
    Switch(
        "DISC_ENABLE_TRANSFORM_SCHEDULE",
        "bool",
        False,
        "`disc-fusion`'s stitch pipeline ends with the transform-based stage (GEMMs with "
        "their weights and epilogues), as `mlir-compute-intensive-codegen`",
        _BLADEDISC_UTIL,
    ),
    Switch(
        "DISC_ENABLE_TRANSFORM_GEMM_EPILOGUE_FUSION",
        "bool",
        True,
        "the transform-based CPU strategy fuses elementwise/broadcast epilogues into GEMMs; "
        "0 fuses GEMMs with their constant weights only",
        _BLADEDISC_UTIL,
    ),
    Switch(
        "DISC_CPU_ENABLE_EAGER_TRANSPOSE_FUSION",
        "bool",
        False,
        "CPU fusion also fuses transposes that move the innermost dimension",
        _BLADEDISC_FUSION_UTILS,
    ),
    Switch(
        "DISC_CPU_LARGE_CONCAT_NUM_OPERANDS",
        "int",
        32,
        "a concatenate with at least this many operands gets its own CPU schedule (kLargeConcat)",
        _BLADEDISC_FUSION_UTILS,
    ),
    Switch(
        "DISC_REDUCTION_TILE_SIZE",
        "int",
        128,
        "tile of the CPU column-reduction schedule (<= 0: the whole innermost dimension)",
        "BladeDISC `tao_compiler/mlir/disc/transforms/codegen_utils.cc`",
    ),
    Switch(
        "DISC_SHARE_FUSION_LOWERING",
        "bool",
        True,
        "`disc_ir.compile` on the CPU lowers one fusion of each identical set and copies its "
        "code to the others",
    ),
    Switch(
        "DISC_CUDA_CC",
        "str",
        None,
        "compute capability of the `cuda` target: `90`, `9.0` or `sm_90` (anything else is "
        "an error); unset: the first CUDA device's, else sm_80",
    ),
    Switch(
        "DISC_PTXAS",
        "path",
        None,
        "the `ptxas` to assemble PTX with (unset: `ptxas` on PATH)",
    ),
    # -- compiler: testing and debugging ---------------------------------------------
    Switch(
        "DISC_EXPECTED_KERNELS_IN_UT",
        "int",
        None,
        "`disc-fusion` fails unless it made exactly this many fusions (negative: no check)",
        _BLADEDISC_LHLO_FUSION,
    ),
    Switch(
        "DISC_DEBUG_MAX_FUSION_NUMBER",
        "int",
        None,
        "`disc-fusion` applies only its first N fusions",
        _BLADEDISC_LHLO_FUSION,
    ),
    Switch(
        "DISC_IR_DEBUG",
        "bool",
        False,
        "`disc-opt` and `disc-compile` show the Python traceback of an internal error",
    ),
    # -- compile cache ---------------------------------------------------------------
    Switch(
        "DISC_CACHE_DIR",
        "path",
        None,
        "the persistent compile cache's directory when `compile` is not given `cache_dir` "
        "(unset: no cache)",
    ),
    Switch(
        "DISC_CACHE_MAX_BYTES",
        "int",
        2 << 30,
        "the persistent compile cache's size bound: the least recently used artifacts are "
        "removed beyond it",
    ),
    # -- runtime ---------------------------------------------------------------------
    Switch(
        "DISC_RAL_NATIVE",
        "bool",
        True,
        "RAL calls go through the native dispatcher; 0 uses the pure-Python one",
    ),
    Switch(
        "DISC_CPU_HUGE_PAGES",
        "bool",
        False,
        "keep numpy's transparent-huge-page request on large CPU RAL buffers",
    ),
    Switch(
        "DISC_MIN_NUM_UNIT_PER_CORE",
        "int",
        1,
        "CPU kernel launches give each thread at least this many work units (values < 1: 1)",
        _BLADEDISC_RAL_CPU,
    ),
    Switch(
        "OMP_NUM_THREADS",
        "int",
        None,
        "CPU kernel-launch threads when `compile` is not given `num_threads` "
        "(unset or < 1: the number of cores)",
        "OpenMP's, as " + _BLADEDISC_RAL_CPU + " reads it",
    ),
    Switch(
        "CUDA_HOME",
        "path",
        None,
        "a CUDA toolkit whose libraries the CUDA driver may load",
        "the CUDA toolkit's",
    ),
    Switch(
        "CUDA_PATH",
        "path",
        None,
        "as `CUDA_HOME` (searched after it)",
        "the CUDA toolkit's",
    ),
)

#: every declared switch by name
SWITCHES: dict[str, Switch] = {s.name: s for s in _DECLARATIONS}

_LOCK = threading.Lock()
_unknown_checked = False
_warned_invalid: set[tuple[str, str]] = set()


def declared(name: str) -> Switch:
    """The declaration of switch `name`; KeyError when it is not declared here."""
    try:
        return SWITCHES[name]
    except KeyError:
        raise KeyError(
            f"{name} is not a declared disc-ir switch: declare it in disc_ir/config.py"
        ) from None


def _read(name: str) -> tuple[Switch, SwitchValue]:
    switch = declared(name)
    warn_unknown_switches()
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return switch, switch.default
    try:
        return switch, switch.parse(raw)
    except ValueError:
        key = (name, raw)
        with _LOCK:
            first = key not in _warned_invalid
            _warned_invalid.add(key)
        if first:
            warnings.warn(
                f"{name}={raw!r} is not valid: expected {switch.expected()}; "
                f"using the default ({_default_text(switch)})",
                DiscConfigWarning,
                stacklevel=4,
            )
        return switch, switch.default


def _default_text(switch: Switch) -> str:
    if switch.default is None:
        return "unset"
    if isinstance(switch.default, bool):
        return "1" if switch.default else "0"
    return str(switch.default)


def _typed(name: str, *types: SwitchType) -> SwitchValue:
    switch = declared(name)
    if switch.type not in types:
        raise TypeError(f"{name} is a {switch.type} switch, not {' / '.join(types)}")
    return _read(name)[1]


def get(name: str) -> SwitchValue:
    """The value of switch `name`, of its declared type (its default when unset or invalid)."""
    return _read(name)[1]


def flag(name: str) -> bool:
    """The value of boolean switch `name`."""
    value = _typed(name, "bool")
    assert isinstance(value, bool)
    return value


def get_int(name: str) -> int:
    """The value of integer switch `name`, which has an integer default."""
    value = _typed(name, "int")
    if not isinstance(value, int):
        raise TypeError(f"{name} has no default: read it with get_optional_int")
    return value


def get_optional_int(name: str) -> int | None:
    """The value of integer switch `name`, None when it is unset (or invalid) and has no default."""
    value = _typed(name, "int")
    assert value is None or isinstance(value, int)
    return value


def get_float(name: str) -> float:
    """The value of number switch `name`."""
    value = _typed(name, "float")
    assert isinstance(value, float)
    return value


def get_str(name: str) -> str | None:
    """The value of str, path or choice switch `name` (None when unset and without default)."""
    value = _typed(name, "str", "path", "choice")
    assert value is None or isinstance(value, str)
    return value


def is_set(name: str) -> bool:
    """Whether switch `name` is set to a non-empty value in the environment."""
    declared(name)
    warn_unknown_switches()
    return bool(os.environ.get(name, "").strip())


def shape_constraint_ir_enabled() -> bool:
    """`DISC_ENABLE_SHAPE_CONSTRAINT_IR`, on by default."""
    return flag("DISC_ENABLE_SHAPE_CONSTRAINT_IR")


def unknown_switches(environ: Mapping[str, str] | None = None) -> list[str]:
    """The `DISC_*` variables of `environ` (default: the process's) that are not declared."""
    env = os.environ if environ is None else environ
    return sorted(k for k in env if k.startswith(PREFIX) and k not in SWITCHES)


def unknown_switch_message(name: str) -> str:
    """The warning for an undeclared `DISC_*` variable, naming the closest declared switch."""
    close = difflib.get_close_matches(name, SWITCHES, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}?" if close else "see the switches in docs/guide.md"
    return f"{name} is not a disc-ir switch; {hint}"


def warn_unknown_switches() -> None:
    """Warn (`DiscConfigWarning`) about each undeclared `DISC_*` variable, once per process."""
    global _unknown_checked
    if _unknown_checked:
        return
    with _LOCK:
        if _unknown_checked:
            return
        _unknown_checked = True
    for name in unknown_switches():
        warnings.warn(unknown_switch_message(name), DiscConfigWarning, stacklevel=2)


__all__ = [
    "PREFIX",
    "SWITCHES",
    "DiscConfigWarning",
    "Switch",
    "SwitchType",
    "declared",
    "flag",
    "get",
    "get_float",
    "get_int",
    "get_optional_int",
    "get_str",
    "is_set",
    "shape_constraint_ir_enabled",
    "unknown_switch_message",
    "unknown_switches",
    "warn_unknown_switches",
]
