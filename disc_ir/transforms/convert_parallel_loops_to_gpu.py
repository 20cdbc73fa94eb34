"""`convert-parallel-loops-to-gpu`: mapped `scf.parallel` nests -> `gpu.launch`.

MLIR's ConvertParallelLoopToGpu (mlir/lib/Conversion/SCFToGPU/SCFToGPU.cpp,
`ParallelToGpuLaunchLowering`). Each outermost `scf.parallel` carrying a
`mapping` attribute (see `gpu-map-parallel-loops`) becomes one

    gpu.launch blocks(%bx, %by, %bz) in (%gx = G0, %gy = G1, %gz = G2)
               threads(%tx, %ty, %tz) in (%sx = B0, %sy = B1, %sz = B2) {
      ...loop body, induction variables replaced...
      gpu.terminator
    }

* a dimension mapped to a block / thread id `P` gets the induction variable
  `id(P) * step + lb` and contributes the launch bound
  `ceildiv(ub - lb, step)` for `P` (1 where nothing maps). The bound must be
  computable before the launch: either its operands are defined above the
  outermost loop, or the upper bound is a constant (an `arith.constant`, or
  an `affine.min` with a constant result, as MLIR's `deriveStaticUpperBound`)
  -- then the body is guarded by `scf.if (iv < ub)`. Two loops mapping the
  same processor to different bounds are an error;
* a `sequential` dimension becomes an `scf.for` over the original bounds;
* `scf.parallel` ops directly in a mapped body are processed the same way,
  in place (their mapping is the next level: threads); ops with side effects
  before such a nested loop are rejected (they would run once per thread),
  as MLIR does.

MLIR builds the index and bound arithmetic with `affine.apply`; here it is
emitted as the equivalent `arith` ops (`muli`/`addi`, `subi`/`ceildivsi`),
folded when the operands are constants (lower bound 0 and step 1 leave the
id itself). Loops with reductions (`init` values) are not mapped to GPUs and
are an error, as MLIR fails to legalize them. Unmapped loops stay.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, scf
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr
from xdsl.dialects.gpu import LoopDimMapAttr, ProcessorEnum
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import MemoryEffectKind, get_effects
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.codegen.gpu_mapping import MAPPING_ATTR
from disc_ir.dialects.upstream.gpu import LaunchOp, TerminatorOp
from disc_ir.ir.builders import index_constant
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

#: position of each processor's id among the 12 `gpu.launch` body arguments
_ID_ARG = {
    ProcessorEnum.Block_X: 0,
    ProcessorEnum.Block_Y: 1,
    ProcessorEnum.Block_Z: 2,
    ProcessorEnum.Thread_X: 3,
    ProcessorEnum.Thread_Y: 4,
    ProcessorEnum.Thread_Z: 5,
}


class _Builder:
    """Inserts ops before an anchor op (or at the end of a block), folding index arithmetic."""

    def __init__(self, block: Block, before: Operation | None = None):
        self.block = block
        self.before = before

    def emit(self, op: Operation) -> Operation:
        if self.before is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.before)
        return op

    def const(self, value: int) -> SSAValue:
        return self.emit(index_constant(value)).results[0]

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = _const(a), _const(b)
        if cb == 1:
            return a
        if ca == 1:
            return b
        if ca is not None and cb is not None:
            return self.const(ca * cb)
        return self.emit(arith.MuliOp(a, b)).results[0]

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = _const(a), _const(b)
        if cb == 0:
            return a
        if ca == 0:
            return b
        if ca is not None and cb is not None:
            return self.const(ca + cb)
        return self.emit(arith.AddiOp(a, b)).results[0]

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = _const(a), _const(b)
        if cb == 0:
            return a
        if ca is not None and cb is not None:
            return self.const(ca - cb)
        return self.emit(arith.SubiOp(a, b)).results[0]

    def ceildiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = _const(a), _const(b)
        if cb == 1:
            return a
        if ca is not None and cb is not None and cb != 0:
            return self.const(-((-ca) // cb))
        return self.emit(arith.CeilDivSIOp(a, b)).results[0]


def _const(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _static_upper_bound(value: SSAValue) -> int | None:
    """A constant the value never exceeds (MLIR's deriveStaticUpperBound)."""
    c = _const(value)
    if c is not None:
        return c
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "affine.min":
        best: int | None = None
        amap = owner.properties.get("map") or owner.attributes.get("map")
        data = getattr(amap, "data", None)
        for expr in getattr(data, "results", ()):
            text = str(expr)
            if text.lstrip("-").isdigit():
                best = int(text) if best is None else min(best, int(text))
        return best
    if isinstance(owner, arith.MuliOp):
        a, b = _static_upper_bound(owner.lhs), _static_upper_bound(owner.rhs)
        if a is not None and b is not None:
            return a * b
    return None


def _defined_inside(value: SSAValue, root: Operation, body: Block) -> bool:
    """True if `value` is defined in `root` or in the launch `body` being built."""
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    while block is not None:
        if block is body:
            return True
        op = block.parent_op()
        if op is None:
            return False
        if op is root:
            return True
        block = op.parent_block()
    return False


def _has_side_effects(op: Operation) -> bool:
    """True if `op` may write memory (ops of unknown effects count when they have no
    results; value-producing ops such as `affine.min` do not)."""
    effects = get_effects(op)
    if effects is None:
        return not op.results or bool(op.regions)
    return any(e.kind == MemoryEffectKind.WRITE for e in effects)


class _Converter:
    """Converts one outermost mapped loop nest."""

    def __init__(self, root: scf.ParallelOp):
        self.root = root
        parent = root.parent_block()
        assert parent is not None
        self.outer = _Builder(parent, root)
        self.body = Block(arg_types=[IndexType()] * 12)
        self.bounds: dict[ProcessorEnum, SSAValue] = {}

    def error(self, message: str) -> DiagnosticException:
        return DiagnosticException(f"'scf.parallel' op {message}")

    def launch_bound(self, loop: scf.ParallelOp, dim: int) -> tuple[SSAValue, bool]:
        """(number of iterations of `dim`, computed before the launch; exact?)."""
        lb, ub, step = loop.lowerBound[dim], loop.upperBound[dim], loop.step[dim]
        if not any(_defined_inside(v, self.root, self.body) for v in (lb, ub, step)):
            return self.outer.ceildiv(self.outer.sub(ub, lb), step), True
        static_ub = _static_upper_bound(ub)
        lb_c, step_c = _const(lb), _const(step)
        if static_ub is None or lb_c is None or step_c is None:
            raise self.error("cannot derive loop-invariant upper bound for number of iterations")
        return self.outer.const(-((lb_c - static_ub) // step_c)), False

    def process(self, loop: scf.ParallelOp, block: Block, before: Operation | None) -> None:
        """Emits `loop`'s body into `block` (before `before`), ids for its ivs."""
        if loop.initVals:
            raise self.error("with reductions cannot be mapped to a GPU launch")
        mapping = loop.attributes.get(MAPPING_ATTR)
        if not isinstance(mapping, ArrayAttr) or len(mapping) != len(loop.lowerBound):
            raise self.error(
                "has no mapping attribute for each dimension (run gpu-map-parallel-loops)"
            )
        b = _Builder(block, before)
        loop_body = loop.body.block
        guards: list[SSAValue] = []
        target_block, target_before = block, before
        for dim, (iv, attr) in enumerate(zip(loop_body.args, mapping.data, strict=True)):
            assert isinstance(attr, LoopDimMapAttr)
            processor = ProcessorEnum(attr.processor.data)
            lb, ub, step = loop.lowerBound[dim], loop.upperBound[dim], loop.step[dim]
            if processor == ProcessorEnum.Sequential:
                inner = Block(arg_types=[IndexType()])
                inner.add_op(scf.YieldOp())
                for_op = scf.ForOp(lb, ub, step, [], Region(inner))
                _Builder(target_block, target_before).emit(for_op)
                iv.replace_all_uses_with(inner.args[0])
                target_block, target_before = inner, inner.last_op
                b = _Builder(target_block, target_before)
                continue
            identity = self.body.args[_ID_ARG[processor]]
            new_iv = b.add(b.mul(identity, step), lb)
            iv.replace_all_uses_with(new_iv)
            bound, exact = self.launch_bound(loop, dim)
            previous = self.bounds.get(processor)
            if previous is not None and previous is not bound and _const(previous) != _const(bound):
                raise self.error(f"cannot redefine the bound for processor {processor.value}")
            if previous is None or _const(previous) is None or previous is bound:
                self.bounds[processor] = bound
            if not exact:
                guards.append(
                    b.emit(arith.CmpiOp(new_iv, ub, "slt")).results[0]  # iv < ub
                )
        if guards:
            cond = guards[0]
            for g in guards[1:]:
                cond = b.emit(arith.AndIOp(cond, g)).results[0]
            then = Block([scf.YieldOp()])
            b.emit(scf.IfOp(cond, [], Region(then)))
            target_block, target_before = then, then.last_op
        self.move_body(loop_body, target_block, target_before)

    def move_body(self, src: Block, dst: Block, before: Operation | None) -> None:
        seen_side_effects = False
        for op in list(src.ops):
            if op is src.last_op and op.name in ("scf.reduce", "scf.yield"):
                continue
            op.detach()
            _Builder(dst, before).emit(op)
            if isinstance(op, scf.ParallelOp) and MAPPING_ATTR in op.attributes:
                if seen_side_effects:
                    raise self.error("ops with side effects before nested loops are not supported")
                parent_block = op.parent_block()
                assert parent_block is not None
                self.process(op, parent_block, op)
                op.detach()
                op.erase()
            elif _has_side_effects(op):
                seen_side_effects = True

    def run(self) -> None:
        self.process(self.root, self.body, None)
        self.body.add_op(TerminatorOp())
        one: SSAValue | None = None

        def size(p: ProcessorEnum) -> SSAValue:
            nonlocal one
            if p in self.bounds:
                return self.bounds[p]
            if one is None:
                one = self.outer.const(1)
            return one

        grid = [
            size(p) for p in (ProcessorEnum.Block_X, ProcessorEnum.Block_Y, ProcessorEnum.Block_Z)
        ]
        block = [
            size(p)
            for p in (ProcessorEnum.Thread_X, ProcessorEnum.Thread_Y, ProcessorEnum.Thread_Z)
        ]
        launch = LaunchOp(Region(self.body), grid, block)
        self.outer.emit(launch)
        self.root.detach()
        self.root.erase()


def _is_outermost_mapped(op: scf.ParallelOp) -> bool:
    if MAPPING_ATTR not in op.attributes:
        return False
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ParallelOp | LaunchOp):
            return False
        parent = parent.parent_op()
    return True


@register_pass
@dataclass(frozen=True)
class ConvertParallelLoopToGpuPass(ModulePass):
    """Convert mapped scf.parallel ops to gpu launch operations"""

    name = "convert-parallel-loops-to-gpu"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for func in [o for o in preorder_ops(op) if o.name == "func.func"]:
            for loop in [o for o in preorder_ops(func) if isinstance(o, scf.ParallelOp)]:
                if loop.parent_block() is not None and _is_outermost_mapped(loop):
                    _Converter(loop).run()


__all__ = ["ConvertParallelLoopToGpuPass"]
