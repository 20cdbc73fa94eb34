"""Encoded RAL API names: every type code round-trips through encode/decode."""

from __future__ import annotations

import pytest

from disc_ir.runtime.abi import (
    PVOID,
    SCALAR_TYPES,
    TYPE_CODES,
    VOID,
    MemRefType,
    PointerType,
    RalAbiError,
    ScalarType,
    decode_ral_api_name,
    encode_ral_api_name,
    memref,
    num_arg_slots,
    parse_type_code,
)

SCALARS = [c for c in TYPE_CODES if c != "void"]


def test_type_code_list_matches_bladedisc():
    assert TYPE_CODES == (
        "i1", "ui8", "i8", "ui16", "i16", "bf16", "f16",
        "ui32", "i32", "i64", "f32", "f64", "void",
    )  # fmt: skip
    assert set(SCALARS) <= set(SCALAR_TYPES)


@pytest.mark.parametrize("code", SCALARS)
def test_every_scalar_code_round_trips(code):
    assert parse_type_code(code) == ScalarType(code)
    name = encode_ral_api_name("f", "cpu", ["pvoid", code], [code])
    assert name == f"f___cpu___pvoid_{code}___{code}"
    target, device, args, results = decode_ral_api_name(name)
    assert (target, device) == ("f", "cpu")
    assert args == (PVOID, ScalarType(code)) and results == (ScalarType(code),)
    assert encode_ral_api_name(target, device, args, results) == name


@pytest.mark.parametrize("code", SCALARS)
@pytest.mark.parametrize("rank", [0, 1, 2, 8])
def test_every_memref_code_round_trips(code, rank):
    t = memref(rank, code)
    assert t.code == f"m{rank}d{code}"
    assert parse_type_code(t.code) == t
    assert t.num_slots == 3 + 2 * rank
    name = encode_ral_api_name("ral_recv_input", "cpu", [PVOID, "i64"], [t])
    assert decode_ral_api_name(name)[3] == (t,)


@pytest.mark.parametrize("code", SCALARS + ["void"])
def test_every_pointer_code_round_trips(code):
    t = parse_type_code("p" + code)
    assert t == PointerType(ScalarType(code))
    assert t.code == "p" + code
    assert parse_type_code("pp" + code) == PointerType(t)


def test_void_result_and_known_names():
    assert encode_ral_api_name("dealloc", "gpu", ["pvoid", "pvoid"]) == (
        "dealloc___gpu___pvoid_pvoid___void"
    )
    gemm = "ral_gemm___cpu___pvoid_pvoid_m2df32_m2df32_m2df32_i1_i1___void"
    target, device, args, results = decode_ral_api_name(gemm)
    assert (target, device, results) == ("ral_gemm", "cpu", ())
    assert args[2] == MemRefType(2, ScalarType("f32"))
    assert num_arg_slots(args) == 1 + 1 + 3 * 7 + 2
    assert encode_ral_api_name(target, device, args, [VOID]) == gemm
    launch = "ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void"
    assert decode_ral_api_name(launch)[2][-1] == PointerType(PVOID)
    assert decode_ral_api_name("f___cpu______void")[2:] == ((), ())


@pytest.mark.parametrize(
    "bad",
    ["ral_gemm", "a___cpu___xf32___void", "a___cpu___m2dvoid___void", "a___cpu___pvoid___q"],
)
def test_malformed_names_are_rejected(bad):
    with pytest.raises(RalAbiError):
        decode_ral_api_name(bad)
