"""The documented BladeDISC pass pipeline, phase by phase, as disc-ir runs it.

The order follows BladeDISC's `LowerHLOToLLVM` (tao_compiler/mlir/disc/
disc_compiler.cc) and BladeDISC's pass pipeline walkthrough: each phase is a list of
textual pass specs, so the pipeline reads like the C++ one and prints as an
MLIR pipeline string. Only passes that exist are listed; a phase whose passes
are missing is absent rather than faked.

Phases (target `cpu`): `input`, `tensor`, `placement`, `bufferize`, `lhlo`,
`ral`, `codegen`, `llvm`; target `cuda` adds `device` (kernels -> NVVM ->
PTX/cubin, attached to their `gpu.module`s) between `codegen` and `llvm`.
`input` holds the rewrites BladeDISC's bridges do before its pipeline
(StableHLO import, static control flow, convolution input dilation, the
run-time shape checks, the entry's `tf.entry_function`) and the input checks
of the target; `bufferize` ends with the check that no mhlo op is left. After `llvm` the module holds only `llvm.func` /
`llvm.mlir.global` ops: `disc_ir.backend.translate` turns it into LLVM IR.
On the CPU every entry placement is a host placement (BladeDISC's CPU mode):
the placement phase starts with `disc-place-entry-on-cpu`.

`pipeline_passes(target, until=...)` builds the configured passes,
`phase_passes(...)` the same grouped by phase; `pipeline_text(...)` gives the
equivalent `-pass-pipeline` string. The `disc-pipeline{target=cpu}` pass
(transforms/disc_pipeline.py) expands to it: `disc_ir.compile` and
`disc-opt --disc-pipeline` run the same passes.

Switches: `DISC_ENABLE_STITCH` (fusion strategy), `DISC_SHAPE_CONSTRAINT_IR`,
`DISC_CUDA_CC`, and `DISC_SHARE_FUSION_LOWERING` (CPU: the code generation
phase is bracketed by `disc-mark-shared-fusion-lowering` and
`disc-instantiate-shared-fusion-lowering`; `share_fusion_lowering=False`
leaves them out).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from xdsl.passes import ModulePass

from disc_ir import config
from disc_ir.config import shape_constraint_ir_enabled
from disc_ir.ir.pass_pipeline import PassSpec, build_pass, parse_options

TARGETS = ("cpu", "cuda")
#: the compute capability the `cuda` target compiles kernels for on a machine
#: without a CUDA device (sm_80); see `cuda_compute_capability`
CUDA_COMPUTE_CAPABILITY = (8, 0)
#: overrides the compute capability of the `cuda` target: "90", "9.0" or "sm_90"
CUDA_CC_ENV = "DISC_CUDA_CC"
CLEANUP = ["canonicalize", "cse", "canonicalize"]
#: canonicalization patterns BladeDISC's GPU pipeline disables before loops are mapped to
#: the GPU (they would turn a one-iteration parallel loop, i.e. a kernel, into host code)
GPU_DISABLED_PATTERNS = (
    "{anonymous}::CollapseSingleIterationLoops",
    "{anonymous}::RemoveEmptyParallelLoops",
    "{anonymous}::MergeNestedParallelLoops",
)


@dataclass(frozen=True)
class Phase:
    """A named group of passes, as the walkthrough's sections group them."""

    name: str
    summary: str
    passes: tuple[str, ...]


def _parse_cc(text: str) -> tuple[int, int]:
    digits = text.strip().lower().removeprefix("sm_").replace(".", "")
    if len(digits) < 2 or not digits.isdigit():
        raise ValueError(
            f"${CUDA_CC_ENV}={text!r}: expected a compute capability like 90, 9.0 or sm_90"
        )
    return int(digits[:-1]), int(digits[-1])


@functools.cache
def _device_fact(name: str) -> Any:
    """`disc_ir.runtime.cuda_libs.<name>(0)` for the machine's first CUDA device;
    None without a usable driver (then the target compiles for the defaults)."""
    try:
        from disc_ir.runtime import cuda_libs

        return getattr(cuda_libs, name)(0)
    except Exception:  # noqa: BLE001 - no usable driver
        return None


def _device_cc() -> tuple[int, int] | None:
    return _device_fact("device_compute_capability")


