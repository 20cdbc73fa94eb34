"""disc-compile: MHLO in, LLVM IR out, through the whole pipeline.

    disc-compile examples/tutorial.mlir --target cpu -o tutorial.ll

runs the documented pipeline (`disc_ir.pipeline`: tensor, placement,
bufferize, lhlo, ral, codegen, llvm) and writes the LLVM IR of the host
module. The constants `disc-const-to-ral` takes out of the graph go to a RAL
metadata file next to the output (`tutorial.ll` -> `tutorial.discmeta`, or
`--metadata-file`); both paths are reported on stderr. To run the result, load
it with `disc_ir.backend.jit.HostJit` and call `main` through
`disc_ir.runtime.RalContext(metadata_path=...)`.

`-o model.disc` (or `--artifact`) writes a deployable artifact instead
(`disc_ir.runtime.load` runs it without the compiler); `--target-triple`,
`--cpu` and `--cpu-features` cross-compile its CPU code.

With `--target cuda` the host LLVM IR goes to `-o FILE` and the PTX of each
kernel module (`gpu.module`) beside it, `out.ll` -> `out.<module>.ptx`.

Flags: `--target cpu|cuda`, `-o FILE` (`-`: stdout, the default), `--entry NAME`,
`--emit llvm|llvm-opt|mlir` (LLVM IR as generated, after LLVM's O3 for this
host, or the final MLIR), `--until PHASE` (stop after a phase, print MLIR),
`--verify-each`, `--mlir-print-ir-after-all`, `--mlir-timing` (as disc-opt's).
Errors are diagnostics (exit 1), never tracebacks.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir import config
from disc_ir.api import (
    METADATA_FILE_NAME,
    CompileError,
    compile_to_artifact,
    entry_function,
    entry_signature,
    load_module,
    lower_to_llvm_ir,
    print_module,
    run_pipeline,
)
from disc_ir.ir.context import make_context
from disc_ir.ir.pass_pipeline import pass_spec_text
from disc_ir.pipeline import TARGETS, phase_names

METADATA_SUFFIX = ".discmeta"
#: `-o` with this suffix writes a `model.disc` artifact
ARTIFACT_SUFFIX = ".disc"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="disc-compile",
        description="Compile an MHLO graph to LLVM IR with disc-ir's pipeline.",
    )
    p.add_argument("input", help="MHLO input file ('-' for stdin)")
    p.add_argument("--target", default="cpu", choices=TARGETS, help="code generation target")
    p.add_argument("-o", dest="output", default="-", help="output file ('-': stdout)")
    p.add_argument("--entry", default="main", help="the function to compile (default: main)")
    p.add_argument(
        "--emit",
        default="llvm",
        choices=("llvm", "llvm-opt", "mlir"),
        help="LLVM IR as generated, LLVM IR after O3 for this host, or the final MLIR",
    )
    p.add_argument(
        "--artifact",
        action="store_true",
        help="write a model.disc artifact to -o (the default when -o ends in .disc)",
    )
    p.add_argument("--target-triple", default=None, help="artifact: cross-compile for this triple")
    p.add_argument("--cpu", default=None, help="artifact: cross-compile for this CPU name")
    p.add_argument("--cpu-features", default=None, help="artifact: the CPU features ('+avx2,+fma')")
    p.add_argument("--until", default=None, help="stop after this phase and print its MLIR")
    p.add_argument(
        "--metadata-file",
        default=None,
        help=f"where to write the constants (default: next to -o, suffix {METADATA_SUFFIX})",
    )
    p.add_argument("--verify-each", action="store_true", help="verify the IR after every pass")
    p.add_argument(
        "--mlir-print-ir-after-all", action="store_true", help="dump the IR after every pass"
    )
    p.add_argument("--mlir-timing", action="store_true", help="per-pass wall-time table")
    return p


def _normalize(argv: Sequence[str]) -> list[str]:
    # mlir-opt style single-dash long flags: -mlir-timing -> --mlir-timing
    out = []
    for a in argv:
        if a.startswith("-") and not a.startswith("--") and len(a) > 2 and a[1] != "o":
            a = "-" + a
        out.append(a)
    return out


class _Trace:
    """--mlir-print-ir-after-all / --mlir-timing bookkeeping."""

    def __init__(self, print_after_all: bool, err: TextIO):
        self.print_after_all = print_after_all
        self.err = err
        self.timings: list[tuple[str, float]] = []

    def after_pass(self, p: ModulePass, module: ModuleOp, seconds: float) -> None:
        header = f"{type(p).__name__} ({pass_spec_text(p)})"
        self.timings.append((f"{type(p).__name__} ({p.name})", seconds))
        if self.print_after_all:
            self.err.write(f"// -----// IR Dump After {header} //----- //\n")
            self.err.write(print_module(module))

    def report(self, extra: dict[str, float], total: float) -> str:
        rows = self.timings + [(name, s) for name, s in extra.items()]
        lines = [
            "===" + "-" * 73 + "===",
            " " * 28 + "Execution time report",
            "===" + "-" * 73 + "===",
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, s in rows:
            pct = 100.0 * s / total if total > 0 else 0.0
            lines.append(f"    {s:.4f} ({pct:5.1f}%)  {name}")
        lines.append(f"    {total:.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


def write_kernel_ptx(output: str, kernels: dict[str, str]) -> list[str]:
    """Writes each kernel module's PTX beside `output` (`out.ll` -> `out.<module>.ptx`)."""
    written: list[str] = []
    base = Path(output).with_suffix("") if Path(output).suffix else Path(output)
    for name, ptx in kernels.items():
        path = base.parent / f"{base.name}.{name}.ptx"
        path.write_text(ptx, encoding="utf-8")
        written.append(str(path))
    return written


