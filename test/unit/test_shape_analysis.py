"""Unit tests of disc_ir.analysis.shape_analysis.ShapeAnalysis."""

from __future__ import annotations

import pytest
from xdsl.dialects import func

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import parse_module


def _analyse(text: str, **kwargs):
    module = parse_module(make_context(), text)
    f = next(op for op in module.body.block.ops if isinstance(op, func.FuncOp))
    values = {}
    for arg in f.body.block.args:
        values[f"arg{arg.index}"] = arg
    for op in f.walk():
        for r in op.results:
            if r.name_hint:
                values[r.name_hint] = r
    return module, ShapeAnalysis(f, **kwargs), values


ELEMENTWISE = """
func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>, %arg2: tensor<10xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %add = mhlo.add %arg0, %arg1 : tensor<?x?xf32>
  %d0 = tensor.dim %add, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %add, %c1 : tensor<?x?xf32>
  %m = arith.muli %d0, %d1 : index
  %s = tensor.from_elements %m : tensor<1xindex>
  %flat = mhlo.dynamic_reshape %add, %s : (tensor<?x?xf32>, tensor<1xindex>) -> tensor<?xf32>
  %c10 = arith.constant 10 : index
  %s2 = tensor.from_elements %d0, %c10 : tensor<2xindex>
  %b = "mhlo.dynamic_broadcast_in_dim"(%arg2, %s2) {broadcast_dimensions = dense<[1]> : tensor<1xi64>} : (tensor<10xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %t = "mhlo.transpose"(%b) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}
"""


def test_elementwise_and_broadcast_dims():
    _, a, v = _analyse(ELEMENTWISE)
    assert a.is_shape_equal(v["arg0"], v["arg1"])
    assert a.is_shape_equal(v["arg0"], v["add"])
    assert a.is_dim_equal(v["b"], 0, v["arg0"], 0)
    assert not a.is_dim_equal(v["b"], 1, v["arg0"], 1)
    assert a.get_dim_value_if_const(v["b"], 1) == 10
    assert a.get_dim_value_if_const(v["b"], 0) is None
    assert a.is_dim_equal(v["t"], 0, v["b"], 1)
    assert a.is_dim_equal(v["t"], 1, v["arg1"], 0)
    assert str(a.refined_type(v["b"])) == "tensor<?x10xf32>"
    dims = a.symbolic_dims(v["arg0"])
    assert dims == a.symbolic_dims(v["add"])
    assert dims[0] != dims[1]


def test_same_num_elements_and_products():
    _, a, v = _analyse(ELEMENTWISE)
    assert a.is_same_num_elements(v["add"], v["flat"])
    assert a.is_same_num_elements(v["arg0"], v["flat"])
    assert a.is_product_equal(v["flat"], [0], v["arg1"], [0, 1])
    assert not a.is_same_num_elements(v["arg0"], v["arg2"])
    assert a.is_same_num_elements(v["t"], v["b"])


def test_window_updates_keep_their_operand_shape():
    """`dynamic_update_slice` and `scatter` results have their operand's shape."""
    _, a, v = _analyse(
        """
func.func @main(%arg0: tensor<5x?xf32>, %arg1: tensor<1x?xf32>, %arg2: tensor<i32>, %arg3: tensor<?x?xf32>) -> tensor<5x?xf32> {
  %dus = mhlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg2 : (tensor<5x?xf32>, tensor<1x?xf32>, tensor<i32>, tensor<i32>) -> tensor<5x?xf32>
  %dus2 = mhlo.dynamic_update_slice %dus, %arg1, %arg2, %arg2 : (tensor<5x?xf32>, tensor<1x?xf32>, tensor<i32>, tensor<i32>) -> tensor<5x?xf32>
  return %dus2 : tensor<5x?xf32>
}
"""
    )
    assert a.is_shape_equal(v["dus2"], v["arg0"])
    assert not a.is_dim_equal(v["dus2"], 1, v["arg1"], 1)


def test_index_values():
    _, a, v = _analyse(ELEMENTWISE)
    assert a.is_dim_equal_to_value(v["arg1"], 0, v["d0"])
    assert a.get_index_value_if_const(v["c10"]) == 10
    assert a.is_index_value_equal(v["d0"], v["d0"])
    assert not a.is_index_value_equal(v["d0"], v["d1"])
    assert v["d0"] in a.equal_index_values(v["arg0"], 0)


