"""`mhlo-place-ops`: place mhlo ops on host or device and copy values across.

BladeDISC's OpsPlacer (mhlo_placer.cc). With `@main` as the entry function and
its `tf.entry_function` placements (`input_placements` / `output_placements`,
default: the default device for all), the steps are:

1. `mhlo_disc.custom_call_v2` runs where its `device` says (`h`/`s` host,
   `d` device, `x` the default device);
2. an op whose result is returned as an i64 scalar tensor placed on the host
   goes to the host, with every mhlo / index_cast-on-tensor op it depends on
   in the entry block;
3. ops marked `disc.shape_op` (by `disc-mhlo-mark-shape-calc`) go to the host;
4. i32 computations go to the host: constants, selects, iotas and
   dynamic_update_slices of i32 results; gathers, quantized convolutions and
   quantized dots of i32 data; other ops with an i32 data (non-shape) operand
   (not topk / rng_uniform custom calls; tuples, get_tuple_element, control
   flow and mhlo.return keep no own placement here);
5. `mhlo.sort` and `mhlo.scatter` go to the host (disc-ir's sort and
   scatter schedules are host loops; not in BladeDISC, which has no
   lmhlo.sort / lmhlo.scatter codegen), and so do convolutions (disc-ir's
   `ral_conv` runs on the host; BladeDISC calls cuDNN, which disc-ir does
   not bind);
6. every other mhlo / mhlo_disc op with results goes to the default device
   (`gpu` when `on-gpu`, else `cpu`);
7. where a value crosses devices -- an mhlo op's operand, a returned value of
   `@main` (against `output_placements`), a `tensor.extract` of a device
   argument of `@main` -- an `mhlo_disc.h2d` (no placement) or
   `mhlo_disc.d2h` (`disc.device = "cpu"`) is inserted before the user.
   Shape operands are read on the host; non-mhlo ops (tensor, arith) run on
   the host; a `tensor.cast` is looked through.

Placements are `disc.device = "cpu" | "gpu"`, or an array of them for ops
with a tuple result. With `on-gpu=false` everything is on the host and no
copy is inserted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, cast

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import ArrayAttr, IntegerType, StringAttr, TensorType
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.placement import (
    CPU,
    GPU,
    PLACEMENT_ATTR,
    SHAPE_OP_ATTR,
    PlacementType,
    bool_attr_value,
    custom_call_v2_placement,
    entry_input_placements,
    entry_output_placements,
    find_entry_function,
    has_tuple_result,
    is_mhlo_dialect,
    is_mhlo_or_std_on_tensor,
    op_placement_string,
    placement_array,
    shape_calc_operand_indices,
    split_placement_list,
    tuple_size,
)
from disc_ir.dialects.mhlo_disc import D2HOp, H2DOp
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

# ops whose placement follows the element type of one dominant operand
_PLACE_RULES: dict[str, int] = {
    "mhlo.dynamic_gather": 0,
    "mhlo.gather": 0,
    "mhlo_disc.quantized_dynamic_conv": 0,
    "mhlo_disc.quantized_dot_general": 0,
}
# ops placed by their result element type only
_RESULT_TYPED = frozenset(
    {"mhlo.constant", "mhlo.select", "mhlo.iota", "mhlo.dynamic_iota", "mhlo.dynamic_update_slice"}
)
# ops `placeI32Ops` leaves alone
_I32_SKIPPED = frozenset(
    {
        "mhlo.tuple",
        "mhlo.get_tuple_element",
        "mhlo.while",
        "mhlo.if",
        "mhlo.return",
        "mhlo_disc.args_mutation",
        "mhlo_disc.custom_call_v2",
    }
)


#: ops only the host runs (step 5): the sort and scatter loop schedules, and
#: convolutions (the RAL's ral_conv is a host library call; no GPU conv)
_HOST_LOOP_OPS = frozenset({"mhlo.sort", "mhlo.scatter", "mhlo.convolution", "mhlo.dynamic_conv"})


def _is_i32(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 32


def _element_type(value: SSAValue) -> Attribute | None:
    t = value.type
    return t.get_element_type() if isinstance(t, TensorType) else None


def _set_placement(op: Operation, device: str) -> None:
    if has_tuple_result(op):
        op.attributes[PLACEMENT_ATTR] = placement_array(device, tuple_size(op))
    else:
        op.attributes[PLACEMENT_ATTR] = StringAttr(device)


def _in_body_of_mhlo_op(op: Operation) -> bool:
    """`op` computes inside the region of an mhlo op (a reduce / sort /
    scatter body): it runs wherever its owner runs, never on its own."""
    owner = op.parent_op()
    return owner is not None and owner.name.startswith("mhlo.")


def _defining_op(value: SSAValue) -> Operation | None:
    return value.op if isinstance(value, OpResult) else None


def _custom_call_items(op: Operation, attr: str) -> list[str]:
    value = op.attributes.get(attr)
    return split_placement_list(value.data) if isinstance(value, StringAttr) else []


@dataclass
class _Placer:
    """The state of one run of the placer over a module."""

    module: builtin.ModuleOp
    main: Operation
    on_gpu: bool
    inputs: list[PlacementType]
    outputs: list[PlacementType]

    # -- placement queries ---------------------------------------------------

    def op_placement(self, op: Operation) -> PlacementType:
        """Where `op` runs: non-mhlo ops and shape ops on the host."""
        if not is_mhlo_dialect(op) or not self.on_gpu:
            return PlacementType.CPU
        if bool_attr_value(op.attributes.get(SHAPE_OP_ATTR)) is not None:
            return PlacementType.CPU
        if op_placement_string(op) == CPU:
            return PlacementType.CPU
        return PlacementType.GPU

    def _tuple_element_placement(self, op: Operation, index: int) -> PlacementType:
        attr = op.attributes.get(PLACEMENT_ATTR)
        if not isinstance(attr, ArrayAttr) or index >= len(attr.data):
            raise DiagnosticException(f"{PLACEMENT_ATTR} on {op.name} not found")
        item = attr.data[index]
        return (
            PlacementType.CPU
            if isinstance(item, StringAttr) and item.data == CPU
            else (PlacementType.GPU)
        )

    def input_placement(self, dst: Operation, index: int) -> PlacementType:
        """Where `dst` reads its operand #`index`."""
        if not self.on_gpu:
            return PlacementType.CPU
        if dst.name == "mhlo.tuple":
            return self._tuple_element_placement(dst, index)
        if dst.name == "mhlo_disc.custom_call_v2":
            items = _custom_call_items(dst, "input_placements")
            if index < len(items):
                return custom_call_v2_placement(items[index], self.on_gpu)
        if self.op_placement(dst) == PlacementType.CPU:
            return PlacementType.CPU
        if index in shape_calc_operand_indices(dst):
            return PlacementType.CPU
        return PlacementType.GPU

    def output_placement(self, op: Operation, index: int) -> PlacementType:
        """Where result #`index` of `op` lives."""
        if not self.on_gpu:
            return PlacementType.CPU
        if op.name == "mhlo.tuple":
            return self._tuple_element_placement(op, index)
        if op.name == "mhlo_disc.custom_call_v2":
            items = _custom_call_items(op, "output_placements")
            if index < len(items):
                return custom_call_v2_placement(items[index], self.on_gpu)
        return self.op_placement(op)

    def argument_placement(self, arg: BlockArgument) -> PlacementType:
        return self.inputs[arg.index]

    def _is_main_argument(self, value: SSAValue) -> bool:
        return isinstance(value, BlockArgument) and value.block is self.main.regions[0].blocks.first

    def value_placement(self, value: SSAValue) -> PlacementType | None:
        """Where `value` lives, looking through `tensor.cast` (None: not known here)."""
        while isinstance(value, OpResult) and value.op.name == "tensor.cast":
            value = value.op.operands[0]
        if isinstance(value, OpResult):
            return self.output_placement(value.op, value.index)
        if self._is_main_argument(value):
            assert isinstance(value, BlockArgument)
            return self.argument_placement(value)
        return None

    # -- the steps -----------------------------------------------------------

    def place_custom_call_v2_ops(self) -> None:
        for op in preorder_ops(self.module):
            if op.name != "mhlo_disc.custom_call_v2":
                continue
            device = op.attributes.get("device")
            item = device.data if isinstance(device, StringAttr) else "x"
            placement = custom_call_v2_placement(item, self.on_gpu)
            op.attributes[PLACEMENT_ATTR] = StringAttr(str(placement))

    def place_i64_returned_cpu_scalar_ops(self) -> None:
        block = self.main.regions[0].blocks.first
        assert block is not None
        ret = block.last_op
        if ret is None or ret.name != "func.return":
            return
        if len(ret.operands) != len(self.outputs):
            raise DiagnosticException("output_placements size is not equal to num of outputs")
        marked: set[Operation] = set()
        for index, value in enumerate(ret.operands):
            op = _defining_op(value)
            if op is None or not is_mhlo_or_std_on_tensor(op):
                continue
            if op.name == "mhlo_disc.custom_call_v2":
                continue  # its output placements are explicit
            t = op.results[0].type
            if (
                isinstance(t, TensorType)
                and self.outputs[index] == PlacementType.CPU
                and isinstance(t.element_type, IntegerType)
                and t.element_type.width.data == 64
                and t.get_num_dims() == 0
            ):
                marked.add(op)
        for op in reversed(list(block.ops)):
            if op not in marked or not is_mhlo_or_std_on_tensor(op):
                continue
            for value in op.operands:
                producer = _defining_op(value)
                if producer is not None and is_mhlo_or_std_on_tensor(producer):
                    marked.add(producer)
        for op in marked:
            _set_placement(op, CPU)

    def place_shape_ops_on_cpu(self) -> None:
        for op in preorder_ops(self.module):
            if not is_mhlo_or_std_on_tensor(op):
                continue
            attr = op.attributes.get(SHAPE_OP_ATTR)
            if attr is None:
                continue
            if has_tuple_result(op):
                if not isinstance(attr, ArrayAttr):
                    raise DiagnosticException(f"{SHAPE_OP_ATTR} of a tuple op must be an array")
                op.attributes[PLACEMENT_ATTR] = ArrayAttr(
                    [StringAttr(CPU if bool_attr_value(a) else GPU) for a in attr.data]
                )
            elif bool_attr_value(attr) is not None:
                op.attributes[PLACEMENT_ATTR] = StringAttr(CPU)

    def _is_i32_computation(self, op: Operation) -> bool:
        dominant = _PLACE_RULES.get(op.name)
        if dominant is not None:
            if dominant >= len(op.operands):
                return False
            elem = _element_type(op.operands[dominant])
            return elem is not None and _is_i32(elem)
        shape_operands = set(shape_calc_operand_indices(op))
        for index, value in enumerate(op.operands):
            if index in shape_operands:
                continue
            elem = _element_type(value)
            if elem is not None and _is_i32(elem):
                return True
        return False

    def _place_topk_indices_on_gpu(self, op: Operation) -> None:
        """TopK has only a GPU kernel: keep its iota indices on the GPU."""
        if len(op.operands) < 2:
            return
        indices = _defining_op(op.operands[1])
        if indices is None:
            return
        if indices.name in ("mhlo.iota", "mhlo.dynamic_iota"):
            indices.attributes[PLACEMENT_ATTR] = StringAttr(GPU)
        elif indices.name in ("mhlo.broadcast_in_dim", "mhlo.dynamic_broadcast_in_dim"):
            iota = _defining_op(indices.operands[0])
            if iota is not None and iota.name in ("mhlo.iota", "mhlo.dynamic_iota"):
                iota.attributes[PLACEMENT_ATTR] = StringAttr(GPU)
                indices.attributes[PLACEMENT_ATTR] = StringAttr(GPU)

    def place_i32_ops(self) -> None:
        for op in preorder_ops(self.module):
            if not is_mhlo_or_std_on_tensor(op) or op.name in _I32_SKIPPED:
                continue
            if _in_body_of_mhlo_op(op):
                continue  # computes inside its owner (a reducer), placed with it
            if op_placement_string(op) == CPU:
                continue
            if op.name in _RESULT_TYPED:
                elem = _element_type(op.results[0]) if op.results else None
                if elem is not None and _is_i32(elem):
                    op.attributes[PLACEMENT_ATTR] = StringAttr(CPU)
                continue
            is_shape_calc = self._is_i32_computation(op)
            if op.name == "mhlo_disc.custom_call":
                target = op.attributes.get("call_target_name")
                target_name = target.data if isinstance(target, StringAttr) else ""
                if target_name in ("topk", "rng_uniform"):
                    is_shape_calc = False
                if self.on_gpu and target_name == "topk":
                    self._place_topk_indices_on_gpu(op)
            if is_shape_calc:
                _set_placement(op, CPU)

    def place_host_loop_ops_on_cpu(self) -> None:
        """`mhlo.sort` and `mhlo.scatter` run on the host: disc-ir's sort
        schedule is a merge sort per row, its scatter schedule a serial loop
        over the updates (BladeDISC has no lmhlo.sort or lmhlo.scatter
        codegen; its GPU sort is the `topk` custom call); convolutions too
        (the RAL's conv is a host library call)."""
        for op in preorder_ops(self.module):
            if op.name in _HOST_LOOP_OPS and PLACEMENT_ATTR not in op.attributes:
                _set_placement(op, CPU)

    def add_default_placements(self) -> None:
        default = GPU if self.on_gpu else CPU
        for op in preorder_ops(self.module):
            if not is_mhlo_dialect(op) or not op.results:
                continue
            if PLACEMENT_ATTR in op.attributes:
                continue
            owner = op.parent_op() if _in_body_of_mhlo_op(op) else None
            placement = owner.attributes.get(PLACEMENT_ATTR) if owner is not None else None
            if isinstance(placement, StringAttr):
                # the owner (walked first) was placed: its body runs there too
                op.attributes[PLACEMENT_ATTR] = placement
                continue
            _set_placement(op, default)

    def _crossing(
        self, dst_placement: PlacementType, src_placement: PlacementType | None
    ) -> bool | None:
        """True: needs h2d, False: needs d2h, None: no copy."""
        if dst_placement == PlacementType.CPU and src_placement == PlacementType.GPU:
            return False
        if dst_placement == PlacementType.GPU and src_placement == PlacementType.CPU:
            return True
        return None

    def insert_memcpy_nodes(self) -> None:
        h2d: list[tuple[Operation, int]] = []
        d2h: list[tuple[Operation, int]] = []

        def record(dst: Operation, index: int, is_h2d: bool | None) -> None:
            if is_h2d is True:
                h2d.append((dst, index))
            elif is_h2d is False:
                d2h.append((dst, index))

        for dst in preorder_ops(self.module):
            if dst.name == "func.return" and dst.parent_op() is self.main:
                if len(dst.operands) != len(self.outputs):
                    raise DiagnosticException(
                        "output_placements size is not equal to num of outputs"
                    )
                for index, value in enumerate(dst.operands):
                    record(
                        dst, index, self._crossing(self.outputs[index], self.value_placement(value))
                    )
            if dst.name == "tensor.extract":
                source = dst.operands[0]
                if (
                    self._is_main_argument(source)
                    and isinstance(source, BlockArgument)
                    and self.argument_placement(source) == PlacementType.GPU
                ):
                    d2h.append((dst, 0))
            if not is_mhlo_or_std_on_tensor(dst) or dst.name in (
                "mhlo.get_tuple_element",
                "mhlo.return",
            ):
                continue
            for index, value in enumerate(dst.operands):
                if isinstance(value, BlockArgument) and not self._is_main_argument(value):
                    continue  # a region argument: copies go outside the region op
                src_placement = self.value_placement(value)
                if src_placement is None:
                    continue
                record(dst, index, self._crossing(self.input_placement(dst, index), src_placement))

        copies: dict[tuple[SSAValue, Operation, bool], SSAValue] = {}
        for dst, index in h2d:
            self._insert_memcpy(dst, index, True, copies)
        for dst, index in d2h:
            self._insert_memcpy(dst, index, False, copies)

    @staticmethod
    def _insert_memcpy(
        dst: Operation,
        index: int,
        is_h2d: bool,
        copies: dict[tuple[SSAValue, Operation, bool], SSAValue],
    ) -> None:
        """Copy operand `index` of `dst` across devices. A value a region body
        captures from above (a sort comparator reading a constant) is copied
        once, before the region's owner, in the value's own block: region
        bodies hold no copies."""
        operand = dst.operands[index]
        def_block = (
            operand.block
            if isinstance(operand, BlockArgument)
            else cast(OpResult, operand).op.parent_block()
        )
        anchor = dst
        while anchor.parent_block() is not def_block and anchor.parent_op() is not None:
            parent = anchor.parent_op()
            if parent is None or parent.parent_block() is None:
                break
            anchor = parent
        if anchor.parent_block() is not def_block:
            anchor = dst
        # copies before a region's owner are shared by the body's uses; others
        # are one per use, as BladeDISC inserts them
        key = (operand, anchor, is_h2d)
        if anchor is not dst and key in copies:
            dst.operands[index] = copies[key]
            return
        if is_h2d:
            copy: Operation = H2DOp(operand)
        else:
            copy = D2HOp(operand, attributes={PLACEMENT_ATTR: StringAttr(CPU)})
        block = anchor.parent_block()
        assert block is not None
        block.insert_op_before(copy, anchor)
        dst.operands[index] = copy.results[0]
        copies[key] = copy.results[0]


@register_pass
@dataclass(frozen=True)
class MhloPlaceOpsPass(ModulePass):
    """Place shape calculation Ops on Cpu."""

    name = "mhlo-place-ops"

    on_gpu: bool = True

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "on-gpu": "Data calculation Ops are placed on GPU or not",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        main = find_entry_function(op)
        if main is None:
            raise DiagnosticException("entry function not found.")
        placer = _Placer(
            module=op,
            main=main,
            on_gpu=self.on_gpu,
            inputs=entry_input_placements(main, self.on_gpu),
            outputs=entry_output_placements(main, self.on_gpu),
        )
        placer.place_custom_call_v2_ops()
        placer.place_i64_returned_cpu_scalar_ops()
        placer.place_shape_ops_on_cpu()
        placer.place_i32_ops()
        placer.place_host_loop_ops_on_cpu()
        placer.add_default_placements()
        placer.insert_memcpy_nodes()
