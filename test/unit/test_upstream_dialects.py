"""Upstream dialects as disc-ir extends them: shape, memref, scf, gpu,
bufferization, affine, tensor.

Valid IR in MLIR's syntax round-trips; invalid IR is rejected with a message
naming the problem (by the verifier, or by the parser for syntax errors).
"""

from __future__ import annotations

import io

import pytest
from xdsl.context import Context
from xdsl.dialects import memref as xmemref
from xdsl.dialects.builtin import IndexType, MemRefType, TensorType, f32
from xdsl.ir.affine import AffineExpr
from xdsl.utils.test_value import create_ssa_value

from disc_ir.dialects.upstream.affine import AFFINE
from disc_ir.dialects.upstream.bufferization import BUFFERIZATION, ToMemrefOp
from disc_ir.dialects.upstream.gpu import GPU, AddressSpace, AddressSpaceAttr
from disc_ir.dialects.upstream.memref import MEMREF
from disc_ir.dialects.upstream.scf import SCF
from disc_ir.dialects.upstream.shape import SHAPE, ConstShapeOp, ShapeType
from disc_ir.dialects.upstream.tensor import TENSOR
from disc_ir.ir.affine_expr import format_affine_expr
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import Diagnostic, parse_module
from disc_ir.ir.printer import print_module
from disc_ir.ir.verify import first_verify_failure


def _context_with_tensor() -> Context:
    """The disc-ir context, with this package's tensor dialect (adds tensor.generate)."""
    base = make_context()
    ctx = Context()
    for name in base.registered_dialect_names:
        if name != "tensor":
            ctx.register_dialect(name, base._registered_dialects[name])  # noqa: SLF001
    ctx.register_dialect("tensor", lambda: TENSOR)
    return ctx


def verify_error(text: str, ctx: Context | None = None) -> str | None:
    """Parse `text`; return `'<op>' <message>` of the first failing op, if any."""
    module = parse_module(ctx or make_context(), text)
    failure = first_verify_failure(module)
    if failure is None:
        return None
    return f"'{failure[0]}' {failure[1]}"


def roundtrip(text: str, ctx: Context | None = None) -> str:
    """Parse, verify and print `text`; check that printing is a fixed point."""
    ctx = ctx or make_context()
    module = parse_module(ctx, text)
    assert first_verify_failure(module) is None
    out = io.StringIO()
    print_module(module, out)
    again = io.StringIO()
    print_module(parse_module(ctx, out.getvalue()), again)
    assert again.getvalue() == out.getvalue()
    return out.getvalue()


def func(args: str, body: str) -> str:
    return f"func.func @f({args}) {{\n{body}\n  return\n}}\n"


def check_invalid(text: str, *fragments: str, ctx: Context | None = None) -> None:
    message = verify_error(text, ctx)
    assert message is not None, "expected a verification error"
    for fragment in fragments:
        assert fragment in message, message


def check_parse_error(text: str, *fragments: str) -> None:
    with pytest.raises(Diagnostic) as info:
        parse_module(make_context(), text)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_dialect_objects_keep_xdsl_ops() -> None:
    names = {op.name for op in MEMREF.operations}
    assert {"memref.cast", "memref.copy", "memref.alloc", "memref.subview"} <= names
    # replacements subclass xDSL's classes, so matching on xDSL's types still works
    cast = next(op for op in MEMREF.operations if op.name == "memref.cast")
    assert issubclass(cast, xmemref.CastOp)
    assert "gpu.shuffle" in {op.name for op in GPU.operations}
    assert "affine.max" in {op.name for op in AFFINE.operations}
    assert "bufferization.to_memref" in {op.name for op in BUFFERIZATION.operations}
    assert "shape.assuming" in {op.name for op in SHAPE.operations}
    assert {op.name for op in SCF.operations} >= {"scf.parallel", "scf.reduce"}


# ---------------------------------------------------------------------------
# affine expressions
# ---------------------------------------------------------------------------


