// RUN: disc-opt %s -disc-std-bufferize | FileCheck %s

// A shape tensor becomes a buffer filled element by element; reads load it.
// CHECK-LABEL: func.func @from_elements
// CHECK-SAME: (%[[D0:.*]]: index, %[[D1:.*]]: index)
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<2xindex>
// CHECK: memref.store %[[D0]], %[[BUF]][%c0] : memref<2xindex>
// CHECK: memref.store %[[D1]], %[[BUF]][%c1] : memref<2xindex>
// CHECK: %[[V:.*]] = memref.load %[[BUF]][%{{.*}}] : memref<2xindex>
// CHECK-NOT: tensor.
// CHECK: return %[[V]] : index

// Integer constants: index constants cast to the element type; rank 0 too.
// CHECK-LABEL: func.func @constant
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<3xi64>
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[V0:.*]] = arith.index_cast %[[C2]] : index to i64
// CHECK: memref.store %[[V0]], %[[BUF]][%c0] : memref<3xi64>
// CHECK: memref.store %{{.*}}, %[[BUF]][%c1] : memref<3xi64>
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<3xi64>
// CHECK: memref.load %[[BUF]][%arg0] : memref<3xi64>
// CHECK: %[[SCALAR:.*]] = memref.alloc() : memref<index>
// CHECK: memref.store %c7, %[[SCALAR]][] : memref<index>
// CHECK: memref.load %[[SCALAR]][] : memref<index>

// Reads of values that already are buffers go to the buffer.
// CHECK-LABEL: func.func @buffer_arg
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[E:.*]] = memref.load %arg0[%[[C0]]] : memref<2xi64>
// CHECK-NEXT: %[[D:.*]] = memref.dim %arg1, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT: return %[[E]], %[[D]] : i64, index

// Float (data) constants are not shape computations: left alone.
// CHECK-LABEL: func.func @float_constant_left
// CHECK: arith.constant dense<1.000000e+00> : tensor<2xf32>
func.func @from_elements(%d0: index, %d1: index) -> index {
  %s = tensor.from_elements %d0, %d1 : tensor<2xindex>
  %c1 = arith.constant 1 : index
  %e = tensor.extract %s[%c1] : tensor<2xindex>
  return %e : index
}

func.func @constant(%i: index) -> (i64, index) {
  %0 = arith.constant dense<[2, 3, 4]> : tensor<3xi64>
  %1 = tensor.extract %0[%i] : tensor<3xi64>
  %2 = arith.constant dense<7> : tensor<index>
  %3 = tensor.extract %2[] : tensor<index>
  return %1, %3 : i64, index
}

func.func @buffer_arg(%m: memref<2xi64>, %a: memref<?x?xf32>) -> (i64, index) {
  %t = bufferization.to_tensor %m : memref<2xi64>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %t[%c0] : tensor<2xi64>
  %ta = bufferization.to_tensor %a : memref<?x?xf32>
  %d = tensor.dim %ta, %c0 : tensor<?x?xf32>
  return %e, %d : i64, index
}

func.func @float_constant_left() -> tensor<2xf32> {
  %0 = arith.constant dense<1.0> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
