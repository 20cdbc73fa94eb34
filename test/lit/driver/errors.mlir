// RUN: not disc-opt %s 2>&1 | FileCheck %s
// CHECK: errors.mlir:5:{{[0-9]+}}: error: {{.*}}not registered
// CHECK-NEXT: "foo.bar"

%0 = "foo.bar"() : () -> i32