SHAPE_CONSTRAINT_IR = """
module {
  "disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = false, knownNonSizeZero = false, sym_name = "S0", value = -9223372036854775808 : i64} : () -> ()
  "disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = false, knownNonSizeZero = false, sym_name = "S1", value = -9223372036854775808 : i64} : () -> ()
  "disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = false, knownNonSizeZero = false, sym_name = "S2", value = -9223372036854775808 : i64} : () -> ()
  "disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = true, knownNonSizeZero = true, sym_name = "S3", value = 7 : i64} : () -> ()
  func.func @main(%arg0: tensor<?x?xf32, [@S0, @S1]>, %arg1: tensor<?x?xf32, [@S0, @S3]>, %arg2: tensor<?xf32, [@S2]>) -> tensor<?x?xf32, [@S0, @S1]> {
    return %arg0 : tensor<?x?xf32, [@S0, @S1]>
  }
  func.func @shape_constraint_graph() {
    %0 = "disc_shape.dim"() {name = @S0} : () -> index
    %1 = "disc_shape.dim"() {name = @S1} : () -> index
    %2 = "disc_shape.dim"() {name = @S2} : () -> index
    "disc_shape.tie_product_equal"(%0, %1, %2) {operand_segment_sizes = array<i32: 2, 1>} : (index, index, index) -> ()
    return
  }
}
"""


def test_reads_shape_constraint_ir():
    module, _, v = _analyse(SHAPE_CONSTRAINT_IR)
    a = ShapeAnalysis(module)
    assert a.is_dim_equal(v["arg0"], 0, v["arg1"], 0)
    assert not a.is_dim_equal(v["arg0"], 1, v["arg1"], 1)
    assert a.get_dim_value_if_const(v["arg1"], 1) == 7
    assert a.is_same_num_elements(v["arg0"], v["arg2"])


def test_shape_constraint_ir_switch(monkeypatch):
    monkeypatch.setenv("DISC_ENABLE_SHAPE_CONSTRAINT_IR", "0")
    module, _, v = _analyse(SHAPE_CONSTRAINT_IR)
    a = ShapeAnalysis(module)
    assert not a.is_dim_equal(v["arg0"], 0, v["arg1"], 0)
    assert a.get_dim_value_if_const(v["arg1"], 1) is None
    assert not a.is_same_num_elements(v["arg0"], v["arg2"])


BUFFERS = """
func.func @main(%arg0: memref<?x?xf32>, %arg1: index) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %arg0, %c0 : memref<?x?xf32>
  %d1 = memref.dim %arg0, %c1 : memref<?x?xf32>
  %in = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%d0, %d1], strides: [%d1, 1] : memref<?x?xf32> to memref<?x?xf32>
  %out = memref.alloc(%d0, %d1) : memref<?x?xf32>
  %other = memref.alloc(%arg1, %d1) : memref<?x?xf32>
  "lmhlo.abs"(%in, %out) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  %cast = memref.cast %out : memref<?x?xf32> to memref<?x4xf32>
  %shape = memref.alloc() : memref<1xindex>
  %m = arith.muli %d0, %d1 : index
  memref.store %m, %shape[%c0] : memref<1xindex>
  %flat = memref.alloc(%m) : memref<?xf32>
  "lmhlo.dynamic_reshape"(%out, %shape, %flat) : (memref<?x?xf32>, memref<1xindex>, memref<?xf32>) -> ()
  return %out : memref<?x?xf32>
}
"""


def test_buffers():
    _, a, v = _analyse(BUFFERS)
    assert a.is_shape_equal(v["in"], v["out"])
    assert a.is_shape_equal(v["arg0"], v["out"])
    assert a.is_dim_equal(v["other"], 1, v["in"], 1)
    assert not a.is_dim_equal(v["other"], 0, v["in"], 0)
    assert a.get_dim_value_if_const(v["out"], 1) == 4
    assert a.is_same_num_elements(v["out"], v["flat"])


