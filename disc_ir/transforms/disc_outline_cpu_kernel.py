"""`disc-outline-cpu-kernel`: outline each CPU kernel to a dedicated function.

BladeDISC's DiscOutlineCpuKernel. In every function (other than outlined
kernels), each outermost `scf.parallel` not marked `disc.cpu.small_kernel`
(see `disc-cpu-map-parallel-loop`) is replaced as follows. For a loop

    scf.parallel (%i, %j) = (%lb0, %lb1) to (%ub0, %ub1) step (%s0, %s1) { body }

in function `@f(%ctx: !disc_ral.context, ...)`:

1. the launch setting is materialized in three stack buffers
   `%lb, %ub, %step = memref.alloca() : memref<2xindex>` (one element per
   induction variable, stored with `memref.store`);
2. the kernel function (named after the enclosing `lmhlo.fusion`: its
   `disc.fusion.name`, plus `___<disc.fusion.tag>` when tagged, plus `_<k>`
   for the k-th kernel of the function when k > 0; `<f>_gKernel_[_<k>]`
   outside fusions; made unique in the module), marked `disc_cpu_kernel_func`,
   placed right after `@f`, has the signature

       func.func @kernel(%ctx: !disc_ral.context, %lb: memref<2xindex>,
                         %ub: memref<2xindex>, %step: memref<2xindex>, %args...)

   where `%args` are the other values defined outside the loop that it uses
   (constants, `memref.dim`, `arith.select` and `arith.cmpi` ops computable
   from values it already receives are cloned into the kernel instead). Its
   body loads its iteration box from `%lb` / `%ub` / `%step` -- the runtime
   hands each task a sub-box of the launch space -- and runs the loop over it,
   specialized for unit steps (LLVM vectorizes only those):

       %all_one = (step[0] == 1) && (step[1] == 1)
       scf.if %all_one { scf.parallel ... step (%c1, %c1) {body} }
       else            { scf.parallel ... step (%st0, %st1) {body} }

   with loop invariants hoisted and `memref.alloc` / `memref.dealloc` pairs
   of the loop body moved around the loop (tile buffers are reused across the
   iterations of a task), likewise its `memref.alloca` tiles of invariant
   size (allocated once per task, on the task's stack);
3. the loop is replaced by

       "disc_ral.cpu_launch"(%ctx, %lb, %ub, %step, %c1, %args...) {callee = @kernel}

   (`%c1`: the unit workload size hint). `disc-to-llvm` turns it into a
   `ral_kernel_launch` dispatch of a packed wrapper of the kernel
   (`disc_ral.cpu_launch` documents the contract).

The function must take the RAL context as its first argument (run
`disc-ral-inject-execution-context` first); a loop to outline in a function
without one is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import (
    IndexType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.codegen.kernel_names import fusion_full_name
from disc_ir.codegen.loop_utils import (
    CPU_KERNEL_FUNC_ATTR,
    SMALL_CPU_KERNEL_ATTR,
    OpBuilder,
    new_if,
    parent_of_name,
)
from disc_ir.dialects.disc_ral import CpuLaunchOp, RalExecutionContextType
from disc_ir.dialects.upstream.scf import ParallelOp
from disc_ir.ir import builders
from disc_ir.ir.types import memref_type
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import get_pass, register_pass

FUSION_NAME_ATTR = "disc.fusion.name"
FUSION_TAG_ATTR = "disc.fusion.tag"

#: Ops cloned into the kernel rather than passed to it.
SINKABLE_OPS = ("arith.constant", "memref.dim", "arith.select", "arith.cmpi")


def kernel_name(index: int, loop: Operation, func_name: str) -> str:
    """BladeDISC's getKernelName."""
    suffix = f"_{index}" if index else ""
    fusion = parent_of_name(loop, "lmhlo.fusion")
    if fusion is not None:
        full = fusion_full_name(fusion)
        if full:
            return full + suffix
    return f"{func_name}_gKernel_{suffix}"


