"""`disc-assign-memory-space`: attach a memory space to every memref (BladeDISC's DiscAssignMemorySpacePass).

Device buffers get `#gpu.address_space<global>`, host buffers keep no memory
space. The decision starts from the placements already made:

- the entry function's `tf.entry_function` `input_placements` /
  `output_placements` (`gpu` arguments and returned values are device
  buffers; without the attribute every one takes the default device, the GPU
  when `gpu-enabled`);
- `lmhlo_disc.h2d` writes a device buffer, `lmhlo_disc.d2h` reads one;
- `lmhlo_disc.custom_call_v2`'s `input_placements` / `output_placements`
  letters (`d` device, `h`/`s` host, `x` the default device);
- an lmhlo / lmhlo_disc op with `disc.device = "gpu"`, or one of whose
  non-shape operands is already a device buffer, puts all its non-shape
  operands on the device (its shape operands, see
  `placement.shape_calc_operand_indices`, stay where they are); an op placed
  on `"cpu"` whose data operand is a device buffer is an error. Ops inside
  `lmhlo.fusion` count as well; the bodies of other lmhlo ops (reducers)
  work on their own scalar buffers and are left alone.

Placement then propagates to a fixed point between the buffer and its views
(`memref.cast`, `reinterpret_cast`, `subview`, `view`...), through
`scf.if` / `scf.for` / `scf.while` results, region arguments and yields, and
across `func.call`s into the callee's arguments and returned values (every
function of the module is processed, the entry function first). Finally the
types are rewritten: op results and block arguments, and function types
(the entry function's from its placements, the others from their arguments
and returned values); call result types follow.

Before that, a small (<= 128 bytes, static shape) `lmhlo.constant` buffer
outside fusions and reducers that several lmhlo ops read is cloned (a fresh
`memref.alloc` + the constant right before each reader but the first) so
that readers on different devices do not share it; the constant's
`disc.device` is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import FunctionType, MemRefType, NoneAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis import placement as pu
from disc_ir.analysis.buffer_alias import (
    flow_edges,
    is_lmhlo_op,
    is_memref_type,
    is_view_like,
)
from disc_ir.dialects.upstream.gpu import AddressSpace, AddressSpaceAttr
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

GPU_GLOBAL = AddressSpaceAttr(AddressSpace.GLOBAL)

SMALL_BUFFER_BYTES = 128
INDEX_BITWIDTH = 64


def is_small_buffer(value: SSAValue) -> bool:
    """BladeDISC's IsSmallBuffer: a static-shape memref of at most 128 bytes."""
    t = value.type
    if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()):
        return False
    bitwidth = element_bitwidth(t.element_type)
    if bitwidth is None:
        return False
    n = 1
    for d in t.get_shape():
        n *= d
    return n * bitwidth <= SMALL_BUFFER_BYTES * 8


def element_bitwidth(t: Attribute) -> int | None:
    """Bits of a scalar element type (index: 64), None when unknown."""
    if isinstance(t, builtin.IndexType):
        return INDEX_BITWIDTH
    width = getattr(t, "bitwidth", None)
    if isinstance(width, int):
        return width
    if isinstance(t, builtin.ComplexType):
        inner = element_bitwidth(t.element_type)
        return None if inner is None else 2 * inner
    return None


def clone_small_lmhlo_const_ops(module: builtin.ModuleOp) -> None:
    """Give each lmhlo reader of a small shared `lmhlo.constant` buffer its own copy."""
    consts = [
        op
        for op in preorder_ops(module)
        if op.name == "lmhlo.constant"
        and op.operands
        and not _inside(op, ("lmhlo.reduce", "lmhlo.fusion"))
        and is_small_buffer(op.operands[0])
    ]
    # Program order, computed once: the ops inserted below (allocs and cloned
    # constants in front of a user) never read another constant's buffer, so
    # the relative order of every user sorted here is unchanged by them.
    order_key = None
    for const in consts:
        out = const.operands[0]
        users: list[Operation] = []
        for use in out.uses:
            user = use.operation
            if user is const or user in users or not is_lmhlo_op(user):
                continue
            if user.name == "lmhlo_disc.custom_call_v2":
                continue
            users.append(user)
        if len(users) < 2:
            continue
        if order_key is None:
            order_key = _program_order_key(module)
        users.sort(key=order_key)
        const.attributes.pop(pu.PLACEMENT_ATTR, None)
        for user in users[1:]:
            alloc = _new_alloc(out.type)
            Rewriter.insert_op(alloc, InsertPoint.before(user))
            cloned = const.clone()
            cloned.operands = [alloc.results[0] if v is out else v for v in cloned.operands]
            Rewriter.insert_op(cloned, InsertPoint.before(user))
            user.operands = [alloc.results[0] if v is out else v for v in user.operands]