def cuda_compute_capability() -> tuple[int, int]:
    """The `(major, minor)` the `cuda` target compiles its kernels for.

    `$DISC_CUDA_CC` when set; else that of the machine's first CUDA device (as
    BladeDISC compiles for the GPU it finds: a cubin for sm_80 does not load on
    an sm_90 device); else `CUDA_COMPUTE_CAPABILITY`.
    """
    explicit = config.get_str(CUDA_CC_ENV)
    if explicit:
        return _parse_cc(explicit)
    return _device_cc() or CUDA_COMPUTE_CAPABILITY


#: (multiprocessors, max threads per multiprocessor, max threads per block) of the
#: reference GPU of a compute capability (A100, RTX A6000, L40, H100 SXM), for
#: compiling on a machine without a CUDA device
CUDA_CORE_LIMITS = {
    (8, 0): (108, 2048, 1024),
    (8, 6): (84, 1536, 1024),
    (8, 9): (142, 1536, 1024),
    (9, 0): (132, 2048, 1024),
}


def cuda_core_limits() -> tuple[int, int, int]:
    """(multiprocessors, max threads per multiprocessor, max threads per block)
    the `cuda` target's speculation plans for: the machine's first CUDA device
    (unless `$DISC_CUDA_CC` names another compute capability), else the
    reference GPU of `cuda_compute_capability()` (`CUDA_CORE_LIMITS`)."""
    found = None if config.is_set(CUDA_CC_ENV) else _device_fact("device_core_limits")
    if found is not None:
        return found
    return CUDA_CORE_LIMITS.get(cuda_compute_capability(), CUDA_CORE_LIMITS[(8, 0)])


