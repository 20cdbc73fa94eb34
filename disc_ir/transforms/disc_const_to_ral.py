"""convert lhlo ConstOp to ral const.

`disc-const-to-ral{metadata-file-name=metadata.pbtxt}`, BladeDISC's
DiscConstToRALPass (disc_convert_const_to_ral.cc). Each `lmhlo.constant`
outside `lmhlo.fusion` bodies (constants in fusions stay inline: the fused
kernel computes them) and outside `disc.comp_intens_fusion` functions:

    "lmhlo.constant"(%buf) {value = dense<...> : tensor<100x100xf32>} : (memref<100x100xf32>) -> ()

becomes

    llvm.mlir.global internal constant @__global_const_0("<name>\\00")   // at the module start
    %p = llvm.mlir.addressof @__global_const_0 : !llvm.ptr
    %name = llvm.getelementptr %p[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<N x i8>
    %0 = llvm.mlir.constant(0 : i32) : i32
    %stream = llvm.inttoptr %0 : i32 to !llvm.ptr<i8>
    %c0_i32 = arith.constant <index> : i32
    %r = "disc_ral.dispatch"(%ctx, %stream, %name, %c0_i32) {call_target_name = "ral_const", device = "cpu", ...}
        : (!disc_ral.context, !llvm.ptr<i8>, !llvm.ptr, i32) -> memref<100x100xf32>

and every use of `%buf` is replaced by `%r`. `<name>` is
`<md5>_<i|f><bits>_<d0>x<d1>...` (the MD5 of the hex-encoded raw data, as in
BladeDISC; a splat's raw data is one element, i1 is widened to i8), the
device is `gpu` for a `#gpu.address_space` buffer, else `cpu`, and `<index>`
numbers the distinct names per device in order of appearance. A
`dense_resource<handle>` value (MLIR's resource blob, as torch-mlir writes
parameters) contributes its blob's bytes as they are, without a copy. The contents
are written to the metadata file (format: `disc_ir.runtime.ral_metadata`);
an empty `metadata-file-name` writes no file. Global names skip symbols
already in the module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, builtin, llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    i8,
    i32,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.placement import is_gpu_memref
from disc_ir.analysis.ral_context import context_of, default_stream_ops, is_comp_intens_fusion_func
from disc_ir.dialects.disc_ral import DispatchOp
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.resources import lookup_blob
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.runtime.ral_metadata import (
    MetadataEntry,
    const_md5,
    const_unique_name,
    dense_raw_data,
    element_type_code,
    write_metadata,
)


def _inside(op: Operation, name: str) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.name == name:
            return True
        parent = parent.parent_op()
    return False


def _parent_func(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and parent.name != "func.func":
        parent = parent.parent_op()
    return parent


def _type_tag(memref_type: MemRefType) -> str | None:
    """`i<bits>` / `f<bits>` of BladeDISC's unique const names (index: `i64`)."""
    element = memref_type.get_element_type()
    if isinstance(element, IntegerType):
        return f"i{element.width.data}"
    if isinstance(element, IndexType):
        return "i64"
    width = getattr(element, "bitwidth", None)
    if isinstance(width, int) and element_type_code(element) is not None:
        return f"f{width}"
    return None


def _symbol_names(module: builtin.ModuleOp) -> set[str]:
    names = set()
    for op in module.ops:
        sym = inherent_attr(op, "sym_name")
        if isinstance(sym, StringAttr):
            names.add(sym.data)
    return names


def _resource_data(value: DenseResourceAttr, memref_type: MemRefType) -> memoryview:
    """The bytes of a `dense_resource<handle>` (its blob, not copied), checked against the type."""
    handle = value.resource_handle.data
    blob = lookup_blob(handle)
    if blob is None or blob.data is None:
        raise DiagnosticException(
            f"'lmhlo.constant' op: dense_resource<{handle}> has no data (no entry for it in "
            "the module's dialect_resources section)"
        )
    element = memref_type.get_element_type()
    code = element_type_code(element)
    if code is None:
        raise DiagnosticException(
            f"'lmhlo.constant' op: RAL has no constants of element type {element}"
        )
    item = 1 if code == "i1" else 2 if code == "bf16" else int(code.lstrip("uif")) // 8
    count = 1
    for d in memref_type.get_shape():
        count *= d
    if blob.data.nbytes != count * item:
        raise DiagnosticException(
            f"'lmhlo.constant' op: dense_resource<{handle}> holds {blob.data.nbytes} bytes, "
            f"{memref_type} needs {count * item}"
        )
    return blob.data


