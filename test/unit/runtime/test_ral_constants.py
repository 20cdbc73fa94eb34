"""ral_const: constants from a metadata file, loaded once per RAL context, splats."""

from __future__ import annotations

import json

import numpy as np
import pytest

from disc_ir.runtime import RalContext, RalContextOptions
from disc_ir.runtime.constants import RalConstantError, parse_const_name
from disc_ir.runtime.dispatch import call_api

MD5 = "9e107d9d372bb6826bd81d3542a419d6"


def const_name(rank: int, code: str) -> str:
    return f"ral_const___cpu___pvoid_pvoid_pvoid_i32___m{rank}d{code}"


def test_parse_const_name():
    assert parse_const_name(f"{MD5}_f32_2x3").shape == (2, 3)
    assert parse_const_name(f"{MD5}_i1_").shape == ()
    assert parse_const_name(f"{MD5}_i64_5").width_in_bytes == 8
    with pytest.raises(RalConstantError):
        parse_const_name(f"{MD5}_q32_2")


def test_constants_from_a_metadata_file(tmp_path, monkeypatch):
    """The file is read once, through the metadata reader, on the first ral_const."""
    values = np.arange(12, dtype=np.int32).reshape(3, 4)
    path = tmp_path / "module.metadata.json"
    path.write_text(json.dumps({MD5: ["i32", [3, 4], values.tobytes().hex()]}))
    reads: list[str] = []

    def reader(p: str):
        reads.append(p)
        raw = json.loads(open(p).read())
        return {k: (d, tuple(s), bytes.fromhex(h)) for k, (d, s, h) in raw.items()}

    import disc_ir.runtime.constants as constants

    monkeypatch.setattr(constants, "default_metadata_reader", lambda: reader)
    ctx = RalContext(RalContextOptions(metadata_path=str(path)))
    pointers = set()
    for _ in range(3):
        with ctx.create_execution_context([]) as ec:
            desc = call_api(ec, const_name(2, "i32"), ec, 0, f"{MD5}_i32_3x4", 0)
            assert desc.sizes == (3, 4) and desc.strides == (4, 1)
            pointers.add(desc.aligned)
            from disc_ir.runtime.memref import numpy_view

            np.testing.assert_array_equal(numpy_view(desc), values)
    assert reads == [str(path)] and len(pointers) == 1


def test_splat_and_errors():
    table = {MD5: ("f32", (), np.float32(2.5).tobytes())}
    ctx = RalContext(constants=table)
    with ctx.create_execution_context([]) as ec:
        desc = call_api(ec, const_name(3, "f32"), ec, 0, f"{MD5}_f32_2x2x2", 0)
        from disc_ir.runtime.memref import numpy_view

        np.testing.assert_array_equal(numpy_view(desc), np.full((2, 2, 2), 2.5, np.float32))
    with ctx.create_execution_context([]) as ec:
        with pytest.raises(RalConstantError, match="not found in metadata file"):
            call_api(ec, const_name(1, "f32"), ec, 0, "ffff_f32_4", 0)
    with ctx.create_execution_context([]) as ec:
        with pytest.raises(RalConstantError, match="f32 data for float64 elements"):
            call_api(ec, const_name(1, "f64"), ec, 0, f"{MD5}_f64_4", 0)


def test_real_metadata_file(tmp_path):
    """A file written by disc_ir.runtime.ral_metadata, read by the default reader."""
    ral_metadata = pytest.importorskip("disc_ir.runtime.ral_metadata")
    from disc_ir.runtime.constants import default_metadata_reader
    from disc_ir.runtime.memref import numpy_view

    assert default_metadata_reader() is ral_metadata.read_metadata
    values = np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3)
    md5 = ral_metadata.const_md5(values.tobytes())
    name = ral_metadata.const_unique_name(md5, "f32", (2, 3))
    splat = np.float64(-3.0).tobytes()
    splat_md5 = ral_metadata.const_md5(splat)
    splat_name = ral_metadata.const_unique_name(splat_md5, "f64", (4,))
    entries = [
        ral_metadata.MetadataEntry(md5, name, "cpu", 0, "f32", (2, 3), values.tobytes()),
        ral_metadata.MetadataEntry(splat_md5, splat_name, "cpu", 1, "f64", (4,), splat),
    ]
    path = tmp_path / "module.metadata"
    ral_metadata.write_metadata(str(path), entries)
    ctx = RalContext(metadata_path=str(path))
    with ctx.create_execution_context([]) as ec:
        desc = call_api(ec, const_name(2, "f32"), ec, 0, name, 0)
        np.testing.assert_array_equal(numpy_view(desc), values)
        desc = call_api(ec, const_name(1, "f64"), ec, 0, splat_name, 1)
        np.testing.assert_array_equal(numpy_view(desc), np.full(4, -3.0))


def test_constants_of_other_types_with_the_same_bytes_share_an_entry():
    """The table is keyed by the MD5 of the bytes: an empty f32 constant finds the
    entry an empty i1 constant made, eight zero bytes serve i8 and f32 alike."""
    from disc_ir.runtime.memref import numpy_view
    from disc_ir.runtime.ral_metadata import const_md5

    empty, zeros = const_md5(b""), const_md5(bytes(8))
    table = {empty: ("i1", (0, 10, 6), b""), zeros: ("i8", (8,), bytes(8))}
    ctx = RalContext(constants=table)
    with ctx.create_execution_context([]) as ec:
        desc = call_api(ec, const_name(3, "f32"), ec, 0, f"{empty}_f32_0x10x6", 0)
        assert numpy_view(desc).shape == (0, 10, 6)
    with ctx.create_execution_context([]) as ec:
        desc = call_api(ec, const_name(1, "f32"), ec, 0, f"{zeros}_f32_2", 0)
        np.testing.assert_array_equal(numpy_view(desc), np.zeros(2, np.float32))