def _new_alloc(t: Attribute) -> Operation:
    from xdsl.dialects.memref import AllocOp

    return AllocOp([], [], t)


def _inside(op: Operation, names: tuple[str, ...]) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.name in names:
            return True
        parent = parent.parent_op()
    return False


def _program_order_key(module: Operation):
    order = {o: i for i, o in enumerate(preorder_ops(module))}
    return lambda o: order.get(o, 0)


class _Assigner:
    """The set of device buffers, grown to a fixed point."""

    def __init__(self, module: builtin.ModuleOp, gpu_enabled: bool):
        self.module = module
        self.gpu_enabled = gpu_enabled
        self.device: set[SSAValue] = set()
        self.changed = False
        self.funcs: dict[str, func.FuncOp] = {
            o.sym_name.data: o for o in module.ops if isinstance(o, func.FuncOp)
        }

    def mark(self, value: SSAValue) -> None:
        if is_memref_type(value.type) and value not in self.device:
            self.device.add(value)
            self.changed = True

    def merge(self, a: SSAValue, b: SSAValue) -> None:
        if a in self.device or b in self.device:
            self.mark(a)
            self.mark(b)

    # ---- propagation

    def process_region(self, region: Region) -> None:
        for block in region.blocks:
            for op in block.ops:
                self.process_op(op)

    def process_op(self, op: Operation) -> None:
        name = op.name
        if name in ("shape.shape_of", "memref.dim"):
            return
        if name == "lmhlo_disc.h2d":
            self.mark(op.operands[1])
            return
        if name == "lmhlo_disc.d2h":
            self.mark(op.operands[0])
            return
        if name == "lmhlo_disc.custom_call_v2":
            self._process_custom_call_v2(op)
            return
        if is_view_like(op):
            self.merge(op.operands[0], op.results[0])
            return
        if is_lmhlo_op(op) and op.name != "lmhlo.terminator":
            self._process_lmhlo(op)
            if op.name == "lmhlo.fusion":
                for region in op.regions:
                    self.process_region(region)
            return
        if name == "func.call":
            self._process_call(op)
            return
        for edge in flow_edges(op):
            self.merge(edge.source, edge.target)
        for region in op.regions:
            self.process_region(region)

    def _process_custom_call_v2(self, op: Operation) -> None:
        for attr_name, values in (
            (pu.INPUT_PLACEMENTS_ATTR, op.operands),
            (pu.OUTPUT_PLACEMENTS_ATTR, op.results),
        ):
            attr = op.attributes.get(attr_name)
            text = attr.data if isinstance(attr, StringAttr) else ""
            items = pu.split_placement_list(text)
            if len(items) != len(values):
                kind = "input" if attr_name == pu.INPUT_PLACEMENTS_ATTR else "output"
                raise DiagnosticException(
                    f"'{op.name}' op failed to parse and apply the {kind} placements"
                )
            for item, value in zip(items, values, strict=True):
                try:
                    placement = pu.custom_call_v2_placement(item, self.gpu_enabled)
                except DiagnosticException:
                    kind = "input" if attr_name == pu.INPUT_PLACEMENTS_ATTR else "output"
                    raise DiagnosticException(
                        f"'{op.name}' op failed to parse and apply the {kind} placements"
                    ) from None
                if placement is pu.PlacementType.GPU:
                    self.mark(value)

    def _process_lmhlo(self, op: Operation) -> None:
        shape_operands = set(pu.shape_calc_operand_indices(op))
        data = [
            v
            for i, v in enumerate(op.operands)
            if i not in shape_operands and is_memref_type(v.type)
        ]
        placement = pu.op_placement_string(op)
        for v in data:
            if v not in self.device:
                continue
            if placement is not None and placement != pu.GPU:
                raise DiagnosticException(
                    f"'{op.name}' op non shape operands not have same placements"
                )
            placement = pu.GPU
        if placement is None or placement == pu.CPU:
            return
        if placement != pu.GPU:
            raise DiagnosticException(f"'{op.name}' op has unknown placement '{placement}'")
        for v in data:
            self.mark(v)

    def _process_call(self, op: Operation) -> None:
        callee_attr = inherent_attr(op, "callee")
        callee = self.funcs.get(callee_attr.string_value()) if callee_attr else None  # type: ignore[attr-defined]  # a call's callee is a SymbolRefAttr
        if callee is None or not callee.body.blocks:
            return
        for arg, operand in zip(callee.body.blocks[0].args, op.operands, strict=False):
            self.merge(arg, operand)
        for ret in _returns(callee):
            for value, result in zip(ret.operands, op.results, strict=False):
                self.merge(value, result)


