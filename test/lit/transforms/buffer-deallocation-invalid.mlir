// RUN: not disc-opt %s -split-input-file --buffer-deallocation 2>&1 | FileCheck %s

// CHECK: error: pass 'buffer-deallocation' failed: Only structured control-flow loops are supported.
func.func @cfg_loop(%arg0: memref<2xf32>) {
  cf.br ^bb1
^bb1:
  %a = memref.alloc() : memref<2xf32>
  cf.br ^bb1
}