def test_semi_affine_expressions_build_and_print() -> None:
    d0, s0, s1 = AffineExpr.dimension(0), AffineExpr.symbol(0), AffineExpr.symbol(1)
    assert format_affine_expr((d0 - s0).ceil_div(s1)) == "(d0 - s0) ceildiv s1"
    assert format_affine_expr(s0 * d0 + s1) == "d0 * s0 + s1"
    assert format_affine_expr(d0 % s0) == "d0 mod s0"
    assert format_affine_expr(d0 // (s0 * 2)) == "d0 floordiv (s0 * 2)"
    assert format_affine_expr(-d0 + 2) == "-d0 + 2"
    assert format_affine_expr(d0 - d0 * 3) == "d0 - d0 * 3"


def test_non_affine_products_are_rejected() -> None:
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    with pytest.raises(ValueError, match="at least one of the multiply operands"):
        _ = d0 * d1
    with pytest.raises(ValueError, match="right operand of ceildiv"):
        d0.ceil_div(d1)
    check_parse_error("#m = affine_map<(d0, d1) -> (d0 * d1)>\n", "non-affine expression")


def test_affine_max_operand_count() -> None:
    check_parse_error(
        func("%a: index", "  %0 = affine.max affine_map<(d0, d1) -> (d0, d1)>(%a)"),
        "expected 2 dimension operands, got 1",
    )


# ---------------------------------------------------------------------------
# memref
# ---------------------------------------------------------------------------


def test_memref_cast_incompatible() -> None:
    check_invalid(
        func("%m: memref<?xf32>", "  %0 = memref.cast %m : memref<?xf32> to memref<4xi32>"),
        "cast incompatible",
    )
    check_invalid(
        func("%m: memref<3xf32>", "  %0 = memref.cast %m : memref<3xf32> to memref<4xf32>"),
        "shapes differ",
    )
    check_invalid(
        func(
            "%m: memref<?xf32>",
            "  %0 = memref.cast %m : memref<?xf32> to memref<?xf32, #gpu.address_space<global>>",
        ),
        "memory space",
    )


def test_memref_copy_shapes_need_only_be_compatible() -> None:
    roundtrip(
        func(
            "%a: memref<?xf32>, %b: memref<4xf32>",
            "  memref.copy %a, %b : memref<?xf32> to memref<4xf32>",
        )
    )
    check_invalid(
        func(
            "%a: memref<3xf32>, %b: memref<4xf32>",
            "  memref.copy %a, %b : memref<3xf32> to memref<4xf32>",
        ),
        "same shape",
    )


def test_memref_atomic_rmw() -> None:
    text = roundtrip(
        func(
            "%m: memref<?xf32>, %v: f32, %i: index",
            "  %0 = memref.atomic_rmw minf %v, %m[%i] : (f32, memref<?xf32>) -> f32",
        )
    )
    assert "memref.atomic_rmw minimumf" in text
    check_parse_error(
        func(
            "%m: memref<?xf32>, %v: f32, %i: index",
            "  %0 = memref.atomic_rmw bogus %v, %m[%i] : (f32, memref<?xf32>) -> f32",
        ),
        "unknown atomic_rmw kind 'bogus'",
    )
    check_invalid(
        func(
            "%m: memref<?x?xf32>, %v: f32, %i: index",
            "  %0 = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<?x?xf32>) -> f32",
        ),
        "number of subscripts",
    )


# ---------------------------------------------------------------------------
# gpu
# ---------------------------------------------------------------------------


def _gpu_module(func_text: str) -> str:
    return (
        "module attributes {gpu.container_module} {\n"
        f"  gpu.module @m {{\n{func_text}\n  }}\n}}\n"
    )


def test_address_space_attribute() -> None:
    assert AddressSpaceAttr(AddressSpace.GLOBAL).data == AddressSpace.GLOBAL
    text = roundtrip(func("%a: memref<?xf32, #gpu.address_space<workgroup>>", ""))
    assert "#gpu.address_space<workgroup>" in text
    check_parse_error(func("%a: memref<?xf32, #gpu.address_space<shared>>", ""), "global")


def test_gpu_kernel_must_return_nothing() -> None:
    check_invalid(
        _gpu_module("    gpu.func @k(%a: f32) -> f32 kernel {\n      gpu.return %a : f32\n    }"),
        "void return type",
    )


def test_gpu_attribution_memory_space() -> None:
    check_invalid(
        _gpu_module(
            "    gpu.func @k() workgroup(%w: memref<4xf32>) kernel {\n      gpu.return\n    }"
        ),
        "workgroup attribution",
    )


def test_gpu_return_types() -> None:
    check_invalid(
        _gpu_module("    gpu.func @k(%a: f32) -> i32 {\n      gpu.return %a : f32\n    }"),
        "do not match the function result types",
    )


def test_gpu_launch_func_needs_container_module() -> None:
    text = "gpu.module @m {\n  gpu.func @k() kernel {\n    gpu.return\n  }\n}\n" + func(
        "",
        "  %c1 = arith.constant 1 : index\n"
        "  gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)",
    )
    check_invalid(text, "gpu.container_module")


def test_gpu_shuffle_checks() -> None:
    check_invalid(
        _gpu_module(
            "    gpu.func @k(%v: f32, %o: i64) kernel {\n"
            '      %r, %ok = "gpu.shuffle"(%v, %o, %o) <{mode = #gpu<shuffle_mode xor>}>'
            " : (f32, i64, i64) -> (f32, i1)\n"
            "      gpu.return\n    }"
        ),
        "32-bit signless integer",
    )
    check_parse_error(
        _gpu_module(
            "    gpu.func @k(%v: f32, %o: i32) kernel {\n"
            "      %r, %ok = gpu.shuffle sideways %v, %o, %o : f32\n"
            "      gpu.return\n    }"
        ),
        "shuffle mode",
    )


# ---------------------------------------------------------------------------
# scf
# ---------------------------------------------------------------------------


def test_scf_parallel_reductions_must_match_inits() -> None:
    check_invalid(
        func(
            "%a: index, %f: f32",
            "  %0 = scf.parallel (%i) = (%a) to (%a) step (%a) init (%f) -> f32 {\n  }",
        ),
        "reductions",
    )


def test_scf_parallel_old_reduce_form_normalizes() -> None:
    text = roundtrip(
        func(
            "%a: index, %f: f32",
            "  %0 = scf.parallel (%i) = (%a) to (%a) step (%a) init (%f) -> f32 {\n"
            "    scf.reduce(%f) : f32 {\n"
            "    ^bb0(%l: f32, %r: f32):\n"
            "      %s = arith.addf %l, %r : f32\n"
            "      scf.reduce.return %s : f32\n"
            "    }\n"
            "    scf.yield\n"
            "  }",
        )
    )
    assert "scf.reduce(%arg1 : f32) {" in text
    assert "scf.yield" not in text


# ---------------------------------------------------------------------------
# shape
# ---------------------------------------------------------------------------


def test_shape_builders() -> None:
    op = ConstShapeOp([2, 3])
    op.verify()
    assert op.extents == (2, 3)
    assert ConstShapeOp([1], ShapeType()).result.type == ShapeType()


def test_shape_const_shape_count() -> None:
    check_invalid(
        func("", "  %0 = shape.const_shape [1, 2] : tensor<3xindex>"),
        "incompatible with return type",
    )


def test_shape_error_values_need_shape_result() -> None:
    check_invalid(
        func(
            "%s: !shape.shape, %t: tensor<?xindex>",
            "  %0 = shape.broadcast %s, %t : !shape.shape, tensor<?xindex> -> tensor<?xindex>",
        ),
        "must be of type `shape`",
    )


def test_shape_of_rank_mismatch() -> None:
    check_invalid(
        func(
            "%a: tensor<?x?xf32>", "  %0 = shape.shape_of %a : tensor<?x?xf32> -> tensor<3xindex>"
        ),
        "does not match the rank 2",
    )


def test_shape_cstr_broadcastable_arity() -> None:
    check_invalid(
        func("%s: tensor<?xindex>", "  %0 = shape.cstr_broadcastable %s : tensor<?xindex>"),
        "at least 2 input shapes",
    )


def test_shape_operand_kind() -> None:
    check_invalid(
        func(
            "%s: tensor<?xf32>",
            "  %0 = shape.num_elements %s : tensor<?xf32> -> index",
        ),
        "must be shape or extent tensor",
    )


def test_shape_assuming_yield_types() -> None:
    check_invalid(
        func(
            "%w: !shape.witness, %x: f32",
            "  %0 = shape.assuming %w -> (i32) {\n    shape.assuming_yield %x : f32\n  }",
        ),
        "yielded types (f32) to match the result types (i32)",
    )


# ---------------------------------------------------------------------------
# bufferization
# ---------------------------------------------------------------------------


def test_bufferization_shapes_must_agree() -> None:
    check_invalid(
        func(
            "%t: tensor<3xindex>",
            "  %0 = bufferization.to_memref %t : tensor<3xindex> to memref<2xindex>",
        ),
        "does not match",
    )
    check_invalid(
        func(
            "%m: memref<2xf32>",
            "  %0 = bufferization.to_tensor %m : memref<2xf32> to tensor<2xi32>",
        ),
        "does not match",
    )


def test_to_memref_builder() -> None:
    tensor = create_ssa_value(TensorType(f32, [4]))
    op = ToMemrefOp(tensor, MemRefType(f32, [4]), read_only=True)
    op.verify()
    assert op.read_only is not None


# ---------------------------------------------------------------------------
# tensor
# ---------------------------------------------------------------------------


def test_tensor_generate_roundtrip() -> None:
    text = roundtrip(
        func(
            "%d: index, %x: f32",
            "  %0 = tensor.generate %d {\n  ^bb0(%i: index, %j: index):\n"
            "    tensor.yield %x : f32\n  } : tensor<?x4xf32>",
        ),
        _context_with_tensor(),
    )
    assert "%generated = tensor.generate %arg0 {" in text


def test_tensor_generate_checks() -> None:
    ctx = _context_with_tensor()
    check_invalid(
        func(
            "%x: f32",
            "  %0 = tensor.generate {\n  ^bb0(%i: index):\n    tensor.yield %x : f32\n  } : tensor<?xf32>",
        ),
        "dynamic extents",
        ctx=ctx,
    )
    check_invalid(
        func(
            "%d: index",
            "  %0 = tensor.generate %d {\n  ^bb0(%i: index):\n    tensor.yield %i : index\n  } : tensor<?xf32>",
        ),
        "element type",
        ctx=ctx,
    )


def test_index_type_is_the_extent_element() -> None:
    assert ConstShapeOp([0]).result.type == TensorType(IndexType(), [1])
