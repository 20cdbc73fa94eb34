// RUN: env DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=0 disc-opt -split-input-file %s \
// RUN:   '-disc-specialize-fusion-with-speculation{core-count=80 max-threads-per-core=2048}' | FileCheck %s
// RUN: env DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=0 disc-opt -split-input-file %s \
// RUN:   -disc-specialize-fusion-with-speculation | FileCheck %s --check-prefix=NODEV
// RUN: env DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=0 disc-opt -split-input-file %s \
// RUN:   '-disc-specialize-fusion-with-speculation{core-count=80 max-threads-per-core=2048 max-threads-per-block=128}' \
// RUN:   | FileCheck %s --check-prefix=TPB
// RUN: env DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=1 disc-opt -split-input-file %s \
// RUN:   '-disc-specialize-fusion-with-speculation{core-count=80 max-threads-per-core=2048}' | FileCheck %s --check-prefix=MEM

// Device: 80 cores x 2048 threads = 163840 threads per wave.
// Vectorization of a GPU kLoop fusion: vectorize by 2 when the element count
// of the root's output is even and above a wave; the no-vectorization copy
// keeps the first version's tag.
// CHECK-LABEL: func.func @loop_dynamic
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D0:.*]] = memref.dim %arg1, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[D1:.*]] = memref.dim %arg1, %[[C1]] : memref<?x?xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[REM:.*]] = arith.remui %[[N]], %[[C2]] : index
// CHECK-NEXT:    %[[EVEN:.*]] = arith.cmpi eq, %[[REM]], %[[C0]] : index
// CHECK-NEXT:    %[[WAVE:.*]] = arith.constant 163840 : index
// CHECK-NEXT:    %[[LARGE:.*]] = arith.cmpi sgt, %[[N]], %[[WAVE]] : index
// CHECK-NEXT:    %[[PRED:.*]] = arith.andi %[[LARGE]], %[[EVEN]] : i1
// CHECK-NEXT:    scf.if %[[PRED]] {
// CHECK-NEXT:      "lmhlo.fusion"() ({
// CHECK-NEXT:        "lmhlo.abs"(%arg0, %arg1)
// CHECK-NEXT:        "lmhlo.terminator"
// CHECK-NEXT:      }) {disc.device = "gpu", disc.fusion.name = "loop0", disc.fusion.tag = "_vectile2", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
// CHECK-NEXT:    } else {
// CHECK-NEXT:      "lmhlo.fusion"() ({
// CHECK-NEXT:        "lmhlo.abs"(%arg0, %arg1)
// CHECK-NEXT:        "lmhlo.terminator"
// CHECK-NEXT:      }) {disc.device = "gpu", disc.fusion.name = "loop0", disc.fusion.tag = "_vectile2X_no_vectile", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// Without device information nothing is vectorized.
// NODEV-LABEL: func.func @loop_dynamic
// NODEV-NEXT:    "lmhlo.fusion"
// NODEV-NEXT:      "lmhlo.abs"
// NODEV-NEXT:      "lmhlo.terminator"
// NODEV-NEXT:    }) {disc.device = "gpu", disc.fusion.name = "loop0", disc.fusion_type = "kLoop"} : () -> ()
// Mem-intensive opt: vector width 128 / 32 = 4 for f32, no wave threshold.
// MEM-LABEL: func.func @loop_dynamic
// MEM:           %[[N:.*]] = arith.muli
// MEM-NEXT:      %[[C4:.*]] = arith.constant 4 : index
// MEM-NEXT:      %[[REM:.*]] = arith.remui %[[N]], %[[C4]] : index
// MEM-NEXT:      %[[EVEN:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// MEM-NEXT:      scf.if %[[EVEN]] {
// MEM-NEXT:        "lmhlo.fusion"
// MEM-NEXT:          "lmhlo.abs"
// MEM-NEXT:          "lmhlo.terminator"
// MEM-NEXT:      }) {disc.device = "gpu", disc.fusion.name = "loop0", disc.fusion.tag = "_vectile4", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 4 : i32} : () -> ()
// MEM-NEXT:      } else {
// MEM-NEXT:        "lmhlo.fusion"
// MEM-NEXT:          "lmhlo.abs"
// MEM-NEXT:          "lmhlo.terminator"
// MEM-NEXT:      }) {disc.device = "gpu", disc.fusion.name = "loop0", disc.fusion.tag = "_vectile4X_no_vectile", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
func.func @loop_dynamic(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%arg0, %arg1) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "loop0", disc.fusion_type = "kLoop"} : () -> ()
  return %arg1 : memref<?x?xf32>
}

