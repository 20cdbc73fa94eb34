"""The host-side lowering to the LLVM dialect that `disc-to-llvm` runs (BladeDISC's
DiscToLLVMPass, disc_to_llvm.cc, on opaque pointers).

`handler_table()` maps every op name the `*_to_llvm` modules handle to its
lowering; `convert_to_llvm(module)` walks the module once, lowers each op by
name, bridges operands with `builtin.unrealized_conversion_cast`s and
reconciles them at the end, lowers `gpu.launch_func` to the embedded blob
plus a RAL launch, and fails on an op no pattern handles;
`expand_descriptors(ops)` expands memref descriptors of the given ops (also
used by the GPU lowering).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from xdsl.dialects import builtin
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.transforms.reconcile_unrealized_casts import reconcile_unrealized_casts
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.conversion import llvm_builders as builders
from disc_ir.conversion.arith_to_llvm import HANDLERS as arith_handlers
from disc_ir.conversion.cf_to_llvm import HANDLERS as cf_handlers
from disc_ir.conversion.disc_ral_to_llvm import handlers as disc_ral_handlers
from disc_ir.conversion.dispatch import Handler
from disc_ir.conversion.func_to_llvm import HANDLERS as func_handlers
from disc_ir.conversion.gpu_launch_to_llvm import GpuLaunchToLLVM
from disc_ir.conversion.llvm_common import materialize_source
from disc_ir.conversion.math_to_llvm import HANDLERS as math_handlers
from disc_ir.conversion.memref_to_llvm import HANDLERS as memref_handlers
from disc_ir.conversion.ral_dispatch_to_llvm import RalDispatchToLLVM
from disc_ir.conversion.typed_pointer_to_llvm import HANDLERS as pointer_handlers
from disc_ir.ir.walk import preorder_ops
from disc_ir.rewriting.dead_ops import is_trivially_dead_as_xdsl


@cache
def handler_table(outline_ral_calls: bool = False) -> dict[str, Handler]:
    """Op name -> lowering, over every `*_to_llvm` module (their names are disjoint);
    `outline_ral_calls`: RAL calls through shared host-glue functions."""
    dispatch = RalDispatchToLLVM(materialize=materialize_source, outline=outline_ral_calls)
    table: dict[str, Handler] = {"gpu.launch_func": GpuLaunchToLLVM().match_and_rewrite}
    for handlers in (
        func_handlers,
        disc_ral_handlers(outline_ral_calls),
        {"disc_ral.dispatch": dispatch.match_and_rewrite},
        memref_handlers,
        arith_handlers,
        math_handlers,
        cf_handlers,
        pointer_handlers,
    ):
        overlap = table.keys() & handlers.keys()
        assert not overlap, f"ops lowered twice: {sorted(overlap)}"
        table.update(handlers)
    return table


def _lower_ops(module: builtin.ModuleOp, outline_ral_calls: bool = False) -> list[Operation]:
    """Lowers every op of `handler_table` in `module`, each exactly once; returns
    the ops the lowerings inserted and the casts the input had, in order.

    One walk in program order (a function before its body: `func.func`
    retypes the entry arguments its body then sees), dispatching on the op
    name; ops a lowering creates that need lowering themselves (the
    `disc_ral.dispatch` of `memref.alloc`) are lowered right after it. Ops
    that are trivially dead when reached are erased instead (the greedy
    driver's behaviour). A lowering's error becomes the op's diagnostic.
    """
    table = handler_table(outline_ral_calls)
    ops: list[Operation] = []
    inserted: list[Operation] = []
    for op in preorder_ops(module):
        if op.name in table:
            ops.append(op)
        elif isinstance(op, builtin.UnrealizedConversionCastOp):
            inserted.append(op)
    created: list[Operation] = []

    def on_insert(op: Operation) -> None:
        inserted.append(op)
        if op.name in table:
            created.append(op)

    rewriter = PatternRewriter(InsertPoint.at_end(module.body.block))
    rewriter.operation_insertion_handler.append(on_insert)
    for root in ops:
        stack = [root]
        while stack:
            op = stack.pop()
            if op.parent is None:  # erased meanwhile
                continue
            if is_trivially_dead_as_xdsl(op):
                rewriter.erase(op)
                continue
            rewriter.current_operation = op
            rewriter.insertion_point = InsertPoint.before(op)
            try:
                table[op.name](op, rewriter)
            except Exception as err:
                op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
            if created:
                stack.extend(created)
                created.clear()
    return inserted


def _is_simple_cast(op: Operation) -> bool:
    return (
        isinstance(op, builtin.UnrealizedConversionCastOp)
        and len(op.operands) == 1
        and len(op.results) == 1
    )


def _reconcile_casts(ops: list[Operation]) -> bool:
    """`reconcile-unrealized-casts` over the casts among `ops`: a cast `A -> B`
    whose user casts `B -> A` back gives that user's users `A` itself. Returns
    whether every cast went (else xDSL's general pass runs for the rest)."""
    casts = [
        op
        for op in ops
        if op.__class__ is builtin.UnrealizedConversionCastOp  # (no subclasses)
        and not builders.is_descriptor_from_fields(op)
    ]
    complete = True
    for cast in casts:
        if cast.parent is None or not _is_simple_cast(cast):
            complete = complete and cast.parent is None
            continue
        source = cast.operands[0]
        for use in list(cast.results[0].uses):
            user = use.operation
            if _is_simple_cast(user) and user.results[0].type == source.type:
                user.results[0].replace_all_uses_with(source)
    for cast in reversed(casts):
        if cast.parent is None:
            continue
        if cast.results[0].uses:
            complete = False
        else:
            cast.detach()
            cast.erase()
    return complete


def _erase_dead_ops(ops: list[Operation]) -> None:
    """Erases the side-effect-free ops among `ops` (the conversion's products)
    whose results are unused (unread constants, descriptors read back field by
    field), users before their operands so that whole dead chains go in one
    sweep."""
    for op in reversed(ops):
        if op.parent is not None and op.results and is_trivially_dead_as_xdsl(op):
            op.detach()
            op.erase()


def expand_descriptors(ops: Iterable[Operation]) -> None:
    """The descriptors among `ops` built from their fields
    (`builders.descriptor_from_fields`) that something still reads as a
    struct become `llvm.insertvalue` chains; unread ones are erased."""
    for op in list(ops):
        if op.parent is None or not builders.is_descriptor_from_fields(op):
            continue
        if op.results[0].uses:
            builders.expand_descriptor(op)
        else:
            op.detach()
            op.erase()


def convert_to_llvm(module: builtin.ModuleOp, outline_ral_calls: bool = False) -> None:
    """Runs the conversion on `module` in place (see the module docstring)."""
    kernel_modules = [op for op in module.body.block.ops if op.name == "gpu.module"]
    inserted = _lower_ops(module, outline_ral_calls)
    for op in kernel_modules:
        module.body.block.erase_op(op)
    if not _reconcile_casts(inserted):
        expand_descriptors(inserted)
        reconcile_unrealized_casts(module, warn_on_failure=False)
    _erase_dead_ops(inserted)
    expand_descriptors(inserted)
    _check_legal(module)


def _check_legal(module: builtin.ModuleOp) -> None:
    """Raises on the first op left unconverted (casts last: they point at the cause less well)."""
    casts: list[builtin.UnrealizedConversionCastOp] = []
    for op in preorder_ops(module):
        if op is module or op.dialect_name() == "llvm":
            continue
        if isinstance(op, builtin.UnrealizedConversionCastOp):
            casts.append(op)
            continue
        hint = ""
        if op.dialect_name() in ("scf", "affine"):
            hint = " (run convert-scf-to-cf / lower-affine first)"
        raise DiagnosticException(f"disc-to-llvm: failed to legalize operation '{op.name}'{hint}")
    for op in casts:
        types = f"{op.operands[0].type} to {op.results[0].type}" if op.operands else ""
        user = next(iter(op.results[0].uses), None) if op.results else None
        where = f" (used by '{user.operation.name}')" if user else ""
        raise DiagnosticException(f"disc-to-llvm: could not convert a value of type {types}{where}")
