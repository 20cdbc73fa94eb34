"""The documented BladeDISC pass pipeline, phase by phase, as disc-ir runs it.

The order follows BladeDISC's `LowerHLOToLLVM` (tao_compiler/mlir/disc/
disc_compiler.cc) and the walkthrough (seed 001): each phase is a list of
textual pass specs, so the pipeline reads like the C++ one and prints as an
MLIR pipeline string. Only passes that exist are listed; a phase whose passes
are missing is absent rather than faked.

`pipeline_passes(target, until=...)` builds the configured passes;
`pipeline_text(...)` gives the equivalent `-pass-pipeline` string. The
`disc-pipeline{target=cpu}` pass (transforms/disc_pipeline.py) expands to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass

from disc_ir.config import shape_constraint_ir_enabled
from disc_ir.ir.pass_pipeline import PassSpec, build_pass, parse_options

TARGETS = ("cpu",)
CLEANUP = ["canonicalize", "cse", "canonicalize"]


@dataclass(frozen=True)
class Phase:
    """A named group of passes, as the walkthrough's sections group them."""

    name: str
    summary: str
    passes: tuple[str, ...]


def _phases(target: str) -> list[Phase]:
    gpu = target != "cpu"
    gpu_text = "true" if gpu else "false"
    tensor_opt = [
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
    placement = [
        "disc-mhlo-mark-shape-calc",
        f"mhlo-place-ops{{on-gpu={gpu_text}}}",
        *CLEANUP,
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
    ]
    strategy = "stitch" if not gpu else "base"
    lhlo_opt = [
        "promote-buffers-to-stack",
        f"disc-fusion{{gpu-enabled={gpu_text} fusion-strategy={strategy}}}",
        *(["disc-fuse-splat-const"] if gpu else []),
        "disc-specialize-fusion-with-speculation",
        *CLEANUP,
        "buffer-deallocation",
        "disc-buffer-deallocation",
    ]
    ral = [
        "disc-ral-inject-execution-context",
        f"disc-lower-to-library-call{{gpu-enabled={gpu_text}}}",
        "disc-const-to-ral",
    ]
    return [
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
    ]


def phases(target: str = "cpu") -> list[Phase]:
    """The phases of the pipeline for `target`, in order."""
    if target not in TARGETS:
        raise ValueError(f"unknown target '{target}' (known: {', '.join(TARGETS)})")
    return _phases(target)


def pipeline_specs(
    target: str = "cpu", until: str | None = None, metadata_file: str = ""
) -> list[str]:
    """The textual pass specs of the pipeline, up to and including phase `until`."""
    names = [p.name for p in phases(target)]
    if until is not None and until not in names:
        raise ValueError(f"unknown phase '{until}' (phases: {', '.join(names)})")
    specs: list[str] = []
    for phase in phases(target):
        for spec in phase.passes:
            if spec == "disc-const-to-ral":
                spec = f"disc-const-to-ral{{metadata-file-name={metadata_file!r}}}".replace(
                    "'", '"'
                )
            specs.append(spec)
        if phase.name == until:
            break
    return specs


def _to_pass(spec: str) -> ModulePass:
    name, _, rest = spec.partition("{")
    options = parse_options(rest[:-1]) if rest else {}
    return build_pass(PassSpec(name, options))


def pipeline_passes(
    target: str = "cpu", until: str | None = None, metadata_file: str = ""
) -> list[ModulePass]:
    """Configured passes of the pipeline (see `pipeline_specs`)."""
    return [_to_pass(s) for s in pipeline_specs(target, until, metadata_file)]


def pipeline_text(target: str = "cpu", until: str | None = None) -> str:
    """The pipeline as an MLIR `-pass-pipeline` string."""
    return "builtin.module(" + ",".join(pipeline_specs(target, until)) + ")"