def used_values_defined_above(region: Region, into: list[SSAValue]) -> None:
    """Append (once, in order of first use) the values used in `region` but
    defined outside it (MLIR's getUsedValuesDefinedAbove)."""
    seen = set(into)
    parent = region.parent_op()
    for op in preorder_ops(region):
        for operand in op.operands:
            if operand in seen:
                continue
            owner = operand.owner
            # (a block argument's owner is a Block: the exact class, no ABC check)
            def_region = owner.parent if owner.__class__ is Block else owner.parent_region()
            # defined above: its region is not `region` nor nested in it
            inside = False
            r = def_region
            while r is not None:
                if r is region:
                    inside = True
                    break
                rp = r.parent_op()
                if rp is None or rp is parent:
                    break
                r = rp.parent_region()
            if not inside:
                seen.add(operand)
                into.append(operand)


def _extract_beneficiary_ops(
    op: Operation,
    dependencies: set[SSAValue],
    to_sink: list[Operation],
    available: set[SSAValue],
) -> bool:
    if op in to_sink:
        return True
    if op.name not in SINKABLE_OPS:
        return False
    for operand in op.operands:
        if operand in available:
            continue
        owner = operand.owner
        if (
            not isinstance(owner, Operation)
            or not _extract_beneficiary_ops(owner, dependencies, to_sink, available)
        ) and operand not in dependencies:
            return False
    to_sink.append(op)
    available.update(op.results)
    return True


def sink_operations(region: Region) -> None:
    """Clone cheap ops computing values the region uses into it (MLIR's
    sinkOperationsIntoLaunchOp): constants, `memref.dim`, `arith.select`,
    `arith.cmpi`, when their operands are available in the region."""
    candidates: list[SSAValue] = []
    used_values_defined_above(region, candidates)
    dependencies = set(candidates)
    to_sink: list[Operation] = []
    available: set[SSAValue] = set()
    for value in candidates:
        if isinstance(value.owner, Operation):
            _extract_beneficiary_ops(value.owner, dependencies, to_sink, available)
    block = region.block
    first = block.first_op
    assert first is not None
    mapping: dict[SSAValue, SSAValue] = {}
    clones: set[Operation] = set()
    for op in to_sink:
        clone = op.clone()
        clone.operands = tuple(mapping.get(v, v) for v in op.operands)
        block.insert_op_before(clone, first)
        clones.add(clone)
        mapping.update(zip(op.results, clone.results, strict=True))
    if not mapping:
        return
    # The uses inside the region take the clones: one walk of the region (a
    # sunk value, e.g. a shared constant, may have uses all over the function).
    for op in preorder_ops(region):
        if op in clones:
            continue
        operands = op.operands
        if any(v in mapping for v in operands):
            op.operands = tuple(mapping.get(v, v) for v in operands)


def _is_in_region(op: Operation, region: Region) -> bool:
    r = op.parent_region()
    while r is not None:
        if r is region:
            return True
        p = r.parent_op()
        r = p.parent_region() if p is not None else None
    return False


