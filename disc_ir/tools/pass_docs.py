"""Generate docs/passes.md, the reference of every registered pass, from the registry.

    python -m disc_ir.tools.pass_docs               # rewrite docs/passes.md
    python -m disc_ir.tools.pass_docs --check       # exit 1 when docs/passes.md is stale
    python -m disc_ir.tools.pass_docs -o -          # print to stdout

Each entry gives the pass's command-line name, its summary (the first line of
its docstring), its options with types and defaults (as `disc-opt
--list-passes` prints them), the module that implements it, and the section of
BladeDISC's pass pipeline walkthrough (its docs/developers/pass_pipeline.md,
"A Walkthrough of the BladeDISC Pass Pipeline") it implements. `SEED_SECTIONS` below is that table: a pass missing
from it makes generation fail, so a new pass is documented when it is added.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from disc_ir.passes.registry import builtin_passes, pass_options, pass_summary

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "docs" / "passes.md"

# Sections of BladeDISC's pass pipeline walkthrough, as headings "Phase > Subsection".
_TF = "Pass Pipeline Walkthrough > TF-to-HLO Passes"
_SHAPE = "HLO graph optimization & placement > ShapeSimplifier pass"
_PLACE = "HLO graph optimization & placement > Placement Passes"
_TENSOR_OPT = "HLO graph optimization & placement > Graph Optimization Passes on Tensor Level"
_MISC_CONV = (
    "HLO graph optimization & placement > Misc Conversion Passes that Prepare for Further Lowering"
)
_HLO_TO_LHLO = "Bufferize Passes > HLO to LMHLO conversion"
_SHAPE_BUF = "Bufferize Passes > Shape Related Ops Bufferization"
_MEMSPACE = "Bufferize Passes > Memory Space Assignment"
_FUSION = "LHLO Graph Optimization Passes > Fusion Pass"
_SPEC = "LHLO Graph Optimization Passes > Speculation Pass"
_MEMOPT = "LHLO Graph Optimization Passes > Memory Optimization Passes"
_RAL = "Runtime & Library Call Related Passes"
_BACKBONE = "CodeGen Passes > Backbone CodeGen Passes"
_CG_MISC = "CodeGen Passes > Other Miscellaneous Purposed Passes"
_TO_GPU = "Loops to GPU Passes"
_CUBIN_SCF = "GPU Module to CUBIN > Lowering structure control flow ops"
_CUBIN_NVVM = "GPU Module to CUBIN > Lowering GPU Dialect ops to specific gpu vendor ops"
_CUBIN_BLOB = "GPU Module to CUBIN > Compile to GPU binary code"
_HOST_SCF = "Host Side Passes > Lowering Structure Control Flow Ops"
_HOST_LLVM = "Host Side Passes > Lowering to LLVM Dialect"
_CLEANUP = "used between phases throughout the walkthrough (upstream MLIR cleanup)"
_DISC_IR = "disc-ir addition (not in the walkthrough)"

_OKL = "OneFlow's OKL design (kernel-launch mode, `disc_ir.kernel_launch`)"

SEED_SECTIONS: dict[str, str] = {
    # the kernel-launch mode (OneFlow's OKL): OneFlow dialect to OKL, OKL to LLVM
    "extract-kernel-launch-tensor": _OKL + " > OneFlowDialectToOKLDialect",
    "trim-return-to-void": _OKL + " > OneFlowDialectToOKLDialect",
    "lower-to-okl": _OKL + " > OneFlowDialectToOKLDialect",
    "lower-launcher-to-llvm-ptr": _OKL + " > OKLDialectToLLVMDialect",
    "lower-okl-to-llvm-call": _OKL + " > OKLDialectToLLVMDialect",
    "reconcile-unrealized-casts": _OKL + " > OKLDialectToLLVMDialect (MLIR's pass)",
    "convert-func-to-llvm": _OKL + " > OKLDialectToLLVMDialect (MLIR's pass)",
    # TF-to-HLO / frontends
    "disc-tf-revise-args-for-static-rank": _TF,
    "chlo-legalize-to-hlo": _TF,
    "stablehlo-legalize-to-hlo": _DISC_IR
    + ": the StableHLO frontend's entry, before the TF-to-HLO phase",
    # the input phase (what BladeDISC's bridges do before its pipeline)
    "disc-import-stablehlo": _DISC_IR + ": the StableHLO frontend, first pass of the input phase",
    "disc-reject-unsupported-element-types": _DISC_IR
    + ": the input phase's check of the target's element types (bf16 off the CPU)",
    "disc-lower-static-control-flow": _DISC_IR
    + ": static mhlo.while / mhlo.if / mhlo.case as straight-line code (input phase)",
    "disc-expand-conv-lhs-dilation": _DISC_IR
    + ": convolution input dilation as an interior padding (input phase)",
    "disc-insert-slice-bounds-checks": _DISC_IR
    + ": run-time bounds checks of real_dynamic_slice (input phase)",
    "disc-insert-runtime-shape-checks": _DISC_IR
    + ": run-time checks of unproven broadcasts and windows (input phase)",
    "disc-default-entry-function-attrs": _DISC_IR
    + ": the tf.entry_function BladeDISC's TF bridge sets (end of the input phase)",
    "disc-reject-unlowered-tensor-ops": _DISC_IR
    + ": ends the bufferize phase, naming an mhlo op left without an lmhlo form",
    "disc-mark-shared-fusion-lowering": _DISC_IR
    + ": marks identical CPU fusions before code generation (one lowering per set)",
    "disc-instantiate-shared-fusion-lowering": _DISC_IR
    + ": copies the shared lowering into the marked CPU fusions after the kernel merge",
    # tensor level
    "disc-shape-simplifier": _SHAPE,
    "disc-mhlo-mark-shape-calc": _PLACE,
    "mhlo-place-ops": _PLACE,
    "disc-place-entry-on-cpu": _DISC_IR + ": the CPU target's placement of the entry function",
    "disc-remove-shape-constraint": _TENSOR_OPT,
    "disc-dot-rewriter": _TENSOR_OPT,
    "disc-algebraic-simplifier": _TENSOR_OPT,
    "disc-element-type-converter": _TENSOR_OPT,
    "hlo-canonicalize-reduction": _TENSOR_OPT
    + " (GPU target only: rank-2 row/column reductions for the GPU fusion)",
    "disc-convert-hlo-to-std": _MISC_CONV,
    "disc-convert-tensor-to-std": _MISC_CONV,
    "disc-convert-shape-to-std": _MISC_CONV,
    "disc-strip-shape-constraint-ops": _MISC_CONV,
    # bufferization
    "disc-hlo-legalize-to-lhlo": _HLO_TO_LHLO,
    "hlo-legalize-to-lhlo": _HLO_TO_LHLO,
    "disc-std-bufferize": _SHAPE_BUF,
    "disc-memref-canonicalize": _SHAPE_BUF,
    "disc-assign-memory-space": _MEMSPACE,
    # lhlo level
    "disc-fusion": _FUSION,
    "disc-fuse-splat-const": _FUSION,
    "disc-specialize-fusion-with-speculation": _SPEC,
    "promote-buffers-to-stack": _MEMOPT,
    "buffer-deallocation": _MEMOPT,
    "disc-buffer-deallocation": _MEMOPT,
    # RAL
    "disc-ral-inject-execution-context": _RAL,
    "disc-lower-to-library-call": _RAL,
    "disc-const-to-ral": _RAL,
    # codegen
    "disc-lhlo-legalize-roots-to-parallel-loops": _BACKBONE,
    "disc-input-inline-fusion": _BACKBONE,
    "disc-convert-unhandled-atomic-rmw": _CG_MISC + " (GPU)",
    "disc-bf16-expansion": _DISC_IR
    + ": BladeDISC's bf16 conversion expansion, after input inlining",
    "arith-emulate-unsupported-floats": _DISC_IR + ": upstream MLIR's bf16 arithmetic in f32",
    "disc-flatten-memref-access": _CG_MISC,
    "disc-memref-cse": _CG_MISC,
    "disc-memref-load-store-simplifier": _CG_MISC,
    "disc-remove-dead-buffer": _CG_MISC,
    "disc-math-approximation": _CG_MISC,
    "disc-cpu-map-parallel-loop": _CG_MISC + " (CPU)",
    "disc-outline-cpu-kernel": _CG_MISC + " (CPU)",
    "disc-merge-identical-kernels": _DISC_IR
    + ": one copy of identical outlined CPU kernels (BladeDISC has no such pass)",
    "lhlo-fusion-inliner": _TO_GPU,
    # loops to GPU
    "disc-parallel-loop-collapsing": _TO_GPU,
    "disc-parallel-loop-tiling": _TO_GPU,
    "gpu-map-parallel-loops": _TO_GPU,
    "convert-parallel-loops-to-gpu": _TO_GPU,
    "gpu-launch-sink-index-computations": _TO_GPU,
    "gpu-kernel-outlining": _TO_GPU,
    "disc-assign-kernel-name": _TO_GPU,
    "disc-revise-gpu-kernel-outlining": _TO_GPU,
    "disc-convert-gpu-to-nvvm": _CUBIN_NVVM,
    "disc-gpu-kernel-to-blob": _CUBIN_BLOB,
    # host side
    "convert-scf-to-cf": _HOST_SCF + " (also " + _CUBIN_SCF + ")",
    "lower-affine": _HOST_SCF,
    "expand-strided-metadata": _HOST_LLVM,
    "disc-to-llvm": _HOST_LLVM,
    # cleanup and drivers
    "canonicalize": _CLEANUP,
    "cse": _CLEANUP,
    "loop-invariant-code-motion": _CLEANUP,
    "disc-pipeline": "the whole walkthrough, phase by phase (disc_ir/pipeline.py)",
}


class MissingSection(Exception):
    """A registered pass has no entry in SEED_SECTIONS."""


def _format_default(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value) or "(empty)"
    if value == "":
        return '""'
    return str(value)


def render() -> str:
    """Return the text of docs/passes.md for the passes registered now."""
    passes = builtin_passes()
    missing = sorted(n for n in passes if n not in SEED_SECTIONS)
    if missing:
        raise MissingSection(
            "no walkthrough section recorded for: "
            + ", ".join(missing)
            + " (add them to SEED_SECTIONS in disc_ir/tools/pass_docs.py)"
        )
    lines = [
        "# Pass reference",
        "",
        "<!-- Generated by `python -m disc_ir.tools.pass_docs`; do not edit by hand."
        " A test fails when this file is out of date. -->",
        "",
        f"disc-ir registers {len(passes)} passes. Each runs alone from `disc-opt --<name>` or inside",
        "`-pass-pipeline='builtin.module(...)'`; options are written `--<name>{opt=value ...}`.",
        "The section column names the part of BladeDISC's pass pipeline walkthrough the pass implements.",
        "",
        "| pass | summary | walkthrough section |",
        "| --- | --- | --- |",
    ]
    for name, cls in passes.items():
        summary = pass_summary(cls).replace("|", "\\|")
        lines.append(f"| [`{name}`](#{name}) | {summary} | {SEED_SECTIONS[name]} |")
    lines.append("")
    for name, cls in passes.items():
        lines += [f"## {name}", ""]
        doc = (cls.__doc__ or "").strip()
        lines += [doc if doc else pass_summary(cls), ""]
        lines += [
            f"- Walkthrough section: {SEED_SECTIONS[name]}",
            f"- Implemented in: `{cls.__module__}`",
            f"- Run: `disc-opt --{name} input.mlir`",
        ]
        options = pass_options(cls)
        if options:
            lines += ["", "| option | type | default | meaning |", "| --- | --- | --- | --- |"]
            for opt in options:
                help_text = opt.help.replace("|", "\\|")
                default = _format_default(opt.default).replace("|", "\\|")
                type_text = opt.type_text.replace("|", "\\|")
                lines.append(f"| `{opt.name}` | {type_text} | `{default}` | {help_text} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m disc_ir.tools.pass_docs", description=__doc__)
    parser.add_argument(
        "-o", "--output", default=str(DEFAULT_OUT), help="output file, '-' for stdout"
    )
    parser.add_argument("--check", action="store_true", help="fail if the output file is stale")
    args = parser.parse_args(argv)
    try:
        text = render()
    except MissingSection as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    out = Path(args.output)
    if args.check:
        current = out.read_text() if out.exists() else ""
        if current != text:
            print(
                f"error: {out} is out of date; run `python -m disc_ir.tools.pass_docs`",
                file=sys.stderr,
            )
            return 1
        print(f"{out} is up to date ({text.count(chr(10) + '## ')} passes)")
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