// -----

// Row-reduction schedule, then vectorization per schedule: schedule 1 (one
// block per row) when the rows are longer than 512; 256 threads per block;
// vectorize when the row count is even and exceeds the rows of a wave
// (163840 / 256 = 640 for schedule 1, 640 * 256 / 32 = 5120 for schedule 2).
// CHECK-LABEL: func.func @row_reduction_dynamic
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[COLS:.*]] = memref.dim %arg0, %[[C1]] : memref<?x?xf32>
// CHECK-NEXT:    %[[C512:.*]] = arith.constant 512 : index
// CHECK-NEXT:    %[[LONG:.*]] = arith.cmpi sgt, %[[COLS]], %[[C512]] : index
// CHECK-NEXT:    scf.if %[[LONG]] {
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[ROWS:.*]] = memref.dim %arg0, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[REM:.*]] = arith.remui %[[ROWS]], %[[C2]] : index
// CHECK-NEXT:      %[[EVEN:.*]] = arith.cmpi eq, %[[REM]], %[[C0]] : index
// CHECK-NEXT:      %[[C640:.*]] = arith.constant 640 : index
// CHECK-NEXT:      %[[MANY:.*]] = arith.cmpi sgt, %[[ROWS]], %[[C640]] : index
// CHECK-NEXT:      %[[VEC:.*]] = arith.andi %[[MANY]], %[[EVEN]] : i1
// CHECK-NEXT:      scf.if %[[VEC]] {
// CHECK-NEXT:        "lmhlo.fusion"
// CHECK-NEXT:          "lmhlo.reduce"(%arg0, %arg1, %arg2)
// CHECK:             }) {dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT:          "lmhlo.terminator"
// CHECK-NEXT:        }) {disc.device = "gpu", disc.fusion.name = "row0", disc.fusion.tag = "1b1rX_vectile2", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 1 : i32, disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
// CHECK-NEXT:      } else {
// CHECK-NEXT:        "lmhlo.fusion"
// CHECK:             }) {disc.device = "gpu", disc.fusion.name = "row0", disc.fusion.tag = "1b1rX_vectile2X_no_vectile", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 1 : i32, disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[ROWS:.*]] = memref.dim %arg0, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[REM:.*]] = arith.remui %[[ROWS]], %[[C2]] : index
// CHECK-NEXT:      %[[EVEN:.*]] = arith.cmpi eq, %[[REM]], %[[C0]] : index
// CHECK-NEXT:      %[[C5120:.*]] = arith.constant 5120 : index
// CHECK-NEXT:      %[[MANY:.*]] = arith.cmpi sgt, %[[ROWS]], %[[C5120]] : index
// CHECK-NEXT:      %[[VEC:.*]] = arith.andi %[[MANY]], %[[EVEN]] : i1
// CHECK-NEXT:      scf.if %[[VEC]] {
// CHECK-NEXT:        "lmhlo.fusion"
// CHECK:             }) {disc.device = "gpu", disc.fusion.name = "row0", disc.fusion.tag = "1w1rX_vectile2", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 2 : i32, disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
// CHECK-NEXT:      } else {
// CHECK-NEXT:        "lmhlo.fusion"
// CHECK:             }) {disc.device = "gpu", disc.fusion.name = "row0", disc.fusion.tag = "1w1rX_vectile2X_no_vectile", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 2 : i32, disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// The schedule needs no device information; vectorization does.
// NODEV-LABEL: func.func @row_reduction_dynamic
// NODEV:         %[[LONG:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : index
// NODEV-NEXT:    scf.if %[[LONG]] {
// NODEV-NEXT:      "lmhlo.fusion"
// NODEV:           }) {disc.device = "gpu", disc.fusion.name = "row0", disc.fusion.tag = "1b1r", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 1 : i32} : () -> ()
// NODEV-NEXT:    } else {
// NODEV-NEXT:      "lmhlo.fusion"
// NODEV:           }) {disc.device = "gpu", disc.fusion.name = "row0", disc.fusion.tag = "1w1r", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 2 : i32} : () -> ()
// NODEV-NEXT:    }
// max-threads-per-block caps the block at 128 threads, which changes the
// vectorization thresholds: 163840 / 128 = 1280 rows, and 1280 * 4 = 5120.
// TPB-LABEL: func.func @row_reduction_dynamic
// TPB:           arith.constant 1280 : index
// TPB:           disc.fusion.tag = "1b1rX_vectile2", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 128 : i32, disc_row_reduction_schedule_hint = 1 : i32, disc_vectorize_or_tile_hint = 2 : i32}
// TPB:           disc.fusion.tag = "1b1rX_vectile2X_no_vectile", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 128 : i32, disc_row_reduction_schedule_hint = 1 : i32, disc_vectorize_or_tile_hint = 1 : i32}
// TPB:           arith.constant 5120 : index
// TPB:           disc.fusion.tag = "1w1rX_vectile2", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 128 : i32, disc_row_reduction_schedule_hint = 2 : i32, disc_vectorize_or_tile_hint = 2 : i32}
// TPB:           disc.fusion.tag = "1w1rX_vectile2X_no_vectile", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 128 : i32, disc_row_reduction_schedule_hint = 2 : i32, disc_vectorize_or_tile_hint = 1 : i32}
// Mem-intensive opt: W = 2048 / 256 * 80 / 32 = 20 warps per wave; schedule 1
// when rows < 5, or rows < 10 and cols >= 1024, or rows >= 10 and cols >= 512.
// MEM-LABEL: func.func @row_reduction_dynamic
// MEM-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// MEM-NEXT:      %[[ROWS:.*]] = memref.dim %arg0, %[[C0]] : memref<?x?xf32>
// MEM-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// MEM-NEXT:      %[[COLS:.*]] = memref.dim %arg0, %[[C1]] : memref<?x?xf32>
// MEM-NEXT:      %[[C5:.*]] = arith.constant 5 : index
// MEM-NEXT:      %[[P1:.*]] = arith.cmpi slt, %[[ROWS]], %[[C5]] : index
// MEM-NEXT:      %[[C10:.*]] = arith.constant 10 : index
// MEM-NEXT:      %[[FEW:.*]] = arith.cmpi slt, %[[ROWS]], %[[C10]] : index
// MEM-NEXT:      %[[C1024:.*]] = arith.constant 1024 : index
// MEM-NEXT:      %[[VLONG:.*]] = arith.cmpi sge, %[[COLS]], %[[C1024]] : index
// MEM-NEXT:      %[[P2:.*]] = arith.andi %[[FEW]], %[[VLONG]] : i1
// MEM-NEXT:      %[[MANY:.*]] = arith.cmpi sge, %[[ROWS]], %[[C10]] : index
// MEM-NEXT:      %[[C512:.*]] = arith.constant 512 : index
// MEM-NEXT:      %[[LONG:.*]] = arith.cmpi sge, %[[COLS]], %[[C512]] : index
// MEM-NEXT:      %[[P3:.*]] = arith.andi %[[MANY]], %[[LONG]] : i1
// MEM-NEXT:      %[[P12:.*]] = arith.ori %[[P1]], %[[P2]] : i1
// MEM-NEXT:      %[[PRED:.*]] = arith.ori %[[P12]], %[[P3]] : i1
// MEM-NEXT:      scf.if %[[PRED]] {
// MEM:             disc.fusion.tag = "1b1rX_vectile2"
// MEM:             disc.fusion.tag = "1b1rX_vectile2X_no_vectile"
// MEM:           } else {
// MEM:             disc.fusion.tag = "1w1rX_vectile2"
// MEM:             disc.fusion.tag = "1w1rX_vectile2X_no_vectile"
func.func @row_reduction_dynamic(%arg0: memref<?x?xf32>, %arg1: memref<f32>, %arg2: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%arg0, %arg1, %arg2) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "row0", disc.fusion_type = "kRowReduction"} : () -> ()
  return %arg2 : memref<?xf32>
}