def _clone_and_move_to(
    ctx: Context,
    loop: ParallelOp,
    lower: list[SSAValue],
    upper: list[SSAValue],
    step: list[SSAValue],
    block: Block,
) -> None:
    """Clone `loop` with new bounds at the start of `block`, hoist its
    invariants, its tile buffers' alloc/dealloc pairs and its invariant-size
    allocas."""
    cloned = loop.clone()
    n_init = len(loop.initVals)
    cloned.operands = (*lower, *upper, *step, *cloned.operands[len(cloned.operands) - n_init :])
    first = block.first_op
    if first is None:
        block.add_op(cloned)
    else:
        block.insert_op_before(cloned, first)
    licm = get_pass("loop-invariant-code-motion")
    assert licm is not None, "the loop-invariant-code-motion pass is not registered"
    licm().apply(ctx, cloned)  # type: ignore[arg-type]  # walks the loops under `cloned`

    body = cloned.body.block
    allocs: dict[SSAValue, list[Operation | None]] = {}
    for op in body.ops:
        if isinstance(op, memref.AllocOp):
            if all(_defined_outside(v, cloned) for v in op.operands):
                allocs[op.results[0]] = [op, None]
        elif isinstance(op, memref.DeallocOp) and op.operands[0] in allocs:
            allocs[op.operands[0]][1] = op
    for alloc, dealloc in allocs.values():
        if alloc is None or dealloc is None:
            continue
        alloc.detach()
        cloned.parent_block().insert_op_before(alloc, cloned)  # type: ignore[union-attr]  # `cloned` sits in a block
        dealloc.detach()
        cloned.parent_block().insert_op_after(dealloc, cloned)  # type: ignore[union-attr]  # `cloned` sits in a block
    # Stack tiles of the body (the CPU stitch schedule's row tiles) are
    # allocated once per task: an alloca left in the loop would grow the stack
    # every iteration.
    for op in list(body.ops):
        if isinstance(op, memref.AllocaOp) and all(
            _defined_outside(v, cloned) for v in op.operands
        ):
            op.detach()
            cloned.parent_block().insert_op_before(op, cloned)  # type: ignore[union-attr]  # `cloned` sits in a block


def _defined_outside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    if isinstance(owner, Operation):
        return not _is_in_region(owner, loop.regions[0])
    return not _block_in(owner, loop.regions[0])


def _block_in(block: Block, region: Region) -> bool:
    r = block.parent
    while r is not None:
        if r is region:
            return True
        p = r.parent_op()
        r = p.parent_region() if p is not None else None
    return False


def rewrite_launch_setting(ctx: Context, loop: ParallelOp, operands: list[SSAValue]) -> scf.IfOp:
    """Store the launch setting in stack buffers (appended to `operands`) and
    wrap the loop, re-expressed on those buffers, in `scf.if %true`."""
    b = OpBuilder.before(loop)
    n = len(loop.lowerBound)
    setting_type = memref_type(IndexType(), [n])
    lb_buf = b.create(memref.AllocaOp.get(IndexType(), shape=[n])).memref
    ub_buf = b.create(memref.AllocaOp.get(IndexType(), shape=[n])).memref
    step_buf = b.create(memref.AllocaOp.get(IndexType(), shape=[n])).memref
    assert lb_buf.type == setting_type
    for i in range(n):
        idx = b.index(i)
        b.create(builders.store(loop.lowerBound[i], lb_buf, [idx]))
        b.create(builders.store(loop.upperBound[i], ub_buf, [idx]))
        b.create(builders.store(loop.step[i], step_buf, [idx]))
    operands.extend([lb_buf, ub_buf, step_buf])

    pred = b.bool(True)
    wrapper = b.create(new_if(pred))
    then_block = wrapper.true_region.block
    loop.detach()
    then_block.insert_op_before(loop, then_block.first_op)  # type: ignore[arg-type]  # the new scf.if's then block holds its scf.yield

    ib = OpBuilder.before(loop)
    one = ib.index(1)
    all_ones = ib.bool(True)
    lowers: list[SSAValue] = []
    uppers: list[SSAValue] = []
    steps: list[SSAValue] = []
    for i in range(n):
        idx = ib.index(i)
        lowers.append(ib.create(builders.load(lb_buf, [idx])).res)
        uppers.append(ib.create(builders.load(ub_buf, [idx])).res)
        steps.append(ib.create(builders.load(step_buf, [idx])).res)
        is_one = ib.create(builders.cmpi(steps[-1], one, "eq")).result
        all_ones = ib.create(builders.binary(arith.AndIOp, all_ones, is_one)).result
    spec = ib.create(new_if(all_ones, with_else=True))
    _clone_and_move_to(ctx, loop, lowers, uppers, [one] * n, spec.true_region.block)
    _clone_and_move_to(ctx, loop, lowers, uppers, steps, spec.false_region.block)
    loop.detach()
    loop.erase()
    return wrapper


