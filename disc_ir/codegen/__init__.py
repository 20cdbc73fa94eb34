"""IR-generation helpers shared by the codegen passes.

* `scalar`: one lmhlo op applied to scalars (mlir-hlo's `LhloOpToStdScalarOp`):
  the arith / math ops computing one output element from input elements;
* `elemental`: elemental IR emission (BladeDISC's `lhlo_elemental_utils`):
  how each lmhlo op computes the element at an output index from loads of its
  inputs, the reduce-body accumulator, load caching and index helpers
  (`disc_shape.linearize` / `delinearize`);
* `hlo_body`: the mhlo bodies lmhlo ops keep (a sort comparator) evaluated
  on scalars;
* `input_inline`: the input-inline-fusion rewrite (inline a producer lmhlo op
  into the loops that load its result), shared by `disc-input-inline-fusion`
  and the kStitch path of `disc-lhlo-legalize-roots-to-parallel-loops`.
"""
