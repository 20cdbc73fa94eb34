"""The pass registry: every pass under its BladeDISC / MLIR name.

A pass is an xDSL `ModulePass` dataclass in its own module under
`disc_ir.transforms`, decorated with `@register_pass`. Its `name` is the
command-line name (`disc-fusion`), its dataclass fields are the options, with
`-` in the option name mapped to `_` in the field (`gpu-enabled` ->
`gpu_enabled`). The first docstring line is the summary `--list-passes`
shows; `OPTION_HELP` (a class-level dict) may describe each option.
"""

from __future__ import annotations

import dataclasses
import difflib
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
        if info.name not in ("registry",) and not info.name.startswith("_"):
            importlib.import_module(f"disc_ir.transforms.{info.name}")


def all_passes() -> dict[str, PassClass]:
    """Every registered pass, by name (importing all pass modules once)."""
    _load_all()
    return dict(sorted(_PASSES.items()))


def get_pass(name: str) -> PassClass | None:
    return all_passes().get(name)


def closest_pass_names(name: str, n: int = 3) -> list[str]:
    return difflib.get_close_matches(name, list(all_passes()), n=n, cutoff=0.5)


@dataclasses.dataclass(frozen=True)
class PassOption:
    """One option of a pass as the command line spells it."""

    name: str  # command-line spelling, dashes
    field_name: str
    type_text: str
    default: Any
    help: str


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
        if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            default = f.default_factory()  # type: ignore[misc]
        cli = f.name.replace("_", "-")
        out.append(
            PassOption(cli, f.name, _type_text(hints.get(f.name)), default, helps.get(cli, ""))
        )
    return out


def _type_hints(cls: type) -> dict[str, Any]:
    import typing

    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - unresolvable annotations: show none
        return {}


def _type_text(t: Any) -> str:
    if t is None:
        return "?"
    if isinstance(t, type):
        return t.__name__
    return str(t).replace("typing.", "")