// -----

// Column reduction: launch dimension by the number of 256-thread blocks
// covering the matrix: more blocks than cores -> 8x32 tiles, 256 threads;
// otherwise 8x16 tiles, 128 threads. No vectorization speculation.
// CHECK-LABEL: func.func @col_reduction_dynamic
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ROWS:.*]] = memref.dim %arg0, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[COLS:.*]] = memref.dim %arg0, %[[C1]] : memref<?x?xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.muli %[[ROWS]], %[[COLS]] : index
// CHECK-NEXT:    %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[BLOCKS:.*]] = arith.ceildivsi %[[N]], %[[C256]] : index
// CHECK-NEXT:    %[[C80:.*]] = arith.constant 80 : index
// CHECK-NEXT:    %[[PRED:.*]] = arith.cmpi sgt, %[[BLOCKS]], %[[C80]] : index
// CHECK-NEXT:    scf.if %[[PRED]] {
// CHECK-NEXT:      "lmhlo.fusion"
// CHECK:           }) {disc.device = "gpu", disc.fusion.name = "col0", disc.fusion.tag = "8w32h", disc.fusion_type = "kColReduction", disc_col_reduction_schedule_hint = 1 : i32, disc_cta_size_hint = 256 : i32} : () -> ()
// CHECK-NEXT:    } else {
// CHECK-NEXT:      "lmhlo.fusion"
// CHECK:           }) {disc.device = "gpu", disc.fusion.name = "col0", disc.fusion.tag = "8w16h", disc.fusion_type = "kColReduction", disc_col_reduction_schedule_hint = 2 : i32, disc_cta_size_hint = 128 : i32} : () -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// NODEV-LABEL: func.func @col_reduction_dynamic
// NODEV-NEXT:    "lmhlo.fusion"
// NODEV:         }) {disc.device = "gpu", disc.fusion.name = "col0", disc.fusion_type = "kColReduction"} : () -> ()
// NODEV-NEXT:    return
// TPB-LABEL: func.func @col_reduction_dynamic
// TPB:           disc.fusion.tag = "8w32h", disc.fusion_type = "kColReduction", disc_col_reduction_schedule_hint = 1 : i32, disc_cta_size_hint = 128 : i32}
// TPB:           disc.fusion.tag = "8w16h", disc.fusion_type = "kColReduction", disc_col_reduction_schedule_hint = 2 : i32, disc_cta_size_hint = 128 : i32}
func.func @col_reduction_dynamic(%arg0: memref<?x?xf32>, %arg1: memref<f32>, %arg2: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%arg0, %arg1, %arg2) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "col0", disc.fusion_type = "kColReduction"} : () -> ()
  return %arg2 : memref<?xf32>
}

