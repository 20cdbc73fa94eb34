"""`func` -> `llvm` (MLIR's FuncToLLVM, default calling convention).

* `func.func @f(%a: memref<?xf32>, %i: index) -> T` -> `llvm.func @f(!llvm.ptr,
  !llvm.ptr, i64, i64, i64, i64) -> T'`: every memref argument is expanded into
  its descriptor fields (allocated, aligned, offset, sizes..., strides...); the
  entry block rebuilds the descriptor struct from them. No result -> `void`,
  one result -> its LLVM type (a memref: the descriptor struct), several -> a
  struct of them. `!disc_ral.context` is `!llvm.ptr`, so the entry `main(ctx)`
  becomes `llvm.func @main(!llvm.ptr)`. Definitions and declarations get
  external linkage (the JIT looks them up by name).
* Arguments of the other blocks take their LLVM types.
* `func.call` -> `llvm.call` with the expanded operands (results unpacked);
  `func.return` -> `llvm.return` (several values packed into a struct).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import FunctionType, MemRefType, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.conversion.dispatch import OpDispatch
from disc_ir.conversion.llvm_common import (
    Emitter,
    MemRefDescriptor,
    cast_value,
    convert_type,
    expanded_arg_types,
    fail,
    get_attr,
    replace_op,
    retype_block_args,
)


def converted_result_type(results: list[Attribute] | tuple[Attribute, ...]) -> Attribute:
    """The LLVM return type for a function returning `results`."""
    if not results:
        return llvm.LLVMVoidType()
    if len(results) == 1:
        return convert_type(results[0])
    return llvm.LLVMStructType.from_type_list([convert_type(t) for t in results])


def converted_function_type(ftype: FunctionType) -> llvm.LLVMFunctionType:
    """`ftype` under the calling convention of the module docstring."""
    inputs: list[Attribute] = []
    for t in ftype.inputs.data:
        inputs.extend(expanded_arg_types(t))
    return llvm.LLVMFunctionType(inputs, converted_result_type(ftype.outputs.data))


def expand_operands(values: Sequence[SSAValue], em: Emitter) -> list[SSAValue]:
    """The call operands for `values` (memrefs as their descriptor fields)."""
    out: list[SSAValue] = []
    for v in values:
        if isinstance(v.type, MemRefType):
            out.extend(MemRefDescriptor.of(em, v).fields(em))
        else:
            out.append(em.llvm(v))
    return out


def _convert_entry_args(
    func: llvm.FuncOp, arg_types: list[Attribute], rewriter: PatternRewriter
) -> None:
    entry = func.body.blocks.first
    if entry is None:
        return
    position = 0
    for arg in list(entry.args):
        t = arg.type
        if isinstance(t, MemRefType):
            fields = expanded_arg_types(t)
            new_args = [
                rewriter.insert_block_argument(entry, position + k, ft)
                for k, ft in enumerate(fields)
            ]
            position += len(fields)
            em = Emitter(rewriter, InsertPoint.at_start(entry))
            rank = t.get_num_dims()
            desc = MemRefDescriptor.build(
                em,
                t,
                new_args[0],
                new_args[1],
                new_args[2],
                new_args[3 : 3 + rank],
                new_args[3 + rank :],
            )
            value = em.cast(desc.value, t)
            rewriter.replace_all_uses_with(arg, value)
            rewriter.erase_block_argument(arg)
            # Keep the rebuilt descriptors in argument order at the block start.
            continue
        target = convert_type(t)
        if target != t:
            new_arg = rewriter.replace_value_with_new_type(arg, target)
            cast = cast_value(new_arg, t, rewriter, InsertPoint.at_start(entry))
            rewriter.replace_uses_with_if(
                new_arg,
                cast,
                lambda use, c=cast.owner: use.operation is not c,  # type: ignore[misc]  # the default argument binds this cast op
            )
        position += 1
    if [a.type for a in entry.args] != arg_types:
        raise fail(func, "internal error: converted entry block arguments do not match")


def _func(op: Operation, rewriter: PatternRewriter) -> None:
    ftype = op.properties["function_type"]
    assert isinstance(ftype, FunctionType)
    name = op.properties["sym_name"]
    assert isinstance(name, StringAttr)
    llvm_type = converted_function_type(ftype)
    body = rewriter.move_region_contents_to_new_regions(op.regions[0])
    attrs = {
        k: v
        for k, v in op.attributes.items()
        if k not in ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")
    }
    new = llvm.FuncOp(
        name.data,
        llvm_type,
        linkage=llvm.LinkageAttr("external"),
        body=body,
        extra_attrs=attrs,
    )
    rewriter.replace(op, new)
    if body.blocks:
        _convert_entry_args(new, list(llvm_type.inputs.data), rewriter)
        for block in list(body.blocks)[1:]:
            retype_block_args(block, rewriter)


def _return(op: Operation, rewriter: PatternRewriter) -> None:
    em = Emitter(rewriter, op)
    values = [em.llvm(v) for v in op.operands]
    if len(values) > 1:
        struct = em.undef(llvm.LLVMStructType.from_type_list([v.type for v in values]))
        for i, v in enumerate(values):
            struct = em.insert(struct, v, [i])
        values = [struct]
    rewriter.replace(op, llvm.ReturnOp(values[0] if values else None))


def _call(op: Operation, rewriter: PatternRewriter) -> None:
    callee = get_attr(op, "callee")
    em = Emitter(rewriter, op)
    args = expand_operands(op.operands, em)
    result_types = [r.type for r in op.results]
    ret = converted_result_type(result_types)
    call = llvm.CallOp(
        callee,  # type: ignore[arg-type]  # a func.call's callee is a SymbolRefAttr
        *args,
        return_type=None if isinstance(ret, llvm.LLVMVoidType) else ret,
    )
    em.emit(call)
    if len(result_types) <= 1:
        replace_op(op, rewriter, [], [call.returned] if call.returned else [])
        return
    assert call.returned is not None
    values = [em.extract(call.returned, [i], convert_type(t)) for i, t in enumerate(result_types)]
    replace_op(op, rewriter, [], values)


HANDLERS = {
    "func.func": _func,
    "func.return": _return,
    "func.call": _call,
}


def func_to_llvm_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [OpDispatch(HANDLERS)]


__all__ = [
    "converted_function_type",
    "converted_result_type",
    "expand_operands",
    "func_to_llvm_patterns",
]
