// RUN: disc-opt -disc-const-to-ral=metadata-file-name=%t.meta %s | FileCheck %s
// RUN: not disc-opt -split-input-file '-disc-const-to-ral=metadata-file-name=""' %S/Inputs/const-to-ral-resource-errors.mlir 2>&1 | FileCheck %s --check-prefix=ERR

// ERR: error: {{.*}}dense_resource<short> holds 8 bytes, memref<3xf32> needs 12
// ERR: error: {{.*}}dense_resource<missing> has no data (no entry for it in the module's dialect_resources section)
// ERR: const-to-ral-resource-errors.mlir:33:12: error: resource 'odd': malformed hex data
// ERR: error: resource 'align': alignment 3 is not a power of two
// ERR: error: resource 'twice': defined twice

// A dense_resource constant becomes a ral_const like a dense one: named by
// the MD5 of its blob's bytes (1.0, -2.0 here, the hash of their hex).
// CHECK: llvm.mlir.global internal constant @__global_const_0("[[MD5:[0-9a-f]{32}]]_f32_2\00")
// CHECK-LABEL: func.func @resource
// CHECK: "disc_ral.dispatch"({{.*}}) {{.*}}call_target_name = "ral_const", device = "cpu"{{.*}} -> memref<2xf32>
// CHECK-NOT: lmhlo.constant
func.func @resource(%ctx: !disc_ral.context, %out: memref<2xf32>) {
  %0 = memref.alloc() : memref<2xf32>
  "lmhlo.constant"(%0) {value = dense_resource<w> : tensor<2xf32>} : (memref<2xf32>) -> ()
  "lmhlo.add"(%0, %0, %out) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  return
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000C0"
    }
  }
#-}
