// RUN: not disc-opt -convert-parallel-loops-to-gpu %s 2>&1 | FileCheck %s

// CHECK: error: pass 'convert-parallel-loops-to-gpu' failed: 'scf.parallel' op with reductions cannot be mapped to a GPU launch
func.func @reduction(%n: index, %a: memref<?xf32>, %f: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%f) -> f32 {
    %v = memref.load %a[%i] : memref<?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      scf.reduce.return %s : f32
    }
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return %r : f32
}