// -----

// Implicit broadcast: the copy without the same-rank broadcast (tag no_ib)
// runs when the operand's dims equal the result's; inside it the buffers of
// the elementwise op are viewed with the shape of the first one. Both copies
// are then vectorization-speculated.
// CHECK-LABEL: func.func @broadcast_gpu
// CHECK:         %[[BC:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A0:.*]] = memref.dim %arg0, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:    %[[B0:.*]] = memref.dim %[[BC]], %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:    %[[EQ0:.*]] = arith.cmpi eq, %[[A0]], %[[B0]] : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[A1:.*]] = memref.dim %arg0, %[[C1]] : memref<?x?xf32>
// CHECK-NEXT:    %[[B1:.*]] = memref.dim %[[BC]], %[[C1]] : memref<?x?xf32>
// CHECK-NEXT:    %[[EQ1:.*]] = arith.cmpi eq, %[[A1]], %[[B1]] : index
// CHECK-NEXT:    %[[SAME:.*]] = arith.andi %[[EQ1]], %[[EQ0]] : i1
// CHECK-NEXT:    scf.if %[[SAME]] {
// CHECK-NEXT:      %[[V0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[S0:.*]] = memref.dim %arg0, %[[V0]] : memref<?x?xf32>
// CHECK-NEXT:      %[[V1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[S1:.*]] = memref.dim %arg0, %[[V1]] : memref<?x?xf32>
// CHECK-NEXT:      %[[VIEW1:.*]] = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%[[S0]], %[[S1]]], strides: [%[[S1]], 1] : memref<?x?xf32> to memref<?x?xf32>
// CHECK:           %[[VIEW3:.*]] = memref.reinterpret_cast %arg3 to offset: [0], sizes: [%{{.*}}, %{{.*}}], strides: [%{{.*}}, 1] : memref<?x?xf32> to memref<?x?xf32>
// CHECK:           arith.constant 163840 : index
// CHECK:           scf.if
// CHECK-NEXT:        "lmhlo.fusion"() ({
// CHECK-NEXT:          "lmhlo.add"(%arg0, %[[VIEW1]], %[[VIEW3]])
// CHECK-NEXT:          "lmhlo.terminator"
// CHECK-NEXT:        }) {disc.device = "gpu", disc.fusion.name = "bcast0", disc.fusion.tag = "no_ibX_vectile2", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
// CHECK-NEXT:      } else {
// CHECK-NEXT:        "lmhlo.fusion"() ({
// CHECK-NEXT:          "lmhlo.add"(%arg0, %[[VIEW1]], %[[VIEW3]])
// CHECK-NEXT:          "lmhlo.terminator"
// CHECK-NEXT:        }) {disc.device = "gpu", disc.fusion.name = "bcast0", disc.fusion.tag = "no_ibX_vectile2X_no_vectile", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:    } else {
// CHECK:           scf.if
// CHECK-NEXT:        "lmhlo.fusion"() ({
// CHECK-NEXT:          "lmhlo.dynamic_broadcast_in_dim"(%arg0, %arg2, %[[BC]])
// CHECK-NEXT:          "lmhlo.add"(%[[BC]], %arg1, %arg3)
// CHECK-NEXT:          "lmhlo.terminator"
// CHECK-NEXT:        }) {disc.device = "gpu", disc.fusion.name = "bcast0", disc.fusion.tag = "_vectile2", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
// CHECK-NEXT:      } else {
// CHECK-NEXT:        "lmhlo.fusion"() ({
// CHECK-NEXT:          "lmhlo.dynamic_broadcast_in_dim"(%arg0, %arg2, %[[BC]])
// CHECK-NEXT:          "lmhlo.add"(%[[BC]], %arg1, %arg3)
// CHECK-NEXT:          "lmhlo.terminator"
// CHECK-NEXT:        }) {disc.device = "gpu", disc.fusion.name = "bcast0", disc.fusion.tag = "_vectile2X_no_vectile", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// The broadcast speculation needs no device information.
// NODEV-LABEL: func.func @broadcast_gpu
// NODEV:         scf.if
// NODEV:           "lmhlo.add"(%arg0, %{{.*}}, %{{.*}})
// NODEV-NEXT:      "lmhlo.terminator"
// NODEV-NEXT:    }) {disc.device = "gpu", disc.fusion.name = "bcast0", disc.fusion.tag = "no_ib", disc.fusion_type = "kLoop"} : () -> ()
// NODEV-NEXT:  } else {
// NODEV-NEXT:    "lmhlo.fusion"() ({
// NODEV-NEXT:      "lmhlo.dynamic_broadcast_in_dim"
// NODEV-NEXT:      "lmhlo.add"
// NODEV-NEXT:      "lmhlo.terminator"
// NODEV-NEXT:    }) {disc.device = "gpu", disc.fusion.name = "bcast0", disc.fusion_type = "kLoop"} : () -> ()
// NODEV-NEXT:  }
func.func @broadcast_gpu(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<2xindex>, %arg3: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %arg1, %c0 : memref<?x?xf32>
  %d1 = memref.dim %arg1, %c1 : memref<?x?xf32>
  %0 = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.fusion"() ({
    "lmhlo.dynamic_broadcast_in_dim"(%arg0, %arg2, %0) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (memref<?x?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.add"(%0, %arg1, %arg3) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "bcast0", disc.fusion_type = "kLoop"} : () -> ()
  return %arg3 : memref<?x?xf32>
}

// -----

// CPU fusions: only the implicit-broadcast speculation applies; a CPU row
// reduction is left alone.
// CHECK-LABEL: func.func @cpu_fusions
// CHECK:         %[[BC:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A0:.*]] = memref.dim %arg0, %[[C0]] : memref<?xf32>
// CHECK-NEXT:    %[[B0:.*]] = memref.dim %[[BC]], %[[C0]] : memref<?xf32>
// CHECK-NEXT:    %[[EQ:.*]] = arith.cmpi eq, %[[A0]], %[[B0]] : index
// CHECK-NEXT:    scf.if %[[EQ]] {
// CHECK-NEXT:      %[[V0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[S0:.*]] = memref.dim %arg0, %[[V0]] : memref<?xf32>
// CHECK-NEXT:      %[[VIEW1:.*]] = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%[[S0]]], strides: [1] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT:      %[[W0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[T0:.*]] = memref.dim %arg0, %[[W0]] : memref<?xf32>
// CHECK-NEXT:      %[[VIEW3:.*]] = memref.reinterpret_cast %arg3 to offset: [0], sizes: [%[[T0]]], strides: [1] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT:      "lmhlo.fusion"() ({
// CHECK-NEXT:        "lmhlo.multiply"(%arg0, %[[VIEW1]], %[[VIEW3]])
// CHECK-NEXT:        "lmhlo.terminator"
// CHECK-NEXT:      }) {disc.device = "cpu", disc.fusion.name = "cpu0", disc.fusion.tag = "no_ib", disc.fusion_type = "kLoop"} : () -> ()
// CHECK-NEXT:    } else {
// CHECK-NEXT:      "lmhlo.fusion"() ({
// CHECK-NEXT:        "lmhlo.dynamic_broadcast_in_dim"(%arg0, %arg2, %[[BC]])
// CHECK-NEXT:        "lmhlo.multiply"(%[[BC]], %arg1, %arg3)
// CHECK-NEXT:        "lmhlo.terminator"
// CHECK-NEXT:      }) {disc.device = "cpu", disc.fusion.name = "cpu0", disc.fusion_type = "kLoop"} : () -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.reduce"(%arg4, %arg5, %arg6)
// CHECK:         }) {disc.device = "cpu", disc.fusion.name = "cpu1", disc.fusion_type = "kRowReduction"} : () -> ()
// CHECK-NEXT:    return
func.func @cpu_fusions(%arg0: memref<?xf32>, %arg1: memref<?xf32>, %arg2: memref<1xindex>, %arg3: memref<?xf32>, %arg4: memref<?x?xf32>, %arg5: memref<f32>, %arg6: memref<?xf32>) -> (memref<?xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = memref.dim %arg1, %c0 : memref<?xf32>
  %0 = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.fusion"() ({
    "lmhlo.dynamic_broadcast_in_dim"(%arg0, %arg2, %0) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<1xindex>, memref<?xf32>) -> ()
    "lmhlo.multiply"(%0, %arg1, %arg3) : (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "cpu0", disc.fusion_type = "kLoop"} : () -> ()
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%arg4, %arg5, %arg6) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "cpu1", disc.fusion_type = "kRowReduction"} : () -> ()
  return %arg3, %arg6 : memref<?xf32>, memref<?xf32>
}