def test_save_shape_constraint_ir():
    module, a, v = _analyse(ELEMENTWISE)
    a.save_shape_constraint_ir()
    text = str(v["arg0"].type)
    assert "@S" in text
    assert str(v["arg0"].type) == str(v["arg1"].type)
    assert "@C10" in str(v["b"].type)
    names = [
        op.sym_name.data for op in module.body.block.ops if op.name == "disc_shape.SymbolicDim"
    ]
    assert "C10" in names
    module.verify()


@pytest.mark.parametrize("d", [-1, 2])
def test_out_of_range_dims(d):
    _, a, v = _analyse(ELEMENTWISE)
    assert not a.is_dim_equal(v["arg0"], d, v["arg1"], 0)
    assert a.get_dim_value_if_const(v["arg0"], d) is None


GATHER = """
func.func @main(%e: tensor<?xf32>, %i: tensor<10x1xi32>, %w: tensor<?x768xf32>, %j: tensor<7x1xi32>) -> (tensor<10x1xf32>, tensor<7x768xf32>) {
  %g = "mhlo.gather"(%e, %i) {dimension_numbers = #mhlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>, slice_sizes = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<10x1xi32>) -> tensor<10x1xf32>
  %rows = "mhlo.gather"(%w, %j) {dimension_numbers = #mhlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = dense<[1, 768]> : tensor<2xi64>} : (tensor<?x768xf32>, tensor<7x1xi32>) -> tensor<7x768xf32>
  return %g, %rows : tensor<10x1xf32>, tensor<7x768xf32>
}
"""


def test_gather_offset_dims_are_slice_sizes():
    """An offset dim is as long as the slice (1 here), not the operand dim:
    tying it to the operand made a 5-long and a 1-long buffer "equal" and fused
    them into one kLoop (wrong answers)."""
    _, a, v = _analyse(GATHER)
    assert not a.is_dim_equal(v["g"], 1, v["arg0"], 0)
    assert a.get_dim_value_if_const(v["g"], 1) == 1
    assert a.is_dim_equal(v["rows"], 1, v["arg2"], 1)  # a whole-row slice: 768 both
    assert a.conflicts == []


CONFLICT = """
func.func @main(%a: tensor<5xf32>, %b: tensor<1xf32>) -> tensor<5xf32> {
  %0 = "mhlo.add"(%a, %b) : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
"""


def test_conflicting_dims_raise():
    """A dim proven equal to two constants (an inconsistent program, or a wrong
    shape rule) stops the analysis instead of feeding fusion wrong facts."""
    from xdsl.utils.exceptions import DiagnosticException

    with pytest.raises(DiagnosticException, match="a dimension is both 5 and 1"):
        _analyse(CONFLICT)


def _state(a: ShapeAnalysis) -> tuple:
    """Everything the queries read: each node's class root and constant, the
    product facts, the same-element classes and the conflicts."""
    uf, same = a._uf, a._same_elems
    roots = {key: uf.find(i) for key, i in a._ids.items()}
    consts = {key: uf.const.get(root) for key, root in roots.items()}
    same_roots = {v: same.find(i) for v, i in a._same_elems_ids.items()}
    return roots, consts, a._products, same_roots, list(uf.conflicts), uf.version


@pytest.mark.parametrize("model", ["bert_layer_dyn", "convnet_dyn", "gpt2_block_dyn"])
def test_second_pass_skips_only_ops_that_tie_nothing_new(model, monkeypatch):
    """Every analysis a compile builds equals the one that re-applies every op
    in its second pass (the skipped ops' ties follow from their types)."""
    from pathlib import Path

    from disc_ir.analysis import shape_analysis
    from disc_ir.api import lower_to_llvm_ir

    built: list[ShapeAnalysis] = []
    init = ShapeAnalysis.__init__

    def recording_init(self, op, **kwargs):
        init(self, op, **kwargs)
        built.append(self)
        with monkeypatch.context() as m:
            m.setattr(shape_analysis, "_ties_from_types_alone", lambda name: False)
            reference = ShapeAnalysis.__new__(ShapeAnalysis)
            init(reference, op, **kwargs)
        assert _state(self) == _state(reference)

    monkeypatch.setattr(ShapeAnalysis, "__init__", recording_init)
    text = (Path(__file__).parents[1] / "models" / f"{model}.mlir").read_text()
    lower_to_llvm_ir(text, "cpu", keep_ir=False)
    assert len(built) >= 5
