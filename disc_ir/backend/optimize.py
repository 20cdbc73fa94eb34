"""LLVM's optimization pipelines over parsed modules.

`optimize_llvm_ir(text, opt_level=3)` / `optimize_module(mod, tm)`: LLVM's
default `O<n>` pipeline (new pass manager, loop and SLP vectorization on) for
the host CPU name and features, so loops vectorize with the widest vectors the
host has. `optimize_split` / `optimize_parts`: the module split into its
kernels, optimized at `O<n>`, and its `host_functions` (the entry `main`: RAL
calls and argument packing, growing with the graph), which get a cheap
function pipeline instead (O3's cost grows superlinearly with a function's
size).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import llvmlite.binding as llvm_binding

from disc_ir.backend.target import host_target_machine, parse_llvm_ir
from disc_ir.runtime.abi import HOST_GLUE_PREFIX


def optimize_module(
    mod: Any, target_machine: Any, opt_level: int = 3, loop_unrolling: bool = False
) -> None:
    """Runs LLVM's default `O<opt_level>` module pipeline in place: the loop and
    SLP vectorizers on, vector loops interleaved; the separate loop unroller
    off unless `loop_unrolling`. The kernels' hot loops are vectorized and
    interleaved either way; unrolling what remains (remainder and scalar
    loops) gains no runtime on the zoo's memory-bound graphs and doubles
    the machine code LLVM has to emit for them."""
    if opt_level <= 0:
        return
    pto = llvm_binding.create_pipeline_tuning_options(speed_level=opt_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = loop_unrolling
    pto.loop_interleaving = True
    pb = llvm_binding.create_pass_builder(target_machine, pto)
    pm = pb.getModulePassManager()
    pm.run(mod, pb)


def optimize_llvm_ir(text: str, opt_level: int = 3) -> str:
    """`text` optimized for the host at `O<opt_level>`, as LLVM IR text."""
    tm = host_target_machine(opt_level)
    mod = parse_llvm_ir(text)
    optimize_module(mod, tm, opt_level)
    return str(mod)


_DEFINE_NAME = re.compile(r'@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(')


def _is_host(name: str, host: Collection[str]) -> bool:
    """`name` is one of `host`, or host glue the RAL lowering outlined."""
    return name in host or name.startswith(HOST_GLUE_PREFIX)


_LOCAL_LINKAGE_WORDS = ("internal", "private")


def _split_host_functions(mod: Any, host: Collection[str]) -> tuple[str, str] | None:
    """`mod` (a parsed module or its LLVM IR text) as two LLVM IR texts: every
    definition but the `host` functions, and the `host` functions (each
    declaring what the other defines). Text is split line by line, without
    parsing it first.

    None when there is nothing to split or a definition the host part would
    need to declare has local linkage.
    """
    text = mod if isinstance(mod, str) else str(mod)
    lines = text.split("\n")
    defines: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        if line.startswith("define "):
            match = _DEFINE_NAME.search(line)
            if match is None:
                return None
            if line.split(" ", 2)[1] in _LOCAL_LINKAGE_WORDS:
                return None
            defines.append((i, match.group(1).strip('"')))
    hosts = [n for _, n in defines if _is_host(n, host)]
    if not hosts or len(hosts) == len(defines):
        return None
    owners = {i: (1 if _is_host(name, host) else 0) for i, name in defines}
    parts: tuple[list[str], list[str]] = ([], [])
    skip = -1  # the part that skips the body being read (-1: none)
    for i, line in enumerate(lines):
        if skip >= 0:
            parts[1 - skip].append(line)
            if line == "}":
                skip = -1
            continue
        owner = owners.get(i)
        if owner is not None:  # 0: kernels part, 1: host part
            header = line[:-1].rstrip() if line.endswith("{") else line
            parts[owner].append(line)
            parts[1 - owner].append("declare" + header[len("define") :])
            skip = 1 - owner
            if line.endswith("}"):  # a one-line body
                skip = -1
            continue
        parts[0].append(line)
        parts[1].append(line)
    return "\n".join(parts[0]), "\n".join(parts[1])


def optimize_host_module(mod: Any, target_machine: Any) -> None:
    """A cheap function pipeline (SROA, instcombine, simplifycfg) for host glue code:
    straight-line RAL calls whose argument packing grows with the graph, where LLVM's
    O3 pipeline costs time superlinear in the function's size for no runtime gain."""
    pto = llvm_binding.create_pipeline_tuning_options(speed_level=1)
    pb = llvm_binding.create_pass_builder(target_machine, pto)
    fpm = llvm_binding.create_new_function_pass_manager()
    fpm.add_sroa_pass()
    fpm.add_instruction_combine_pass()
    fpm.add_simplify_cfg_pass()
    for f in mod.functions:
        if not f.is_declaration:
            fpm.run(f, pb)


def optimize_split(
    mod: Any, target_machine: Any, opt_level: int = 3, host: Collection[str] = ()
) -> Any:
    """`mod` optimized at `O<opt_level>`, except the `host` functions, which get
    `optimize_host_module`'s cheap pipeline; returns the (re-linked) module.

    Without host functions to split off, the whole module is optimized in place.
    """
    parts = optimize_parts(mod, target_machine, opt_level, host)
    if len(parts) == 1:
        return parts[0]
    kernels, host_part = parts
    kernels.link_in(host_part)
    return kernels


def optimize_parts(
    mod: Any, target_machine: Any, opt_level: int = 3, host: Collection[str] = ()
) -> list[Any]:
    """`mod` (a parsed module, or LLVM IR text: split before it is parsed)
    optimized as `optimize_split` does, left in its parts: `[kernels, host]`
    when the `host` functions were split off, else `[mod]` (parsed)."""
    split = _split_host_functions(mod, host) if host and opt_level > 0 else None
    if split is None:
        if isinstance(mod, str):
            mod = parse_llvm_ir(mod)
        optimize_module(mod, target_machine, opt_level)
        return [mod]
    kernels, host_part = (parse_llvm_ir(text) for text in split)
    optimize_module(kernels, target_machine, opt_level)
    optimize_host_module(host_part, target_machine)
    return [kernels, host_part]
