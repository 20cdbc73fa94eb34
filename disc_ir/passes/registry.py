"""The pass registry: every pass under its BladeDISC / MLIR name.

A pass is an xDSL `ModulePass` dataclass in its own module under
`disc_ir.transforms`, decorated with `@register_pass`. Its `name` is the
command-line name (`disc-fusion`), its dataclass fields are the options, with
`-` in the option name mapped to `_` in the field (`gpu-enabled` ->
`gpu_enabled`). The first docstring line is the summary `--list-passes`
shows; `OPTION_HELP` (a class-level dict) may describe each option.

Registration is lazy: `disc_ir.passes.pass_table.PASS_TABLE` maps each
pass name to the module and class that define it, with its summary and
options, so naming, listing and looking up a pass imports only the module
of the pass asked for (`get_pass`), not every pass module (`all_passes`).
The table is generated from the passes themselves
(`python -m disc_ir.tools.gen_pass_table`; a unit test checks it is
current). A pass that is registered but missing from the table is still
found: a lookup that misses the table imports every pass module once.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib
import pkgutil
from typing import Any, TypeVar

from xdsl.passes import ModulePass

PassClass = type[ModulePass]
_PASSES: dict[str, PassClass] = {}
_LOADED = False

P = TypeVar("P", bound=type[ModulePass])


def register_pass(cls: P) -> P:
    """Class decorator: make `cls` available under `cls.name`."""
    name = cls.name
    if name in _PASSES and _PASSES[name] is not cls:
        raise ValueError(
            f"pass '{name}' registered twice ({_PASSES[name].__module__}, {cls.__module__})"
        )
    _PASSES[name] = cls
    return cls


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import disc_ir.transforms as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"disc_ir.transforms.{info.name}")


def all_passes() -> dict[str, PassClass]:
    """Every registered pass, by name (importing all pass modules once)."""
    _load_all()
    return dict(sorted(_PASSES.items()))


def builtin_passes() -> dict[str, PassClass]:
    """The passes disc-ir itself defines (modules under `disc_ir.transforms`), by name.

    `all_passes` also holds passes registered from elsewhere (plugins loaded
    with `--load-pass-plugin`, tests); the pass table and docs list only these.
    """
    return {
        name: cls
        for name, cls in all_passes().items()
        if cls.__module__.startswith("disc_ir.transforms.")
    }


def get_pass(name: str) -> PassClass | None:
    """The pass class registered as `name`, or None.

    Imports only the module the pass table names for `name`; a name the
    table does not know makes every pass module load (a pass added without
    regenerating the table is still found).
    """
    cls = _PASSES.get(name)
    if cls is not None:
        return cls
    info = _table().get(name)
    if info is not None:
        importlib.import_module(info.module)
        cls = _PASSES.get(name)
        if cls is not None:
            return cls
    _load_all()
    return _PASSES.get(name)


def pass_names() -> list[str]:
    """The names of all passes, sorted, without importing pass modules."""
    return sorted(set(_table()) | set(_PASSES))


def is_pass_name(name: str) -> bool:
    """Whether `name` names a pass (imports pass modules only for a name the table lacks)."""
    return name in _PASSES or name in _table() or get_pass(name) is not None


def closest_pass_names(name: str, n: int = 3) -> list[str]:
    """Up to `n` pass names close to `name` (for 'did you mean' hints)."""
    return difflib.get_close_matches(name, pass_names(), n=n, cutoff=0.5)


@dataclasses.dataclass(frozen=True)
class PassOption:
    """One option of a pass as the command line spells it."""

    name: str  # command-line spelling, dashes
    field_name: str
    type_text: str
    default: Any
    help: str


@dataclasses.dataclass(frozen=True)
class PassInfo:
    """What the command line needs to know of a pass without importing it."""

    name: str
    module: str
    class_name: str
    summary: str
    options: tuple[PassOption, ...]


def _table() -> dict[str, PassInfo]:
    from disc_ir.passes.pass_table import PASS_TABLE

    return PASS_TABLE


def pass_info(name: str) -> PassInfo | None:
    """Name, module, summary and options of pass `name` (from the table when it lists it)."""
    info = _table().get(name)
    if info is not None:
        return info
    cls = get_pass(name)
    return None if cls is None else info_of(cls)


def pass_infos() -> list[PassInfo]:
    """`pass_info` of every pass, sorted by name, without importing pass modules."""
    return [i for i in (pass_info(n) for n in pass_names()) if i is not None]


def info_of(cls: PassClass) -> PassInfo:
    """The `PassInfo` of a loaded pass class (what the pass table records)."""
    return PassInfo(
        cls.name, cls.__module__, cls.__name__, pass_summary(cls), tuple(pass_options(cls))
    )


def pass_summary(cls: PassClass) -> str:
    doc = (cls.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


def pass_options(cls: PassClass) -> list[PassOption]:
    helps: dict[str, str] = getattr(cls, "OPTION_HELP", {})
    out = []
    hints = _type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init or f.name == "name":
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        cli = f.name.replace("_", "-")
        out.append(
            PassOption(cli, f.name, _type_text(hints.get(f.name)), default, helps.get(cli, ""))
        )
    return out


def _type_hints(cls: type) -> dict[str, Any]:
    try:
        return type_hints(cls)
    except Exception:  # noqa: BLE001 - unresolvable annotations: show none
        return {}


@functools.cache
def type_hints(cls: type) -> dict[str, Any]:
    """`typing.get_type_hints(cls)`, evaluated once per class (a pipeline
    builds its passes on every compile, and evaluating annotations is slow
    next to a small graph's compile). Do not mutate."""
    import typing

    return typing.get_type_hints(cls)


def _type_text(t: Any) -> str:
    if t is None:
        return "?"
    if isinstance(t, type):
        return t.__name__
    return str(t).replace("typing.", "")