def outline_kernel(wrapper: scf.IfOp, name: str, operands: list[SSAValue]) -> func.FuncOp:
    """Move the wrapper's body into a new kernel function taking `operands`
    (extended with the other values the body uses)."""
    region = wrapper.true_region
    used_values_defined_above(region, operands)
    block = Block(arg_types=[v.type for v in operands])
    mapping = dict(zip(operands, block.args, strict=True))
    src = region.block
    for op in list(src.ops):
        op.detach()
        if isinstance(op, scf.YieldOp):
            op.erase()
            block.add_op(func.ReturnOp())
            continue
        block.add_op(op)
    for op in preorder_ops(block):
        if any(v in mapping for v in op.operands):
            op.operands = tuple(mapping.get(v, v) for v in op.operands)
    kernel = func.FuncOp(name, ([v.type for v in operands], []), Region(block))
    kernel.attributes[CPU_KERNEL_FUNC_ATTR] = UnitAttr()
    return kernel


def _unique_name(name: str, taken: set[str]) -> str:
    if name not in taken:
        taken.add(name)
        return name
    k = 0
    while f"{name}_{k}" in taken:
        k += 1
    unique = f"{name}_{k}"
    taken.add(unique)
    return unique


def process_function(ctx: Context, fn: func.FuncOp, taken: set[str]) -> None:
    loops = [
        op
        for op in preorder_ops(fn)
        if isinstance(op, ParallelOp)
        and parent_of_name(op, "scf.parallel") is None
        and SMALL_CPU_KERNEL_ATTR not in op.attributes
    ]
    if not loops:
        return
    args = fn.body.blocks.first.args if fn.body.blocks.first is not None else ()
    if not args or not isinstance(args[0].type, RalExecutionContextType):
        raise DiagnosticException(
            f"disc-outline-cpu-kernel: function @{fn.sym_name.data} has a parallel loop to "
            "outline but no !disc_ral.context first argument "
            "(run disc-ral-inject-execution-context first)"
        )
    module_block = fn.parent_block()
    assert module_block is not None
    insert_before = fn.next_op
    for index, loop in enumerate(loops):
        operands: list[SSAValue] = [args[0]]
        name = _unique_name(kernel_name(index, loop, fn.sym_name.data), taken)
        wrapper = rewrite_launch_setting(ctx, loop, operands)
        sink_operations(wrapper.true_region)
        kernel = outline_kernel(wrapper, name, operands)
        if insert_before is None:
            module_block.add_op(kernel)
        else:
            module_block.insert_op_before(kernel, insert_before)
        b = OpBuilder(InsertPoint.before(wrapper))
        hint = b.index(1)
        b.create(
            CpuLaunchOp(
                operands[0],
                operands[1],
                operands[2],
                operands[3],
                hint,
                operands[4:],
                SymbolRefAttr(name),
            )
        )
        pred = wrapper.cond.owner
        wrapper.detach()
        wrapper.erase()
        if isinstance(pred, arith.ConstantOp) and not pred.result.uses:
            pred.detach()
            pred.erase()


@register_pass
@dataclass(frozen=True)
class DiscOutlineCpuKernelPass(ModulePass):
    """outline each cpu kernel to a dedicated function."""

    name = "disc-outline-cpu-kernel"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        taken = {
            o.sym_name.data
            for o in op.body.block.ops
            if isinstance(getattr(o, "sym_name", None), StringAttr)
        }
        candidates = [
            o
            for o in op.body.block.ops
            if isinstance(o, func.FuncOp) and CPU_KERNEL_FUNC_ATTR not in o.attributes
        ]
        for fn in candidates:
            process_function(ctx, fn, taken)
