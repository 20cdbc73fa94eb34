"""disc-to-llvm: lower the host side (func/arith/math/memref/cf/disc_ral) to the LLVM dialect.

BladeDISC's DiscToLLVMPass (disc_to_llvm.cc) on opaque pointers:

* `memref.alloc` / `memref.dealloc` become RAL `alloc` / `dealloc` calls
  (never malloc/free); `disc_ral.cpu_launch` a packed kernel wrapper plus a
  `ral_kernel_launch` call; `disc_ral.dispatch` (and `recv_input` /
  `send_output`) `disc_ral_call(ctx, "<encoded api name>", args)` with the
  encoded name in an `llvm.mlir.global internal constant`;
* everything else goes to the `llvm` dialect with MLIR's type conversion
  (`index` -> `i64`, `!disc_ral.context` -> `!llvm.ptr`, memrefs -> descriptor
  structs, memref function arguments expanded into descriptor fields); a
  typed pointer (`llvm.inttoptr ... to !llvm.ptr<i8>`, BladeDISC's stream
  handle) becomes opaque.

The patterns live in `disc_ir/transforms/lowering/*_to_llvm.py`; one walk
dispatches each op to its lowering by name (`handler_table`). Operands
are bridged with `builtin.unrealized_conversion_cast`s, reconciled at the end;
`gpu.launch_func` becomes the compiled blob in a global plus a RAL
`ral_kernel_launch` on `gpu` (`lowering/gpu_launch_to_llvm.py`); the
`gpu.module`s are then dropped, as BladeDISC strips them once kernels are embedded.
The input must be free of `scf`/`affine` (run `convert-scf-to-cf` and
`lower-affine` first); an op the patterns do not handle is an error naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.transforms.reconcile_unrealized_casts import reconcile_unrealized_casts
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.transforms.canonicalize import is_trivially_dead_as_xdsl
from disc_ir.transforms.lowering import llvm_builders as builders
from disc_ir.transforms.lowering.arith_to_llvm import HANDLERS as arith_handlers
from disc_ir.transforms.lowering.cf_to_llvm import HANDLERS as cf_handlers
from disc_ir.transforms.lowering.disc_ral_to_llvm import handlers as disc_ral_handlers
from disc_ir.transforms.lowering.func_to_llvm import HANDLERS as func_handlers
from disc_ir.transforms.lowering.gpu_launch_to_llvm import GpuLaunchToLLVM
from disc_ir.transforms.lowering.llvm_common import materialize_source
from disc_ir.transforms.lowering.math_to_llvm import HANDLERS as math_handlers
from disc_ir.transforms.lowering.memref_to_llvm import HANDLERS as memref_handlers
from disc_ir.transforms.lowering.ral_dispatch_to_llvm import RalDispatchToLLVM
from disc_ir.transforms.lowering.typed_pointer_to_llvm import HANDLERS as pointer_handlers
from disc_ir.transforms.registry import register_pass

Handler = Callable[[Operation, PatternRewriter], None]


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
    for op in module.walk():
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
        if isinstance(op, builtin.UnrealizedConversionCastOp)
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
    for op in module.walk():
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


@register_pass
@dataclass(frozen=True)
class DiscToLLVMPass(ModulePass):
    """Pass to convert the host side to the LLVM dialect (RAL calls for memory, launches, dispatches)."""

    name = "disc-to-llvm"

    #: disc-ir's option (not BladeDISC's): each distinct RAL call signature's
    #: argument packing and `disc_ral_call` lives in one function
    #: (`__disc_ral.call.<api>` / `__disc_ral.launch.<kernel>`) that every
    #: such call calls, so the entry holds a call per RAL call, not four ops
    #: per argument slot (the compile time of a large graph's entry)
    outline_ral_calls: bool = False

    OPTION_HELP = {
        "outline-ral-calls": "Pack each RAL call signature's arguments in one shared "
        "function that the calls call (disc-ir; default false: BladeDISC's inline packing)",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        convert_to_llvm(op, self.outline_ral_calls)