def _phases(target: str, share_fusion_lowering: bool | None = None) -> list[Phase]:
    gpu = target != "cpu"
    gpu_text = "true" if gpu else "false"
    if share_fusion_lowering is None:
        from disc_ir.codegen.shared_lowering import sharing_enabled

        share_fusion_lowering = sharing_enabled()
    share = share_fusion_lowering and not gpu
    # What BladeDISC's bridges (TF, torch) do before its pipeline: the graph
    # imported, static control flow and convolution input dilation made
    # expressible, run-time checks of the shapes the compiler assumes (a CSE
    # first: JAX's shape-polymorphic exports recompute each shape per use,
    # and the shape analysis proves more broadcasts valid on the merged
    # graph), the entry's `tf.entry_function`.
    input_ = [
        "disc-import-stablehlo",
        *([f"disc-reject-unsupported-element-types{{target={target}}}"] if gpu else []),
        "disc-lower-static-control-flow",
        "disc-expand-conv-lhs-dilation",
        "disc-insert-slice-bounds-checks",
        "cse",
        "disc-insert-runtime-shape-checks",
        "disc-default-entry-function-attrs",
    ]
    # chlo -> mhlo first (BladeDISC legalizes chlo with its TF/StableHLO
    # import, before the DISC pipeline proper).
    tensor_opt = [
        "chlo-legalize-to-hlo",
        "disc-algebraic-simplifier",
        "disc-remove-shape-constraint",
        *CLEANUP,
        "disc-tf-revise-args-for-static-rank",
        "canonicalize",
    ]
    if shape_constraint_ir_enabled():
        tensor_opt += ["disc-convert-shape-to-std", "disc-shape-simplifier"]
    else:
        tensor_opt += ["disc-shape-simplifier"]
    tensor_opt += [
        "disc-convert-hlo-to-std",
        *CLEANUP,
        "disc-algebraic-simplifier",
        "disc-dot-rewriter",
        "disc-shape-simplifier",
    ]
    if gpu:
        # BladeDISC's gpu_enabled step: the GPU fusion only schedules rank-2
        # row / column reductions; shapes are optimized again after it.
        tensor_opt += ["hlo-canonicalize-reduction", "disc-shape-simplifier"]
    placement = [
        *([] if gpu else ["disc-place-entry-on-cpu"]),
        "disc-mhlo-mark-shape-calc",
        f"mhlo-place-ops{{on-gpu={gpu_text}}}",
        *CLEANUP,
        # BladeDISC's TAO_MLIR_PROMOTE_SENSITIVE_OPS, on here: f16 / bf16 sums
        # accumulate in f32, as XLA's do (in f16 a sum of 3000 ones is 2048).
        "disc-element-type-converter{promote-fp16-sensitive-ops-to-f32=true}",
        "disc-algebraic-simplifier",
        "disc-shape-simplifier{insert-tie-shape=true}",
        *CLEANUP,
    ]
    bufferize = [
        "disc-hlo-legalize-to-lhlo",
        "hlo-legalize-to-lhlo",
        "canonicalize",
        "disc-convert-shape-to-std",
        *CLEANUP,
        "disc-std-bufferize",
        *CLEANUP,
        "disc-memref-canonicalize",
        f"disc-assign-memory-space{{gpu-enabled={gpu_text}}}",
        f"disc-reject-unlowered-tensor-ops{{target={target}}}",
    ]
    # BladeDISC's DISC_ENABLE_STITCH (on by default): kStitch fusions (a
    # softmax or a layer norm in one kernel) on both targets.
    strategy = "stitch" if config.flag("DISC_ENABLE_STITCH") else "base"
    # On the GPU, speculation plans with the device's core counts (BladeDISC
    # passes its GPU's SM count and threads per SM): vectorized loop and row
    # versions, column-reduction tiles, the row-schedule thresholds.
    speculation = "disc-specialize-fusion-with-speculation"
    if gpu:
        cores, per_core, per_block = cuda_core_limits()
        speculation += (
            f"{{core-count={cores} max-threads-per-core={per_core} "
            f"max-threads-per-block={per_block}}}"
        )
    lhlo_opt = [
        "promote-buffers-to-stack",
        f"disc-fusion{{gpu-enabled={gpu_text} fusion-strategy={strategy}}}",
        *(["disc-fuse-splat-const"] if gpu else []),
        speculation,
        *CLEANUP,
        "buffer-deallocation",
        "disc-buffer-deallocation",
    ]
    ral = [
        "disc-ral-inject-execution-context",
        f"disc-lower-to-library-call{{gpu-enabled={gpu_text}}}",
        "disc-const-to-ral",
    ]
    # CodeGen on the CPU: fusions -> loops (by schedule), producers inlined,
    # 1-D accesses, shape arithmetic to std, parallel loops outlined as
    # multi-threaded kernels, the rest of each fusion inlined in place,
    # polynomial math (fast-math level 1, BladeDISC's CPU default).
    # bf16: computed in f32 with one rounding per op, bf16 <-> f32 conversions
    # as integer arithmetic (BladeDISC's disc-bf16-expansion; the emulation is
    # MLIR's pass: llvmlite and the JIT have no bf16 arithmetic).
    bf16 = [
        "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}",
        "disc-bf16-expansion",
    ]
    roots_to_loops = (
        f"disc-lhlo-legalize-roots-to-parallel-loops{{cpu-only={'false' if gpu else 'true'}}}"
    )
    codegen = [
        *(["disc-mark-shared-fusion-lowering"] if share else []),
        roots_to_loops,
        "disc-input-inline-fusion",
        *bf16,
        "disc-flatten-memref-access",
        *CLEANUP,
        "disc-memref-cse",
        "disc-convert-shape-to-std",
        *CLEANUP,
        "disc-cpu-map-parallel-loop",
        "disc-outline-cpu-kernel",
        "disc-merge-identical-kernels",
        *(["disc-instantiate-shared-fusion-lowering"] if share else []),
        "lhlo-fusion-inliner",
        "disc-math-approximation",
        *CLEANUP,
        "disc-remove-dead-buffer",
    ]
    # Host side: structured control flow to a CFG, memref metadata made
    # explicit, then everything to the llvm dialect with RAL calls.
    host = [
        "convert-scf-to-cf",
        "expand-strided-metadata",
        *CLEANUP,
        "lower-affine",
        *(["disc-strip-shape-constraint-ops"] if shape_constraint_ir_enabled() else []),
        # disc-ir's option: RAL calls through shared host-glue functions
        # (the entry function holds one short call per RAL call instead of its
        # argument packing inline, so LLVM has far less code to compile)
        "disc-to-llvm{outline-ral-calls=true}",
        *CLEANUP,
    ]
    # CodeGen on the GPU (BladeDISC's gpu_enabled branch): the same loop
    # emission, then parallel loops collapsed to 1-D, tiled by the CTA size
    # (kCTASizeDefault = 256, with in-bound checks), mapped to blocks/threads,
    # turned into gpu.launch and outlined into gpu.module kernels.
    # Until the loops are mapped to the GPU, a single-iteration or empty
    # scf.parallel must stay a loop (it is a kernel, not host code): BladeDISC
    # runs its canonicalizer here without these patterns.
    gpu_canonicalize = f"canonicalize{{disable-patterns={','.join(GPU_DISABLED_PATTERNS)}}}"
    gpu_cleanup = [gpu_canonicalize, "cse", gpu_canonicalize]
    gpu_codegen = [
        roots_to_loops,
        # atomics LLVM's atomicrmw cannot express (mulf/muli) -> CAS loops
        "disc-convert-unhandled-atomic-rmw",
        "disc-input-inline-fusion",
        *bf16,
        "disc-flatten-memref-access",
        *gpu_cleanup,
        "disc-memref-cse",
        "disc-convert-shape-to-std",
        *gpu_cleanup,
        "disc-parallel-loop-collapsing",
        "disc-parallel-loop-tiling{parallel-loop-tile-sizes=256 with-inbound-check=true}",
        "gpu-map-parallel-loops",
        "convert-parallel-loops-to-gpu",
        "gpu-launch-sink-index-computations",
        "gpu-kernel-outlining",
        "disc-assign-kernel-name",
        "lhlo-fusion-inliner",
        "disc-revise-gpu-kernel-outlining",
        *CLEANUP,
        "disc-remove-dead-buffer",
    ]
    # Device side (BladeDISC's nested gpu.module pipeline): structured control
    # flow and memref metadata lowered, math expanded without libdevice, GPU
    # ops to NVVM, each kernel module compiled to PTX / cubin and attached.
    major, minor = cuda_compute_capability() if gpu else CUDA_COMPUTE_CAPABILITY
    device = [
        "expand-strided-metadata",
        "convert-scf-to-cf",
        "lower-affine",
        *CLEANUP,
        "disc-convert-gpu-to-nvvm{index-bitwidth=64 has-redux=false}",
        f"disc-gpu-kernel-to-blob{{gpu-sm-cc-major={major} gpu-sm-cc-minor={minor} "
        "multi-cc-support=false}",
    ]
    extra: list[Phase] = []
    if gpu:
        extra = [
            Phase(
                "codegen",
                "fusions to parallel loops, input inlining, GPU mapping and kernel outlining",
                tuple(gpu_codegen),
            ),
            Phase("device", "kernels to NVVM, PTX and cubin blobs", tuple(device)),
            Phase(
                "llvm",
                "scf to cf, strided metadata, affine, std and kernel launches to the llvm dialect",
                tuple(host),
            ),
        ]
    else:
        extra = [
            Phase(
                "codegen",
                "fusions to parallel loops, input inlining, CPU kernel outlining, math approximation",
                tuple(codegen),
            ),
            Phase(
                "llvm", "scf to cf, strided metadata, affine, std to the llvm dialect", tuple(host)
            ),
        ]
    return [
        Phase(
            "input",
            "StableHLO import, static control flow, run-time shape checks, entry attributes",
            tuple(input_),
        ),
        Phase(
            "tensor",
            "HLO graph optimization (shape simplification, algebraic simplifier, dot rewriter)",
            tuple(tensor_opt),
        ),
        Phase(
            "placement",
            "shape-calculation marking and host/device placement, tie_shape constraints",
            tuple(placement),
        ),
        Phase(
            "bufferize",
            "mhlo -> lmhlo with explicit allocation, shape ops to std, memory spaces",
            tuple(bufferize),
        ),
        Phase("lhlo", "fusion, speculation and buffer deallocation on lmhlo", tuple(lhlo_opt)),
        Phase("ral", "RAL context injection, library calls, constants", tuple(ral)),
        *extra,
    ]