@dataclass
class _ConstConverter:
    module: builtin.ModuleOp
    entries: list[MetadataEntry] = field(default_factory=list)
    index_of: dict[tuple[str, str], int] = field(default_factory=dict)
    count: dict[str, int] = field(default_factory=lambda: {"cpu": 0, "gpu": 0})
    symbols: set[str] = field(default_factory=set)
    next_global: int = 0

    def _global_name(self) -> str:
        while True:
            name = f"__global_const_{self.next_global}"
            self.next_global += 1
            if name not in self.symbols:
                self.symbols.add(name)
                return name

    def convert(self, op: Operation) -> None:
        if not op.operands:
            raise DiagnosticException("'lmhlo.constant' op: expected an output buffer")
        value = inherent_attr(op, "value")
        out = op.operands[0]
        if not isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr) or not isinstance(
            out.type, MemRefType
        ):
            raise DiagnosticException(
                "'lmhlo.constant' op: convert lmhlo.const to RAL failed: expected a dense "
                "value and a memref output"
            )
        tag = _type_tag(out.type)
        if tag is None or any(d < 0 for d in out.type.get_shape()):
            raise DiagnosticException(
                f"'lmhlo.constant' op: fail to generate a unique name for const of type {out.type}"
            )
        data: bytes | memoryview
        if isinstance(value, DenseResourceAttr):
            data = _resource_data(value, out.type)
        else:
            raw = dense_raw_data(value)
            if raw is None:
                raise DiagnosticException(
                    f"'lmhlo.constant' op: fail to generate a unique name for const of type "
                    f"{out.type}"
                )
            data = raw[2]
        md5 = const_md5(data)
        name = const_unique_name(md5, tag, out.type.get_shape())
        device = "gpu" if is_gpu_memref(out) else "cpu"
        key = (device, name)
        if key not in self.index_of:
            index = self.count[device]
            self.count[device] += 1
            self.index_of[key] = index
            dtype = element_type_code(out.type.get_element_type())
            assert dtype is not None
            self.entries.append(
                MetadataEntry(md5, name, device, index, dtype, tuple(out.type.get_shape()), data)
            )
        ctx = context_of(op)

        text = name + "\0"
        array_type = llvm.LLVMArrayType(IntAttr(len(text)), i8)
        symbol = self._global_name()
        global_op = llvm.GlobalOp(
            array_type, symbol, "internal", constant=True, value=StringAttr(text)
        )
        Rewriter.insert_op(global_op, InsertPoint.at_start(self.module.body.block))
        addr = llvm.AddressOfOp(symbol, llvm.LLVMPointerType())
        name_ptr = llvm.GEPOp(addr.result, [0, 0], array_type)
        zero, stream = default_stream_ops()
        const_idx = arith.ConstantOp(IntegerAttr(self.index_of[key], i32))
        dispatch = DispatchOp(
            ctx,
            [stream.results[0], name_ptr.result, const_idx.result],
            [out.type],
            "ral_const",
            device,
        )
        Rewriter.insert_op(
            [addr, name_ptr, zero, stream, const_idx, dispatch], InsertPoint.before(op)
        )
        Rewriter.erase_op(op)
        out.replace_all_uses_with(dispatch.results[0])


@register_pass
@dataclass(frozen=True)
class DiscConstToRALPass(ModulePass):
    """convert lhlo ConstOp to ral const."""

    name = "disc-const-to-ral"

    metadata_file_name: str = "metadata.pbtxt"

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "metadata-file-name": "Name of the metadata file (empty: write none).",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        worklist: list[Operation] = []
        for o in preorder_ops(op):
            if o.name != "lmhlo.constant" or _inside(o, "lmhlo.fusion"):
                continue
            f = _parent_func(o)
            if f is not None and is_comp_intens_fusion_func(f):
                continue
            worklist.append(o)
        converter = _ConstConverter(op, symbols=_symbol_names(op))
        for o in worklist:
            converter.convert(o)
        if self.metadata_file_name:
            try:
                write_metadata(self.metadata_file_name, converter.entries)
            except OSError as e:
                raise DiagnosticException(
                    f"failed to write metadata file {self.metadata_file_name}: {e}"
                ) from e
