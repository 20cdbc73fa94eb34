// A blob whose size does not match the constant's type.
func.func @short(%ctx: !disc_ral.context, %out: memref<3xf32>) {
  %0 = memref.alloc() : memref<3xf32>
  "lmhlo.constant"(%0) {value = dense_resource<short> : tensor<3xf32>} : (memref<3xf32>) -> ()
  "lmhlo.copy"(%0, %out) : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F000000C0"
    }
  }
#-}

// -----

// A handle the section does not define.
func.func @missing(%ctx: !disc_ral.context, %out: memref<2xf32>) {
  %0 = memref.alloc() : memref<2xf32>
  "lmhlo.constant"(%0) {value = dense_resource<missing> : tensor<2xf32>} : (memref<2xf32>) -> ()
  "lmhlo.copy"(%0, %out) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

// Malformed blobs are parse errors.
{-#
  dialect_resources: {
    builtin: {
      odd: "0x0400000000803F0"
    }
  }
#-}

// -----

{-#
  dialect_resources: {
    builtin: {
      align: "0x030000000000803F"
    }
  }
#-}

// -----

func.func @twice() {
  %0 = mhlo.constant dense_resource<twice> : tensor<1xf32>
  return
}
{-#
  dialect_resources: {
    builtin: {
      twice: "0x040000000000803F",
      twice: "0x040000000000803F"
    }
  }
#-}
