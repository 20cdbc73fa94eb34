// RUN: disc-opt %s -split-input-file -verify-diagnostics
// The verifiers of lmhlo ops.

func.func @f(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<5xf32>) {
  // expected-error @+1 {{'lmhlo.add' op requires compatible shapes}}
  "lmhlo.add"(%a, %b, %c) : (memref<4xf32>, memref<4xf32>, memref<5xf32>) -> ()
  return
}

// -----

func.func @f(%a: memref<4xf32>, %b: memref<4xi32>) {
  // expected-error @+1 {{'lmhlo.abs' op output element type i32 does not match the expected f32}}
  "lmhlo.abs"(%a, %b) : (memref<4xf32>, memref<4xi32>) -> ()
  return
}

// -----

func.func @f(%a: memref<?x?xf32>) {
  // expected-error @+1 {{'lmhlo.transpose' op permutation size (3) does not match operand rank (2)}}
  "lmhlo.transpose"(%a, %a) {permutation = dense<[0, 1, 2]> : tensor<3xi64>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// -----

func.func @f(%a: memref<4xf32>) {
  "lmhlo.fusion"() ({
    // A block of a region op must end in a terminator.
    // expected-error @+1 {{'lmhlo.abs' op Operation lmhlo.abs terminates block}}
    "lmhlo.abs"(%a, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  }) : () -> ()
  return
}

// -----

func.func @f(%a: memref<?x?xf32>, %z: memref<f32>, %r: memref<?xf32>) {
  // expected-error @+1 {{'lmhlo.reduce' op reducer region expects 3 arguments}}
  "lmhlo.reduce"(%a, %z, %r) ({
^bb0(%x: memref<f32>, %y: memref<f32>):
  "lmhlo.terminator"() : () -> ()
}) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  return
}