// -----

// Static shapes decide every predicate at compile time: no copies, no scf.if,
// no predicate code; each fusion is the version chosen, with that version's
// hints and tag. 4x8 = 32 elements: not vectorized; 1024x1024: vectorized;
// 64x1024 row reduction: schedule 1 (1024 > 512), 64 rows < 640: not
// vectorized; a static same-shape broadcast is dropped (no views needed).
// CHECK-LABEL: func.func @static_shapes
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.abs"(%arg0, %arg1)
// CHECK-NEXT:      "lmhlo.terminator"
// CHECK-NEXT:    }) {disc.device = "gpu", disc.fusion.name = "small", disc.fusion.tag = "_vectile2X_no_vectile", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.abs"(%arg2, %arg3)
// CHECK-NEXT:      "lmhlo.terminator"
// CHECK-NEXT:    }) {disc.device = "gpu", disc.fusion.name = "large", disc.fusion.tag = "_vectile2", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.reduce"(%arg4, %arg5, %arg6)
// CHECK:         }) {disc.device = "gpu", disc.fusion.name = "rowstatic", disc.fusion.tag = "1b1rX_vectile2X_no_vectile", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 1 : i32, disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK-NEXT:    %[[BC:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.add"(%arg0, %arg1, %arg7)
// CHECK-NEXT:      "lmhlo.terminator"
// CHECK-NEXT:    }) {disc.device = "cpu", disc.fusion.name = "bstatic", disc.fusion.tag = "no_ib", disc.fusion_type = "kLoop"} : () -> ()
// CHECK-NEXT:    return
// MEM-LABEL: func.func @static_shapes
// MEM:           disc.fusion.name = "small", disc.fusion.tag = "_vectile4", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 4 : i32}
// MEM:           disc.fusion.name = "large", disc.fusion.tag = "_vectile4", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 4 : i32}
func.func @static_shapes(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>, %arg2: memref<1024x1024xf32>, %arg3: memref<1024x1024xf32>, %arg4: memref<64x1024xf32>, %arg5: memref<f32>, %arg6: memref<64xf32>, %arg7: memref<4x8xf32>, %arg8: memref<2xindex>) -> (memref<4x8xf32>, memref<1024x1024xf32>, memref<64xf32>, memref<4x8xf32>) {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%arg0, %arg1) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "small", disc.fusion_type = "kLoop"} : () -> ()
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%arg2, %arg3) : (memref<1024x1024xf32>, memref<1024x1024xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "large", disc.fusion_type = "kLoop"} : () -> ()
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%arg4, %arg5, %arg6) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<64x1024xf32>, memref<f32>, memref<64xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "rowstatic", disc.fusion_type = "kRowReduction"} : () -> ()
  %0 = memref.alloc() : memref<4x8xf32>
  "lmhlo.fusion"() ({
    "lmhlo.dynamic_broadcast_in_dim"(%arg0, %arg8, %0) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (memref<4x8xf32>, memref<2xindex>, memref<4x8xf32>) -> ()
    "lmhlo.add"(%0, %arg1, %arg7) : (memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "bstatic", disc.fusion_type = "kLoop"} : () -> ()
  return %arg1, %arg3, %arg6, %arg7 : memref<4x8xf32>, memref<1024x1024xf32>, memref<64xf32>, memref<4x8xf32>
}

// -----

// Hints already present are kept (the row schedule 2 with 128 threads sets the
// vectorization threshold: 163840 / 128 * 4 = 5120 rows); a fusion whose
// outputs nobody reads (no root) is left alone.
// CHECK-LABEL: func.func @existing_hints_and_dead
// CHECK:         arith.constant 5120 : index
// CHECK:         scf.if
// CHECK-NEXT:      "lmhlo.fusion"
// CHECK:           }) {disc.device = "gpu", disc.fusion.name = "hinted", disc.fusion.tag = "_vectile2", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 128 : i32, disc_row_reduction_schedule_hint = 2 : i32, disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
// CHECK-NEXT:    } else {
// CHECK-NEXT:      "lmhlo.fusion"
// CHECK:           }) {disc.device = "gpu", disc.fusion.name = "hinted", disc.fusion.tag = "_vectile2X_no_vectile", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 128 : i32, disc_row_reduction_schedule_hint = 2 : i32, disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.abs"(%arg3, %arg4)
// CHECK-NEXT:      "lmhlo.terminator"
// CHECK-NEXT:    }) {disc.device = "gpu", disc.fusion.name = "vec_hinted", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.abs"(%arg3, %{{.*}})
// CHECK-NEXT:      "lmhlo.terminator"
// CHECK-NEXT:    }) {disc.device = "gpu", disc.fusion.name = "dead", disc.fusion_type = "kLoop"} : () -> ()
// CHECK-NEXT:    return
func.func @existing_hints_and_dead(%arg0: memref<?x?xf32>, %arg1: memref<f32>, %arg2: memref<?xf32>, %arg3: memref<?xf32>, %arg4: memref<?xf32>) -> (memref<?xf32>, memref<?xf32>) {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%arg0, %arg1, %arg2) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "hinted", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 128 : i32, disc_row_reduction_schedule_hint = 2 : i32} : () -> ()
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%arg3, %arg4) : (memref<?xf32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "vec_hinted", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 1 : i32} : () -> ()
  %c0 = arith.constant 0 : index
  %d = memref.dim %arg3, %c0 : memref<?xf32>
  %0 = memref.alloc(%d) : memref<?xf32>
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%arg3, %0) : (memref<?xf32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "dead", disc.fusion_type = "kLoop"} : () -> ()
  return %arg2, %arg4 : memref<?xf32>, memref<?xf32>
}

