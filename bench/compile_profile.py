"""Where one disc-ir compile spends its time: per pass, per rewrite pattern, LLVM, GC.

    python -m bench.compile_profile bert_encoder_12            # the zoo / encoder model
    python -m bench.compile_profile path/to/graph.mlir --top 20

`compile_profile(text)` compiles `text` for the CPU once, as `disc_ir.compile`
does (kernels compiled ahead on a worker thread, IR verification off), while
recording:

- `passes`: wall seconds per registered pass name (summed over its runs, with
  the number of runs), from the pipeline's `after_pass` hook;
- `patterns`: exclusive wall seconds per rewrite pattern class (every
  `RewritePattern` subclass's `match_and_rewrite`, whatever driver applies
  it, timed while this profile runs and restored afterwards), with the number
  of calls;
- `llvm`: the LLVM work, timed again alone after the compile: the kernels'
  O3 optimization and object emission (on the worker thread during the
  compile, overlapped with host lowering), the host module's JIT (`jit`),
  and the llvm-dialect to LLVM IR translation (`translate`);
- `gc`: the cyclic garbage collector's seconds and collections during the
  compile (the pipeline runs with it off and collects once at the end);
- `phases`: the compile's own phase times.

The pattern timers add a little overhead to the compile they watch; the
encoder section times its compiles without them.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def _pattern_classes() -> list[type]:
    from xdsl.pattern_rewriter import RewritePattern

    seen: list[type] = []
    stack = [RewritePattern]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.append(sub)
                stack.append(sub)
    return seen


@contextmanager
def _timed_patterns(table: dict[str, list[float]]) -> Iterator[None]:
    """Times every `match_and_rewrite` defined by a RewritePattern subclass
    (exclusive of nested pattern calls) into `table[qualname] = [s, calls]`."""
    from disc_ir.passes.registry import all_passes

    all_passes()  # every pass module, hence every pattern class, is loaded before patching
    stack: list[float] = []  # per active call: seconds spent in nested calls
    patched: list[tuple[type, Callable[..., Any]]] = []

    def wrap(cls: type, fn: Callable[..., Any]) -> Callable[..., Any]:
        label = f"{cls.__module__.rsplit('.', 1)[-1]}.{cls.__qualname__}"

        def timed(self: Any, op: Any, rewriter: Any, /) -> Any:
            stack.append(0.0)
            t0 = time.perf_counter()
            try:
                return fn(self, op, rewriter)
            finally:
                dt = time.perf_counter() - t0
                nested = stack.pop()
                if stack:
                    stack[-1] += dt
                entry = table.setdefault(label, [0.0, 0])
                entry[0] += dt - nested
                entry[1] += 1

        return timed

    for cls in _pattern_classes():
        fn = cls.__dict__.get("match_and_rewrite")
        if fn is None or getattr(fn, "__isabstractmethod__", False):
            continue
        patched.append((cls, fn))
        cls.match_and_rewrite = wrap(cls, fn)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for cls, fn in patched:
            cls.match_and_rewrite = fn  # type: ignore[attr-defined]


@contextmanager
def _timed_gc(out: dict[str, float]) -> Iterator[None]:
    start = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            start[0] = time.perf_counter()
        else:
            out["seconds"] += time.perf_counter() - start[0]
            out["collections"] += 1

    out.update(seconds=0.0, collections=0)
    gc.callbacks.append(callback)
    try:
        yield
    finally:
        gc.callbacks.remove(callback)


def _top(table: dict[str, list[float]], top: int) -> list[dict[str, Any]]:
    rows = sorted(table.items(), key=lambda kv: -kv[1][0])
    return [{"name": k, "seconds": round(v[0], 4), "count": int(v[1])} for k, v in rows[:top]]


def compile_profile(text: str, *, top: int = 15) -> dict[str, Any]:
    """The profile of one CPU compile of MHLO / StableHLO `text` (see the module doc)."""
    from disc_ir.api import lower_to_llvm_ir
    from disc_ir.backend.jit import HostJit, jit_target_machine
    from disc_ir.backend.optimize import optimize_module
    from disc_ir.backend.target import parse_llvm_ir

    passes: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    patterns: dict[str, list[float]] = {}
    gc_stats: dict[str, float] = {}

    def after_pass(p: Any, _module: Any, seconds: float) -> None:
        entry = passes[p.name]
        entry[0] += seconds
        entry[1] += 1

    t0 = time.perf_counter()
    with _timed_gc(gc_stats), _timed_patterns(patterns):
        lowered = lower_to_llvm_ir(
            text, "cpu", keep_ir=False, after_pass=after_pass, compile_kernels_ahead=True
        )
        t1 = time.perf_counter()
        jit = HostJit(
            lowered.llvm_ir, opt_level=3, host_functions=("main",), kernels=lowered.kernels
        )
        jit_s = time.perf_counter() - t1
    total = time.perf_counter() - t0
    del jit
    llvm: dict[str, float] = {
        "translate_s": lowered.times.get("translate", 0.0),
        "host_jit_s": jit_s,
    }
    if lowered.kernels is not None:
        t2 = time.perf_counter()
        machine = jit_target_machine(3)
        mod = parse_llvm_ir(lowered.kernels.text)
        optimize_module(mod, machine, 3)
        machine.emit_object(mod)
        llvm["kernels_o3_and_codegen_s"] = time.perf_counter() - t2
    pass_total = sum(v[0] for v in passes.values())
    pattern_total = sum(v[0] for v in patterns.values())
    return {
        "total_s": total,
        "phases": {k: round(v, 4) for k, v in lowered.times.items()},
        "passes_total_s": pass_total,
        "passes": _top(passes, top),
        "patterns_total_s": pattern_total,
        "patterns": _top(patterns, top),
        "llvm": {k: round(v, 4) for k, v in llvm.items()},
        "gc": {k: round(v, 4) for k, v in gc_stats.items()},
    }


def format_profile(profile: dict[str, Any], title: str = "") -> list[str]:
    """The profile as text lines (the bench's report)."""
    lines = [f"compile profile{' of ' + title if title else ''}: {profile['total_s']:.2f} s"]
    lines.append("  phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in profile["phases"].items()))
    lines.append(f"  passes ({profile['passes_total_s']:.2f} s in all), slowest:")
    for row in profile["passes"]:
        lines.append(f"    {row['seconds']:7.3f} s  x{row['count']:<3} {row['name']}")
    lines.append(
        f"  rewrite patterns ({profile['patterns_total_s']:.2f} s in all, exclusive), slowest:"
    )
    for row in profile["patterns"]:
        lines.append(f"    {row['seconds']:7.3f} s  {row['count']:>7} calls  {row['name']}")
    llvm = profile["llvm"]
    lines.append(
        "  LLVM (s): "
        + ", ".join(f"{k.removesuffix('_s').replace('_', ' ')} {v:.2f}" for k, v in llvm.items())
    )
    g = profile["gc"]
    lines.append(f"  GC: {g['seconds']:.2f} s in {int(g['collections'])} collections")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compile_profile", description=__doc__)
    parser.add_argument("model", help="a zoo model, bert_encoder_<N>, or a .mlir file")
    parser.add_argument("--top", type=int, default=15, help="rows per table (default 15)")
    parser.add_argument("--json", help="write the profile as JSON to this file")
    args = parser.parse_args(argv)
    if args.top < 1:
        parser.error("--top must be at least 1")
    path = Path(args.model)
    if path.suffix == ".mlir":
        if not path.is_file():
            parser.error(f"no such file: {path}")
        text = path.read_text()
    else:
        from bench import models as M

        try:
            model = M.bench_model(args.model)
        except (KeyError, ValueError) as exc:
            parser.error(f"unknown model '{args.model}': {exc}")
        from bench.run import ENCODER_SIZES

        encoder = args.model.startswith(M.ENCODER_PREFIX)
        sizes = model.sizes_with(**ENCODER_SIZES) if encoder else model.sizes_with()
        text = M.stablehlo_text(model, sizes, dynamic=True)
    profile = compile_profile(text, top=args.top)
    print("\n".join(format_profile(profile, args.model)))
    if args.json:
        Path(args.json).write_text(json.dumps(profile, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
