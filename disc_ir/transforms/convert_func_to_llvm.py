"""`convert-func-to-llvm`: `func` functions, calls and returns to the `llvm` dialect.

MLIR's pass of that name, with disc-ir's FuncToLLVM patterns
(`disc_ir.conversion.func_to_llvm`: memref arguments expanded into their
descriptor fields). A function marked `llvm.emit_c_interface` also gets
MLIR's C-interface wrapper `llvm.func @_mlir_ciface_<name>` with the same
arguments, calling it (both marked `llvm.emit_c_interface`): the name C code
and the runtime call. The wrapper is made for functions whose arguments and
results are not memrefs (upstream passes memref descriptors by pointer
there); the pass fails naming a function it cannot wrap. The module gets an
empty `llvm.data_layout` unless it has one (the host's is set when it is
translated).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.conversion.func_to_llvm import converted_function_type, func_to_llvm_patterns
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.greedy import greedy_applier
from disc_ir.rewriting.okl_kernels import CIFACE_PREFIX
from disc_ir.rewriting.walker import PatternRewriteWalker


def c_interface_wrapper(f: func.FuncOp) -> llvm.FuncOp:
    """`llvm.func @_mlir_ciface_<f>` calling `f` with its own arguments."""
    ftype = f.function_type
    name = f.sym_name.data
    if any(isinstance(t, MemRefType) for t in (*ftype.inputs.data, *ftype.outputs.data)):
        raise DiagnosticException(
            f"convert-func-to-llvm: no C interface for '@{name}': memref arguments or "
            "results are not supported"
        )
    llvm_type = _llvm_function_type(f)
    block = Block(arg_types=list(llvm_type.inputs.data))
    returns_value = not isinstance(llvm_type.output, llvm.LLVMVoidType)
    call = llvm.CallOp(name, *block.args, return_type=llvm_type.output if returns_value else None)
    block.add_op(call)
    block.add_op(llvm.ReturnOp(call.returned if returns_value else None))
    return llvm.FuncOp(
        CIFACE_PREFIX + name,
        llvm_type,
        linkage=llvm.LinkageAttr("external"),
        body=Region(block),
        extra_attrs={"llvm.emit_c_interface": UnitAttr()},
    )


def _keeps_types(f: func.FuncOp) -> bool:
    """Whether every argument and result type of `f` is an LLVM type already
    (`!llvm.ptr<i8>` stays typed, as MLIR's conversion keeps it)."""
    ftype = f.function_type
    return all(llvm.is_compatible_type(t) for t in (*ftype.inputs.data, *ftype.outputs.data))


def _llvm_function_type(f: func.FuncOp) -> llvm.LLVMFunctionType:
    if not _keeps_types(f):
        return converted_function_type(f.function_type)
    outputs = f.function_type.outputs.data
    if len(outputs) > 1:
        return converted_function_type(f.function_type)
    return llvm.LLVMFunctionType(list(f.function_type.inputs.data), outputs[0] if outputs else None)


def _convert_keeping_types(f: func.FuncOp) -> None:
    """`f` as an `llvm.func` of the same types (its returns converted by the patterns)."""
    attrs = {
        k: v
        for k, v in f.attributes.items()
        if k not in ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")
    }
    body = Region()
    f.body.move_blocks(body)
    new = llvm.FuncOp(
        f.sym_name.data,
        _llvm_function_type(f),
        linkage=llvm.LinkageAttr("external"),
        body=body,
        extra_attrs=attrs,
    )
    Rewriter.replace_op(f, new)


@register_pass
@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ModulePass):
    """convert func functions, calls and returns to the llvm dialect (with C-interface wrappers)."""

    name = "convert-func-to-llvm"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        wrapped = [
            f
            for f in op.body.block.ops
            if isinstance(f, func.FuncOp)
            and "llvm.emit_c_interface" in f.attributes
            and f.body.blocks
        ]
        wrappers = [(f, c_interface_wrapper(f)) for f in wrapped]
        for f in list(op.body.block.ops):
            if (
                isinstance(f, func.FuncOp)
                and _keeps_types(f)
                and len(f.function_type.outputs.data) <= 1
            ):
                _convert_keeping_types(f)
        PatternRewriteWalker(
            greedy_applier(func_to_llvm_patterns()), apply_recursively=True
        ).rewrite_module(op)
        for f, wrapper in wrappers:
            converted = next(
                o
                for o in op.body.block.ops
                if isinstance(o, llvm.FuncOp) and o.sym_name.data == f.sym_name.data
            )
            Rewriter.insert_op(wrapper, InsertPoint.after(converted))
        if "llvm.data_layout" not in op.attributes:
            op.attributes["llvm.data_layout"] = StringAttr("")
