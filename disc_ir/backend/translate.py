"""Translation of an xDSL `llvm`-dialect module to LLVM IR (llvmlite).

`module_to_llvm_ir(module)` gives LLVM IR text, through xDSL's llvmlite
converter (xdsl/backend/llvm) extended with what disc-to-llvm emits and it
lacks: `llvm.fptosi/fptoui/uitofp`, `llvm.extractelement`, `llvm.switch`,
`llvm.atomicrmw`, `llvm.cmpxchg`, `fcmp false/true`, byte-string and
zero-initialized globals, global alignment and function linkage. The triple
and data layout are the host's. With `merge_identical`, function definitions
identical but for their names (the kernels of repeated layers) are translated
once (`identical_functions`). `llvm_type` is the type conversion (`bf16`
stored as `i16`).
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any

import llvmlite.binding as llvm_binding
import llvmlite.ir as ir
from xdsl.backend.llvm.convert_op import (
    _BINARY_INTRINSIC_MAP,
    _UNARY_INTRINSIC_MAP,
    create_constant,
)
from xdsl.backend.llvm.convert_op import convert_op as xdsl_convert_op
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from disc_ir.backend.target import BackendError, host_target_machine
from disc_ir.dialects.upstream import llvm as dllvm
from disc_ir.ir.memo import IdentityMemo
from disc_ir.ir.structural_key import StructuralKey, identical_symbols

#: bf16 values live in LLVM as their i16 bit patterns. The pipeline leaves
#: only loads, stores, selects, bitcasts and constants of bf16 (arithmetic is
#: emulated in f32, conversions expanded to integer ops); LLVM's own `bfloat`
#: would be soft-promoted to f32 by the x86 backend, whose truncation back is
#: a library call (`__truncsfbf2`) the JIT does not have.
BF16_STORAGE = ir.IntType(16)


def bf16_bits(value: float) -> int:
    """The bfloat16 bit pattern of `value` (float32 rounded to nearest even;
    a NaN stays a quiet NaN of its sign)."""
    import numpy as np

    bits = int(np.array(value, np.float32).view(np.uint32))
    if value != value:  # NaN
        return (bits >> 16) | 0x40
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


#: converted types, by value: a module's few types recur thousands of times
#: (a memref descriptor struct per GEP) and xDSL converts nested ones anew
_LLVM_TYPES: dict[Any, ir.Type] = {}
_LLVM_TYPES_LIMIT = 1 << 12


def _llvm_type(t: Any) -> ir.Type:
    found = _LLVM_TYPES.get(t)
    if found is not None:
        return found
    if isinstance(t, BFloat16Type):
        converted: ir.Type = BF16_STORAGE
    elif isinstance(t, dllvm.LLVMTypedPointerType):  # pointers are opaque
        converted = convert_type(llvm.LLVMPointerType(t.addr_space))
    elif isinstance(t, llvm.LLVMArrayType):
        converted = ir.ArrayType(llvm_type(t.type), t.size.data)
    elif isinstance(t, llvm.LLVMStructType):
        # members converted here too: xDSL's converter knows no bf16 (a scalar
        # bf16 result of a reduction lives in a struct of loop-carried values)
        converted = ir.LiteralStructType([llvm_type(m) for m in t.types.data])
    else:
        converted = convert_type(t)
    if len(_LLVM_TYPES) >= _LLVM_TYPES_LIMIT:
        _LLVM_TYPES.clear()
    _LLVM_TYPES[t] = converted
    return converted


#: ... and by type object first (a few hundred objects serve a whole module;
#: hashing a struct type rehashes all its members)
_LLVM_TYPE_OF: IdentityMemo[Any, ir.Type] = IdentityMemo(_llvm_type)


def llvm_type(t: Any) -> ir.Type:
    """xDSL's type conversion, plus `bf16` -> `i16` (`BF16_STORAGE`).

    Results are memoized (llvmlite's literal types are plain values, never
    changed once made)."""
    return _LLVM_TYPE_OF(t)


# ---------------------------------------------------------------------------
# xDSL llvm dialect -> llvmlite IR
# ---------------------------------------------------------------------------

ValueMap = dict[SSAValue, ir.Value]
BlockMap = dict[Block, ir.Block]


def _add_incoming(
    dest: Block, values: tuple[SSAValue, ...] | list[SSAValue], vmap: ValueMap, current: ir.Block
) -> None:
    for arg, value in zip(dest.args, values, strict=True):
        phi = vmap[arg]
        assert isinstance(phi, ir.PhiInstr)
        phi.add_incoming(vmap[value], current)


def _convert_switch(
    op: dllvm.SwitchOp, builder: ir.IRBuilder, vmap: ValueMap, bmap: BlockMap
) -> None:
    parent = op.parent_block()
    assert parent is not None
    current = bmap[parent]
    _add_incoming(op.default_destination, tuple(op.default_operands), vmap, current)
    flag = vmap[op.value]
    switch = builder.switch(flag, bmap[op.default_destination])
    seen: set[Block] = {op.default_destination}
    for i, (value, dest) in enumerate(
        zip(op.case_values_list(), op.case_destinations, strict=True)
    ):
        if dest not in seen:
            _add_incoming(dest, op.operands_of_case(i), vmap, current)
            seen.add(dest)
        switch.add_case(ir.Constant(flag.type, value), bmap[dest])


_FCMP = {
    "_false": ("false", False),
    "_true": ("true", False),
    "oeq": ("==", True),
    "ogt": (">", True),
    "oge": (">=", True),
    "olt": ("<", True),
    "ole": ("<=", True),
    "one": ("!=", True),
    "ord": ("ord", True),
    "ueq": ("==", False),
    "ugt": (">", False),
    "uge": (">=", False),
    "ult": ("<", False),
    "ule": ("<=", False),
    "une": ("!=", False),
    "uno": ("uno", False),
}


def _convert_fcmp(op: llvm.FCmpOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap) -> None:
    flag = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data)
    cmpop, ordered = _FCMP[flag.value]
    fn = builder.fcmp_ordered if ordered else builder.fcmp_unordered
    flags = [f.value for f in op.fastmathFlags.data] if op.fastmathFlags.data else ()
    vmap[op.res] = fn(cmpop, vmap[op.lhs], vmap[op.rhs], flags=flags)


def _convert_alloca(op: llvm.AllocaOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap) -> None:
    instr = builder.alloca(llvm_type(op.elem_type), size=vmap[op.size])
    instr.type = ir.PointerType()  # opaque, as every pointer here
    if op.alignment is not None:
        instr.align = op.alignment.value.data
    vmap[op.res] = instr


def _convert_gep(op: llvm.GEPOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap) -> None:
    ssa_indices = iter(op.ssa_indices)
    indices = [
        vmap[next(ssa_indices)] if idx == llvm.GEP_USE_SSA_VAL else ir.Constant(ir.IntType(32), idx)
        for idx in op.rawConstantIndices.iter_values()
    ]
    instr = builder.gep(
        vmap[op.ptr],
        indices,
        inbounds=op.inbounds is not None,
        source_etype=llvm_type(op.elem_type),
    )
    instr.type = ir.PointerType()
    vmap[op.result] = instr


def _convert_load(op: llvm.LoadOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap) -> bool:
    if not isinstance(op.results[0].type, BFloat16Type):
        return False
    load = builder.load(vmap[op.ptr], typ=BF16_STORAGE)
    if op.alignment:
        load.align = op.alignment.value.data
    vmap[op.results[0]] = load
    return True


def _convert_bitcast(
    op: llvm.BitcastOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap
) -> bool:
    src, dst = op.operands[0].type, op.results[0].type
    if BF16_STORAGE == llvm_type(dst) and llvm_type(src) == BF16_STORAGE:
        vmap[op.results[0]] = vmap[op.operands[0]]  # bf16 <-> i16: the same bits
        return True
    if isinstance(dst, BFloat16Type) or isinstance(src, BFloat16Type):
        vmap[op.results[0]] = builder.bitcast(vmap[op.operands[0]], llvm_type(dst))
        return True
    return False


def _convert_float_intrinsic(
    op: Operation, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap
) -> bool | None:
    """`llvm.intr.floor` & co. (xDSL's unary / binary intrinsic ops) on a type
    whose unmangled declaration (`llvm.floor`, what xDSL declares) is taken by
    another type: the intrinsic mangled with its overload type
    (`llvm.floor.f16`, LLVM's name for it). A GPU kernel module can hold both
    (f16 `floor` beside the f32 `floor` of an approximation), and xDSL's
    converter would call the first declaration with the other type. False
    (xDSL's converter) otherwise."""
    name = _UNARY_INTRINSIC_MAP.get(type(op)) or _BINARY_INTRINSIC_MAP[type(op)]
    args = [vmap[v] for v in op.operands]
    fn_type = ir.FunctionType(args[0].type, [a.type for a in args])
    existing = builder.module.globals.get(name)
    if existing is None or existing.function_type == fn_type:
        return False
    fn = builder.module.declare_intrinsic(name, [args[0].type], fnty=fn_type)
    vmap[op.results[0]] = builder.call(fn, args)
    return None


def _convert_constant(op: llvm.ConstantOp, _b: ir.IRBuilder, vmap: ValueMap, _: BlockMap) -> bool:
    if not isinstance(op.result.type, BFloat16Type):
        return False
    value = getattr(op.value, "value", None)
    data = getattr(value, "data", None)
    if not isinstance(data, float):
        raise BackendError(f"unsupported bf16 constant {op.value}")
    vmap[op.result] = ir.Constant(BF16_STORAGE, bf16_bits(data))
    return True


def _convert_atomic_cmpxchg(
    op: dllvm.AtomicCmpXchgOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap
) -> None:
    vmap[op.res] = builder.cmpxchg(
        vmap[op.ptr],
        vmap[op.cmp],
        vmap[op.val],
        dllvm.ATOMIC_ORDERINGS[op.success_ordering.value.data],
        dllvm.ATOMIC_ORDERINGS[op.failure_ordering.value.data],
    )


def _convert_cast(op: Any, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap) -> None:
    """`fptosi` / `fptoui` / `uitofp` / `addrspacecast`: llvmlite's builder method of that name."""
    method = getattr(builder, _CASTS[type(op)])
    vmap[op.result] = method(vmap[op.arg], llvm_type(op.result.type))


_CASTS: dict[type[Operation], str] = {
    dllvm.FPToSIOp: "fptosi",
    dllvm.FPToUIOp: "fptoui",
    dllvm.UIToFPOp: "uitofp",
    dllvm.AddrSpaceCastOp: "addrspacecast",
}


def _convert_inttoptr(
    op: dllvm.IntToPtrOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap
) -> None:
    """disc-ir's `llvm.inttoptr` (the one parsed; its result may be a typed pointer)."""
    vmap[op.output] = builder.inttoptr(vmap[op.input], llvm_type(op.output.type))


def _convert_extract_element(
    op: dllvm.ExtractElementOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap
) -> None:
    vmap[op.res] = builder.extract_element(vmap[op.vector], vmap[op.position])


def _convert_atomic_rmw(
    op: dllvm.AtomicRMWOp, builder: ir.IRBuilder, vmap: ValueMap, _: BlockMap
) -> None:
    vmap[op.res] = builder.atomic_rmw(op.bin_op_name, vmap[op.ptr], vmap[op.val], op.ordering_name)


#: converters of the ops xDSL's converter lacks or gets wrong here, by exact op
#: class (one dict lookup, where matching an op against a chain of classes
#: costs an ABC instance check per case); one returning False leaves the op
#: to xDSL's converter (the bf16 cases convert bf16 values only)
_CONVERTERS: dict[type[Operation], Any] = {
    **dict.fromkeys(_CASTS, _convert_cast),
    **dict.fromkeys([*_UNARY_INTRINSIC_MAP, *_BINARY_INTRINSIC_MAP], _convert_float_intrinsic),
    llvm.AllocaOp: _convert_alloca,
    llvm.GEPOp: _convert_gep,
    llvm.FCmpOp: _convert_fcmp,
    dllvm.SwitchOp: _convert_switch,
    dllvm.ExtractElementOp: _convert_extract_element,
    dllvm.IntToPtrOp: _convert_inttoptr,
    dllvm.AtomicRMWOp: _convert_atomic_rmw,
    dllvm.AtomicCmpXchgOp: _convert_atomic_cmpxchg,
    llvm.LoadOp: _convert_load,
    llvm.BitcastOp: _convert_bitcast,
    llvm.ConstantOp: _convert_constant,
}


def convert_op(op: Operation, builder: ir.IRBuilder, vmap: ValueMap, bmap: BlockMap) -> None:
    """Converts one op: the extensions first (`_CONVERTERS`), then xDSL's converter.

    Pointers are opaque throughout (`alloca` and `getelementptr` are converted
    here: xDSL's versions produce llvmlite typed pointers).
    """
    convert = _CONVERTERS.get(type(op))
    if convert is None or convert(op, builder, vmap, bmap) is False:
        xdsl_convert_op(op, builder, vmap, bmap)


def _declare_func(op: llvm.FuncOp, module: ir.Module) -> None:
    ftype = op.function_type
    fn_type = ir.FunctionType(
        llvm_type(ftype.output),
        [llvm_type(t) for t in ftype.inputs.data],
        var_arg=ftype.is_variadic,
    )
    fn = ir.Function(module, fn_type, name=op.sym_name.data)
    linkage = op.linkage.linkage.data
    if linkage not in ("external", "") and op.body.blocks:
        fn.linkage = linkage
    arg_attrs = op.properties.get("arg_attrs")
    if isinstance(arg_attrs, ArrayAttr):
        for arg, attrs in zip(fn.args, arg_attrs.data, strict=False):
            _set_param_attributes(arg, attrs)


def _set_param_attributes(arg: Any, attrs: Attribute) -> None:
    """MLIR's LLVM parameter attributes `llvm.align = N` and `llvm.noalias` on
    llvmlite argument `arg` (others are not translated)."""
    if not isinstance(attrs, DictionaryAttr):
        return
    align = attrs.data.get("llvm.align")
    if isinstance(align, IntegerAttr):
        arg.attributes.align = align.value.data
    if "llvm.noalias" in attrs.data:
        arg.add_attribute("noalias")


def _convert_func(op: llvm.FuncOp, module: ir.Module) -> None:
    fn = module.get_global(op.sym_name.data)
    bmap: BlockMap = {}
    vmap: ValueMap = {}
    for i, block in enumerate(op.body.blocks):
        bmap[block] = fn.append_basic_block(name=block.name_hint or "")
        if i == 0:
            for arg, llvm_arg in zip(block.args, fn.args, strict=True):
                vmap[arg] = llvm_arg
    for i, block in enumerate(op.body.blocks):
        if i and block.args:
            builder = ir.IRBuilder(bmap[block])
            for arg in block.args:
                vmap[arg] = builder.phi(llvm_type(arg.type))
    for block in op.body.blocks:
        builder = ir.IRBuilder(bmap[block])
        if bmap[block].instructions:
            builder.position_after(bmap[block].instructions[-1])
        for inner in block.ops:
            convert_op(inner, builder, vmap, bmap)


def _convert_global(op: llvm.GlobalOp, module: ir.Module) -> None:
    gtype = llvm_type(op.global_type)
    gvar = ir.GlobalVariable(
        module, gtype, name=op.sym_name.data, addrspace=op.addr_space.value.data
    )
    linkage = op.linkage.linkage.data
    gvar.linkage = linkage
    if op.constant is not None:
        gvar.global_constant = True
    if isinstance(op.alignment, IntegerAttr):
        gvar.align = op.alignment.value.data
    value = op.value
    if isinstance(value, StringAttr | BytesAttr):
        raw = value.data.encode("utf-8") if isinstance(value, StringAttr) else value.data
        gvar.initializer = ir.Constant(ir.ArrayType(ir.IntType(8), len(raw)), bytearray(raw))
    elif isinstance(value, DenseIntOrFPElementsAttr):
        values = list(value.get_values())
        count = getattr(gtype, "count", len(values))
        if len(values) == 1 and count != 1:
            values = values * count
        gvar.initializer = ir.Constant(gtype, values)
    elif value is not None:
        gvar.initializer = create_constant(op.global_type, value)
    elif linkage != "external":
        gvar.initializer = ir.Constant(gtype, None)


def _function_key(op: llvm.FuncOp, rep: dict[str, str], callees: set[str]) -> StructuralKey | None:
    """A hashable description of `op`'s signature and body, without its name.

    Two functions with equal keys compute the same thing: same properties,
    same ops with the same attributes, operands numbered in definition order,
    same block structure. Symbol references go through `rep` (merged name ->
    representative), so callers of merged functions compare equal too; the
    names referenced are added to `callees`. None when some attribute is not
    hashable or an op has regions (never merged).
    """

    def norm(attr: Any) -> Any:
        # an exact type test: isinstance against xDSL attribute classes is slow
        if attr.__class__ is SymbolRefAttr and not attr.nested_references.data:
            name = attr.root_reference.data
            callees.add(name)
            while name in rep:
                name = rep[name]
            return ("@", name)
        return attr

    numbers: dict[SSAValue, int] = {}
    blocks = {b: i for i, b in enumerate(op.body.blocks)}
    items: list[Any] = [
        tuple(sorted((k, v) for k, v in op.properties.items() if k != "sym_name")),
        tuple(sorted(op.attributes.items())),
    ]
    try:
        for block in op.body.blocks:
            for arg in block.args:
                numbers[arg] = len(numbers)
            items.append(tuple(a.type for a in block.args))
            for inner in block.ops:
                if inner.regions:
                    return None
                for r in inner.results:
                    numbers[r] = len(numbers)
                items.append(
                    (
                        inner.name,
                        tuple(numbers[v] for v in inner.operands),
                        tuple(r.type for r in inner.results),
                        tuple(sorted((k, norm(v)) for k, v in inner.properties.items())),
                        tuple(sorted((k, norm(v)) for k, v in inner.attributes.items())),
                        tuple(blocks[b] for b in inner.successors),
                    )
                )
        return StructuralKey(tuple(items))
    except (KeyError, TypeError):
        return None


def identical_functions(funcs: list[llvm.FuncOp], keep: Collection[str] = ()) -> dict[str, str]:
    """Function definitions that duplicate an earlier one: name -> representative.

    The outlined kernels of repeated subgraphs (e.g. the layers of a
    transformer) are identical but for their names; translating and
    optimizing one copy is enough. Functions named in `keep` are never
    merged away (e.g. the entry, looked up by name). Merging repeats until
    no more functions become equal (wrappers that call merged kernels).
    """
    candidates = [f for f in funcs if f.body.blocks and f.sym_name.data not in keep]
    # Functions equal up to names (and to merges) have the same type and as
    # many ops per block: only those sharing that outline with another need
    # their (costly) structural keys.
    groups: dict[tuple[Any, ...], list[llvm.FuncOp]] = {}
    for f in candidates:
        outline = (f.function_type, tuple(len(b.ops) for b in f.body.blocks))
        groups.setdefault(outline, []).append(f)
    shared = {id(f) for group in groups.values() if len(group) > 1 for f in group}
    return identical_symbols([f for f in candidates if id(f) in shared], _function_key)


@functools.cache
def _host_triple_and_layout() -> tuple[str, str]:
    """This host's target triple and data layout (asked of LLVM once: a
    translation running while a worker thread holds llvmlite's lock, see
    `BackgroundObject`, then does not wait for it)."""
    return llvm_binding.get_default_triple(), str(host_target_machine().target_data)


def module_to_llvm_ir(
    module: ModuleOp,
    target_machine: Any | None = None,
    *,
    merge_identical: Collection[str] | None = None,
    declare_only: Collection[str] = (),
) -> str:
    """The LLVM IR text of `module` (only `llvm.func` / `llvm.mlir.global` at top level).

    `merge_identical`: when given (the names of functions looked up by name,
    e.g. the entry), function definitions identical to an earlier one are
    translated once and every reference to them uses that one instead
    (`identical_functions`). `declare_only`: functions translated as
    declarations (their code comes from another module).
    """
    out = ir.Module(name=str(module.sym_name.data) if module.sym_name else "disc_module")
    if target_machine is None:
        out.triple, out.data_layout = _host_triple_and_layout()
    else:
        out.triple = llvm_binding.get_default_triple()
        out.data_layout = str(target_machine.target_data)
    globals_: list[llvm.GlobalOp] = []
    funcs: list[llvm.FuncOp] = []
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            globals_.append(op)
        elif isinstance(op, llvm.FuncOp):
            funcs.append(op)
        else:
            raise BackendError(f"cannot translate top-level op '{op.name}' to LLVM IR")
    if declare_only:
        skipped = set(declare_only)
        bodies = [f for f in funcs if f.sym_name.data not in skipped]
    else:
        bodies = funcs
    rep = identical_functions(bodies, merge_identical) if merge_identical is not None else {}
    funcs = [f for f in funcs if f.sym_name.data not in rep]
    for g in globals_:
        _convert_global(g, out)
    for f in funcs:
        _declare_func(f, out)
    # References to a merged function resolve to its representative (the
    # converters look symbols up in `out.globals`); the aliases are dropped
    # before printing, which lists `out.globals`.
    for name, other in rep.items():
        out.globals[name] = out.globals[other]
    for f in funcs:
        if f.body.blocks and (not declare_only or f.sym_name.data not in skipped):
            _convert_func(f, out)
    for name in rep:
        del out.globals[name]
    return str(out)