def phases(target: str = "cpu", share_fusion_lowering: bool | None = None) -> list[Phase]:
    """The phases of the pipeline for `target`, in order.

    `share_fusion_lowering`: whether the CPU code generation shares the
    lowering of identical fusions (None: `DISC_SHARE_FUSION_LOWERING`).
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target '{target}' (known: {', '.join(TARGETS)})")
    return _phases(target, share_fusion_lowering)


def phase_names(target: str = "cpu") -> list[str]:
    """The names of the phases for `target`, in order."""
    return [p.name for p in phases(target)]


def phase_specs(
    target: str = "cpu",
    until: str | None = None,
    metadata_file: str = "",
    share_fusion_lowering: bool | None = None,
) -> list[tuple[str, list[str]]]:
    """`(phase name, textual pass specs)` for each phase up to and including `until`.

    `metadata_file` is where `disc-const-to-ral` writes the constants (empty:
    no file); `share_fusion_lowering` as for `phases`.
    """
    all_phases = phases(target, share_fusion_lowering)
    names = [p.name for p in all_phases]
    if until is not None and until not in names:
        raise ValueError(f"unknown phase '{until}' (phases: {', '.join(names)})")
    out: list[tuple[str, list[str]]] = []
    for phase in all_phases:
        specs: list[str] = []
        for spec in phase.passes:
            if spec == "disc-const-to-ral":
                quote = "'" if '"' in metadata_file else '"'
                quoted = quote + metadata_file + quote
                spec = f"disc-const-to-ral{{metadata-file-name={quoted}}}"
            specs.append(spec)
        out.append((phase.name, specs))
        if phase.name == until:
            break
    return out


def pipeline_specs(
    target: str = "cpu",
    until: str | None = None,
    metadata_file: str = "",
    share_fusion_lowering: bool | None = None,
) -> list[str]:
    """The textual pass specs of the pipeline, up to and including phase `until`."""
    grouped = phase_specs(target, until, metadata_file, share_fusion_lowering)
    return [spec for _, specs in grouped for spec in specs]


def _to_pass(spec: str) -> ModulePass:
    name, _, rest = spec.partition("{")
    options = parse_options(rest[:-1]) if rest else {}
    return build_pass(PassSpec(name, options))


def pipeline_passes(
    target: str = "cpu",
    until: str | None = None,
    metadata_file: str = "",
    share_fusion_lowering: bool | None = None,
) -> list[ModulePass]:
    """Configured passes of the pipeline (see `pipeline_specs`)."""
    specs = pipeline_specs(target, until, metadata_file, share_fusion_lowering)
    return [_to_pass(s) for s in specs]


def phase_passes(
    target: str = "cpu",
    until: str | None = None,
    metadata_file: str = "",
    share_fusion_lowering: bool | None = None,
) -> list[tuple[str, list[ModulePass]]]:
    """Configured passes grouped by phase (see `phase_specs`)."""
    return [
        (name, [_to_pass(s) for s in specs])
        for name, specs in phase_specs(target, until, metadata_file, share_fusion_lowering)
    ]


def pipeline_text(target: str = "cpu", until: str | None = None) -> str:
    """The pipeline as an MLIR `-pass-pipeline` string."""
    return "builtin.module(" + ",".join(pipeline_specs(target, until)) + ")"


#: the passes that bracket the CPU code generation to lower each set of identical
#: fusions once (`disc_ir.codegen.shared_lowering`)
SHARED_LOWERING_PASSES = (
    "disc-mark-shared-fusion-lowering",
    "disc-instantiate-shared-fusion-lowering",
)

_T = TypeVar("_T")


def without_shared_lowering(passes: Sequence[ModulePass]) -> list[ModulePass]:
    """`passes` without the shared-lowering passes (every fusion lowered by itself)."""
    return [p for p in passes if p.name not in SHARED_LOWERING_PASSES]


def with_sharing_fallback(attempt: Callable[[bool], _T]) -> _T:
    """`attempt(True)` (a whole run from the input, sharing fusion lowerings);
    if a duplicate fusion could not take its copy (`SharingFailed`),
    `attempt(False)` (the same run without sharing: `without_shared_lowering`).
    `disc_ir.compile`, disc-opt and the `disc-pipeline` pass all recover this way."""
    from disc_ir.codegen.shared_lowering import SharingFailed

    try:
        return attempt(True)
    except SharingFailed:
        return attempt(False)
