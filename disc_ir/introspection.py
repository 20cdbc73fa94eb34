"""Watch one graph go through the pipeline: the IR before and after every pass.

    from disc_ir.introspection import trace_pipeline

    trace = trace_pipeline("examples/tutorial.mlir")
    for step in trace.changed(phase="lhlo"):
        print(step.spec, step.seconds)
        print(step.diff())

`trace_pipeline` lowers a source exactly as `disc_ir.compile` does (same
passes, same options, same order: `disc_ir.pipeline`), printing the module
after each pass. A `PassStep` holds the pass's textual spec (what
`-pass-pipeline` would say), its phase, and the IR text before and after it;
`changed` tells whether the pass rewrote anything. This is the Python
counterpart of `disc-opt --disc-pipeline --mlir-print-ir-after-all` and what
the walkthrough notebook (docs/pass_pipeline.md) is built on.
"""

from __future__ import annotations

import difflib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.api import (
    entry_function,
    load_module,
    lower_to_llvm_ir,
    print_module,
    run_pipeline,
)
from disc_ir.ir.context import make_context
from disc_ir.pipeline import phase_specs


@dataclass(frozen=True)
class PassStep:
    """One pass of the pipeline as it ran on the traced module."""

    index: int
    phase: str
    spec: str
    before: str
    after: str
    seconds: float

    @property
    def name(self) -> str:
        """The pass's registered name (the spec without options)."""
        return self.spec.partition("{")[0]

    @property
    def changed(self) -> bool:
        """Whether the pass rewrote the module's text."""
        return self.before != self.after

    def diff(self, context: int = 2) -> str:
        """A unified diff of the module text across this pass."""
        lines = difflib.unified_diff(
            self.before.splitlines(),
            self.after.splitlines(),
            f"before {self.spec}",
            f"after {self.spec}",
            n=context,
            lineterm="",
        )
        return "\n".join(lines)


@dataclass
class PipelineTrace:
    """Every pass of one lowering, in order, and the resulting LLVM IR."""

    target: str
    input_ir: str
    steps: list[PassStep] = field(default_factory=list)
    llvm_ir: str = ""

    @property
    def phases(self) -> list[str]:
        """The phases that ran, in order."""
        out: list[str] = []
        for s in self.steps:
            if s.phase not in out:
                out.append(s.phase)
        return out

    def changed(self, phase: str | None = None) -> list[PassStep]:
        """The steps that rewrote the module (of `phase` only when given)."""
        return [s for s in self.steps if s.changed and (phase is None or s.phase == phase)]

    def step(self, name: str, occurrence: int = 0) -> PassStep:
        """The `occurrence`-th run of the pass `name` (e.g. `canonicalize`)."""
        runs = [s for s in self.steps if s.name == name]
        if occurrence >= len(runs):
            ran = sorted({s.name for s in self.steps})
            raise KeyError(f"pass '{name}' ran {len(runs)} time(s); passes that ran: {ran}")
        return runs[occurrence]

    def ir_after(self, phase: str) -> str:
        """The module text at the end of `phase`."""
        last = [s for s in self.steps if s.phase == phase]
        if not last:
            raise KeyError(f"no phase '{phase}' (phases: {', '.join(self.phases)})")
        return last[-1].after


def trace_pipeline(
    source: str | PurePath | ModuleOp,
    target: str = "cpu",
    *,
    entry: str = "main",
    until: str | None = None,
) -> PipelineTrace:
    """Lower `source` (MHLO/StableHLO text, a path or a module) and record every pass.

    Runs the pipeline of `target` as `disc_ir.compile` does, through phase
    `until` when given (then `llvm_ir` is empty), else to the end, where
    `llvm_ir` is the LLVM IR of the result. Raises `disc_ir.CompileError` as
    `disc_ir.compile` does.
    """
    if until is None:
        return _trace_full(source, target, entry)
    ctx = make_context()
    module = load_module(ctx, source, import_stablehlo=False)  # the input phase imports it
    entry_function(module, entry)
    input_ir = print_module(module)
    specs = [
        (phase, spec) for phase, phase_spec in phase_specs(target, until) for spec in phase_spec
    ]
    afters: list[tuple[str, float]] = []

    def after_pass(_p: ModulePass, m: ModuleOp, seconds: float) -> None:
        afters.append((print_module(m), seconds))

    with tempfile.TemporaryDirectory(prefix="disc_ir_trace_") as tmp:
        run_pipeline(
            ctx,
            module,
            target,
            metadata_file=str(Path(tmp) / "constants.discmeta"),
            until=until,
            after_pass=after_pass,
        )
    return _build(target, input_ir, specs, afters, "")


def _trace_full(source: str | PurePath | ModuleOp, target: str, entry: str) -> PipelineTrace:
    specs = [(phase, spec) for phase, phase_spec in phase_specs(target) for spec in phase_spec]
    afters: list[tuple[str, float]] = []

    def after_pass(_p: ModulePass, module: ModuleOp, seconds: float) -> None:
        afters.append((print_module(module), seconds))

    source_module = load_module(make_context(), source, import_stablehlo=False)
    entry_function(source_module, entry)
    lowered = lower_to_llvm_ir(source, target, entry=entry, keep_ir=True, after_pass=after_pass)
    return _build(target, print_module(source_module), specs, afters, lowered.llvm_ir)


def _build(
    target: str,
    input_ir: str,
    specs: list[tuple[str, str]],
    afters: list[tuple[str, float]],
    llvm_ir: str,
) -> PipelineTrace:
    trace = PipelineTrace(target, input_ir, llvm_ir=llvm_ir)
    before = input_ir
    for i, ((phase, spec), (after, seconds)) in enumerate(zip(specs, afters, strict=True)):
        trace.steps.append(PassStep(i, phase, spec, before, after, seconds))
        before = after
    return trace