def _returns(f: func.FuncOp) -> list[Operation]:
    return [
        b.last_op
        for b in f.body.blocks
        if b.last_op is not None and b.last_op.name == "func.return"
    ]


def _with_space(t: Attribute, space: Attribute) -> Attribute:
    if isinstance(t, MemRefType):
        return pu.copy_with_memory_space(t, space)
    if isinstance(t, builtin.UnrankedMemRefType):
        return builtin.UnrankedMemRefType.from_type(t.element_type, space)
    return t


def _apply(assigner: _Assigner, root: Operation) -> None:
    """Rewrite the types of the device buffers under `root`."""
    for op in preorder_ops(root):
        for region in op.regions:
            for block in region.blocks:
                _apply_block_args(assigner, block)
        for res in list(op.results):
            if res in assigner.device and _needs_space(res.type):
                Rewriter.replace_value_with_new_type(res, _with_space(res.type, GPU_GLOBAL))


def _apply_block_args(assigner: _Assigner, block: Block) -> None:
    for arg in list(block.args):
        if arg in assigner.device and _needs_space(arg.type):
            Rewriter.replace_value_with_new_type(arg, _with_space(arg.type, GPU_GLOBAL))


def _needs_space(t: Attribute) -> bool:
    space = getattr(t, "memory_space", None)
    return is_memref_type(t) and (space is None or isinstance(space, NoneAttr))


def _update_function_type(f: func.FuncOp, outputs: list[Attribute] | None = None) -> None:
    inputs = [a.type for a in f.body.blocks[0].args] if f.body.blocks else []
    if outputs is None:
        rets = _returns(f)
        outputs = [v.type for v in rets[0].operands] if rets else list(f.function_type.outputs.data)
    f.function_type = FunctionType.from_lists(inputs, outputs)


@register_pass
@dataclass(frozen=True)
class DiscAssignMemorySpacePass(ModulePass):
    """Assign memory space for each memref."""

    name = "disc-assign-memory-space"

    entry_func_name: str = "main"
    gpu_enabled: bool = True

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "entry-func-name": "Name of the entry function.",
        "gpu-enabled": "whether gpu is available.",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        assigner = _Assigner(op, self.gpu_enabled)
        main = assigner.funcs.get(self.entry_func_name)
        if main is None:
            raise DiagnosticException(f"entry func: {self.entry_func_name} not found")
        clone_small_lmhlo_const_ops(op)
        inputs = pu.entry_input_placements(main, self.gpu_enabled)
        outputs = pu.entry_output_placements(main, self.gpu_enabled)
        if main.body.blocks:
            for arg, p in zip(main.body.blocks[0].args, inputs, strict=False):
                if p is pu.PlacementType.GPU:
                    assigner.mark(arg)
            for ret in _returns(main):
                for value, p in zip(ret.operands, outputs, strict=False):
                    if p is pu.PlacementType.GPU:
                        assigner.mark(value)
        others = [f for name, f in assigner.funcs.items() if name != self.entry_func_name]
        while True:
            assigner.changed = False
            for f in [main, *others]:
                assigner.process_region(f.body)
            if not assigner.changed:
                break
        for f in [main, *others]:
            _apply(assigner, f)
        # function types: the entry function's from its placements
        main_inputs = [
            _with_space(t, GPU_GLOBAL) if p is pu.PlacementType.GPU else t
            for t, p in zip(main.function_type.inputs.data, inputs, strict=False)
        ]
        main_outputs = [
            _with_space(t, GPU_GLOBAL) if p is pu.PlacementType.GPU else t
            for t, p in zip(main.function_type.outputs.data, outputs, strict=False)
        ]
        main.function_type = FunctionType.from_lists(main_inputs, main_outputs)
        for f in others:
            if f.body.blocks:
                _update_function_type(f)


__all__ = ["DiscAssignMemorySpacePass", "clone_small_lmhlo_const_ops", "is_small_buffer"]
