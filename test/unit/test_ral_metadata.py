"""The RAL metadata file (disc_ir.runtime.ral_metadata) and the RAL passes' errors."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from disc_ir.runtime.ral_metadata import (
    MetadataEntry,
    MetadataFormatError,
    const_md5,
    decode_metadata,
    encode_metadata,
    read_metadata,
    read_metadata_entries,
    write_metadata,
)
from disc_ir.tools.disc_opt import run


def test_roundtrip(tmp_path: Path):
    entries = [
        MetadataEntry("a" * 32, "a" * 32 + "_f32_2x2", "cpu", 0, "f32", (2, 2), b"\x00\x00\x80?"),
        MetadataEntry("b" * 32, "b" * 32 + "_i1_", "gpu", 0, "i1", (), b"\x01"),
        MetadataEntry("c" * 32, "c" * 32 + "_i8_3", "cpu", 1, "i8", (3,), b"\x01\x02\x03"),
    ]
    path = tmp_path / "m.bin"
    write_metadata(str(path), entries)
    assert read_metadata_entries(str(path)) == entries
    assert read_metadata(str(path)) == {
        "a" * 32: ("f32", (2, 2), b"\x00\x00\x80?"),
        "b" * 32: ("i1", (), b"\x01"),
        "c" * 32: ("i8", (3,), b"\x01\x02\x03"),
    }


def test_mapping_form(tmp_path: Path):
    path = tmp_path / "m.bin"
    write_metadata(str(path), {"k": ("f64", (1,), b"\x00" * 8)})
    assert read_metadata(str(path)) == {"k": ("f64", (1,), b"\x00" * 8)}


def test_bad_files():
    with pytest.raises(MetadataFormatError, match="bad magic"):
        decode_metadata(b"not a metadata file")
    data = encode_metadata([MetadataEntry("k", "k", "cpu", 0, "f32", (1,), b"1234")])
    with pytest.raises(MetadataFormatError, match="truncated"):
        decode_metadata(data[:-12])
    with pytest.raises(MetadataFormatError, match="trailer"):
        decode_metadata(data[:-8] + b"XXXXXXXX")


def test_md5_is_bladedisc_hash():
    # md5 of the uppercase hex encoding of the raw data (llvm::toHex)
    assert const_md5(b"\x00\x00\x80?") == hashlib.md5(b"0000803F").hexdigest()


def test_reader_needs_no_xdsl():
    code = (
        "import sys; import disc_ir.runtime.ral_metadata as m; "
        "assert not [k for k in sys.modules if k.startswith('xdsl')], 'xdsl imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


CONSTS = """
func.func @main(%ctx: !disc_ral.context) {
  %0 = memref.alloc() : memref<2x3xf32>
  %1 = memref.alloc() : memref<2x3xf32, #gpu.address_space<global>>
  %2 = memref.alloc() : memref<3xi32>
  %3 = memref.alloc() : memref<2xi1>
  %4 = memref.alloc() : memref<2x3xf32>
  "lmhlo.constant"(%0) {value = dense<1.0> : tensor<2x3xf32>} : (memref<2x3xf32>) -> ()
  "lmhlo.constant"(%1) {value = dense<1.0> : tensor<2x3xf32>} : (memref<2x3xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.constant"(%2) {value = dense<[1, 2, 3]> : tensor<3xi32>} : (memref<3xi32>) -> ()
  "lmhlo.constant"(%3) {value = dense<[true, false]> : tensor<2xi1>} : (memref<2xi1>) -> ()
  "lmhlo.constant"(%4) {value = dense<1.0> : tensor<2x3xf32>} : (memref<2x3xf32>) -> ()
  return
}
"""


def _disc_opt(tmp_path: Path, src: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "in.mlir"
    path.write_text(src)
    out, err = io.StringIO(), io.StringIO()
    code = run([*args, str(path)], out, err)
    return code, out.getvalue(), err.getvalue()


def test_const_to_ral_writes_metadata(tmp_path: Path):
    meta = tmp_path / "consts.meta"
    code, out, err = _disc_opt(tmp_path, CONSTS, f"-disc-const-to-ral=metadata-file-name={meta}")
    assert code == 0, err
    entries = read_metadata_entries(str(meta))
    splat = const_md5(b"\x00\x00\x80?")
    ints = const_md5(bytes([1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]))
    bools = const_md5(b"\x01\x00")
    assert [(e.key, e.name, e.device, e.index, e.dtype, e.shape, e.data) for e in entries] == [
        (splat, f"{splat}_f32_2x3", "cpu", 0, "f32", (2, 3), b"\x00\x00\x80?"),
        (splat, f"{splat}_f32_2x3", "gpu", 0, "f32", (2, 3), b"\x00\x00\x80?"),
        (ints, f"{ints}_i32_3", "cpu", 1, "i32", (3,), bytes([1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0])),
        (bools, f"{bools}_i1_2", "cpu", 2, "i1", (2,), b"\x01\x00"),
    ]
    for e in entries:
        assert f'("{e.name}\\00")' in out


@pytest.mark.parametrize(
    ("src", "flag", "message"),
    [
        (
            """
            func.func @f(%a: memref<2x2xf32>, %b: memref<2x2xf32>, %c: memref<2x2xf32>) {
              "lmhlo.dot_general"(%a, %b, %c) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>) -> ()
              return
            }""",
            "-disc-lower-to-library-call",
            "the first argument of the function is not ral context type",
        ),
        (
            """
            func.func @f(%ctx: !disc_ral.context, %a: memref<2x3x4xf32>, %b: memref<3x5x4xf32>, %c: memref<4x2x5xf32>) {
              "lmhlo.dot_general"(%a, %b, %c) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [2], rhs_batching_dimensions = [2], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<2x3x4xf32>, memref<3x5x4xf32>, memref<4x2x5xf32>) -> ()
              return
            }""",
            "-disc-lower-to-library-call",
            "unsupported batch dims.",
        ),
        (
            """
            func.func @f(%ctx: !disc_ral.context, %a: memref<2xf32>, %b: memref<2xf32>) {
              "lmhlo_disc.custom_call"(%a, %b) {backend_config = "", call_target_name = "nope", has_side_effect = false, operand_segment_sizes = array<i32: 1, 1>} : (memref<2xf32>, memref<2xf32>) -> ()
              return
            }""",
            "-disc-lower-to-library-call",
            "custom call nope is not implemented in lowering to library calls",
        ),
        (
            """
            func.func @main(%a: index) -> index {
              return %a : index
            }""",
            "-disc-ral-inject-execution-context",
            "argument #0 must be a memref",
        ),
        (
            """
            func.func @main(%a: memref<2xf32>) -> i32 {
              %c = arith.constant 0 : i32
              return %c : i32
            }""",
            "-disc-ral-inject-execution-context",
            "result #0 must be a memref",
        ),
        (
            """
            func.func @f(%a: memref<2xf32>) {
              "lmhlo.constant"(%a) {value = dense<1.0> : tensor<2xf32>} : (memref<2xf32>) -> ()
              return
            }""",
            '-disc-const-to-ral=metadata-file-name=""',
            "the first argument of the function is not ral context type",
        ),
    ],
)
def test_pass_errors(tmp_path: Path, src: str, flag: str, message: str):
    code, _, err = _disc_opt(tmp_path, src, flag)
    assert code != 0
    assert message in err
    assert "Traceback" not in err