// -----

// Several functions in one module. Under mem-intensive opt the vector width
// follows the narrowest output (f16: 128 / 16 = 8), a fusion with a
// concatenate keeps width 2 and the wave threshold, and kStitch fusions are
// not vectorized.
// CHECK-LABEL: func.func @loop_f16
// CHECK:         disc.fusion.tag = "_vectile2", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 2 : i32}
// CHECK-LABEL: func.func @concat
// CHECK:         disc.fusion.tag = "_vectile2", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 2 : i32}
// CHECK-LABEL: func.func @stitch
// CHECK:         disc.fusion.tag = "1b1rX_vectile2", disc.fusion_type = "kStitch", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 1 : i32, disc_vectorize_or_tile_hint = 2 : i32}
// MEM-LABEL: func.func @loop_f16
// MEM:           %[[C8:.*]] = arith.constant 8 : index
// MEM-NEXT:      %[[REM:.*]] = arith.remui %{{.*}}, %[[C8]] : index
// MEM-NEXT:      %[[EVEN:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// MEM-NEXT:      scf.if %[[EVEN]] {
// MEM:           disc.fusion.tag = "_vectile8", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 8 : i32}
// MEM:           disc.fusion.tag = "_vectile8X_no_vectile", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 1 : i32}
// MEM-LABEL: func.func @concat
// MEM:           arith.constant 2 : index
// MEM:           arith.constant 163840 : index
// MEM:           disc.fusion.tag = "_vectile2", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 2 : i32}
// MEM-LABEL: func.func @stitch
// MEM-NOT:       disc_vectorize_or_tile_hint
// MEM:           disc.fusion.tag = "1b1r", disc.fusion_type = "kStitch", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 1 : i32}
// MEM-NOT:       disc_vectorize_or_tile_hint
// MEM:           disc.fusion.tag = "1w1r", disc.fusion_type = "kStitch", disc_cta_size_hint = 256 : i32, disc_row_reduction_schedule_hint = 2 : i32}
// MEM-NOT:       disc_vectorize_or_tile_hint
// MEM:           return
func.func @loop_f16(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>) -> memref<?x?xf16> {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%arg0, %arg1) : (memref<?x?xf16>, memref<?x?xf16>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "loop16", disc.fusion_type = "kLoop"} : () -> ()
  return %arg1 : memref<?x?xf16>
}
func.func @concat(%arg0: memref<?x4xf16>, %arg1: memref<?x4xf16>, %arg2: memref<?x8xf16>) -> memref<?x8xf16> {
  "lmhlo.fusion"() ({
    "lmhlo.concatenate"(%arg0, %arg1, %arg2) {dimension = 1 : i64} : (memref<?x4xf16>, memref<?x4xf16>, memref<?x8xf16>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "concat0", disc.fusion_type = "kLoop"} : () -> ()
  return %arg2 : memref<?x8xf16>
}
func.func @stitch(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<f32>, %arg3: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.exponential"(%arg0, %arg1) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%arg1, %arg2, %arg3) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "stitch0", disc.fusion_type = "kStitch"} : () -> ()
  return %arg3 : memref<?xf32>
}