def metadata_path_for(output: str) -> str:
    """The metadata file written beside `output` (`out.ll` -> `out.discmeta`)."""
    path = Path(output)
    return str(path.with_suffix(METADATA_SUFFIX) if path.suffix else Path(output + METADATA_SUFFIX))


def run(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    """disc-compile's logic; returns the exit code."""
    args = _parser().parse_args(_normalize(argv))
    source: str | Path
    if args.input == "-":
        source = sys.stdin.read()
    elif not os.path.isfile(args.input):
        stderr.write(f"disc-compile: error: cannot read '{args.input}': no such file\n")
        return 1
    else:
        source = Path(args.input)
    if args.artifact or args.output.endswith(ARTIFACT_SUFFIX):
        return _write_artifact(source, args, stderr)
    trace = _Trace(args.mlir_print_ir_after_all, stderr)
    start = time.perf_counter()
    try:
        kernels: dict[str, str] = {}
        if args.until is not None or args.emit == "mlir":
            text, extra = _lower_mlir(source, args, trace)
            meta = None
        else:
            meta = args.metadata_file or (
                metadata_path_for(args.output) if args.output != "-" else None
            )
            lowered = lower_to_llvm_ir(
                source,
                args.target,
                entry=args.entry,
                verify=args.verify_each,
                metadata_file=meta,
                keep_ir=False,
                after_pass=trace.after_pass,
            )
            text = lowered.llvm_ir
            kernels = lowered.gpu_kernels
            extra = {"translate to LLVM IR": lowered.times.get("translate", 0.0)}
            if args.emit == "llvm-opt":
                from disc_ir.backend.optimize import optimize_llvm_ir

                t0 = time.perf_counter()
                text = optimize_llvm_ir(text)
                extra["LLVM O3"] = time.perf_counter() - t0
            if meta is None and lowered.constants:
                stderr.write(
                    f"disc-compile: note: {len(lowered.constants)} constant(s) not written "
                    "(give -o FILE or --metadata-file)\n"
                )
    except CompileError as exc:
        stderr.write(f"{args.input}: error: {exc}\n")
        return 1
    if args.output == "-":
        stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
        note = f" and constants to {meta}" if meta is not None else ""
        stderr.write(f"disc-compile: wrote {args.output}{note}\n")
        for path in write_kernel_ptx(args.output, kernels):
            stderr.write(f"disc-compile: wrote {path}\n")
    if args.mlir_timing:
        stderr.write(trace.report(extra, time.perf_counter() - start))
    return 0


def _write_artifact(source: str | Path, args: argparse.Namespace, stderr: TextIO) -> int:
    if args.output == "-":
        stderr.write("disc-compile: error: an artifact needs an output file (-o model.disc)\n")
        return 1
    start = time.perf_counter()
    try:
        manifest = compile_to_artifact(
            source,
            args.output,
            args.target,
            entry=args.entry,
            target_triple=args.target_triple,
            cpu=args.cpu,
            cpu_features=args.cpu_features,
        )
    except CompileError as exc:
        stderr.write(f"{args.input}: error: {exc}\n")
        return 1
    except OSError as exc:
        stderr.write(f"disc-compile: error: cannot write '{args.output}': {exc.strerror}\n")
        return 1
    stderr.write(
        f"disc-compile: wrote {args.output} ({manifest['target']}, {manifest['triple']}, "
        f"cpu {manifest['cpu']}) in {time.perf_counter() - start:.2f} s\n"
    )
    return 0


def _lower_mlir(source: str | Path, args: argparse.Namespace, trace: _Trace) -> tuple[str, dict]:
    if args.until is not None and args.until not in phase_names(args.target):
        raise CompileError(
            f"unknown phase '{args.until}' (phases: {', '.join(phase_names(args.target))})"
        )
    ctx = make_context()
    module = load_module(ctx, source)
    entry_signature(entry_function(module, args.entry))
    run_pipeline(
        ctx,
        module,
        args.target,
        metadata_file=args.metadata_file or "",
        verify=args.verify_each,
        until=args.until,
        after_pass=trace.after_pass,
    )
    return print_module(module), {}


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    config.warn_unknown_switches()
    try:
        return run(argv, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # noqa: BLE001 - an internal error: report, no traceback
        if config.flag("DISC_IR_DEBUG"):
            raise
        sys.stderr.write(
            f"disc-compile: internal error: {type(exc).__name__}: {exc}\n"
            "(set DISC_IR_DEBUG=1 for the Python traceback; please report this)\n"
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["METADATA_FILE_NAME", "main", "metadata_path_for", "run"]
