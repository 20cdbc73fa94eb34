// RUN: disc-opt -split-input-file -disc-to-llvm %s | FileCheck %s
// RUN: disc-opt -split-input-file -disc-to-llvm %s | FileCheck %s --check-prefix=NOLIBC

// Heap memory goes through RAL (`alloc` / `dealloc` by encoded name), never malloc/free.
// NOLIBC-NOT: llvm.call @malloc
// NOLIBC-NOT: llvm.call @free
// NOLIBC-NOT: llvm.func @malloc
// NOLIBC-NOT: llvm.func @free
// NOLIBC-NOT: builtin.unrealized_conversion_cast

// CHECK-DAG: llvm.mlir.global internal constant @alloc___cpu___pvoid_i64___pvoid("alloc___cpu___pvoid_i64___pvoid\00") {{.*}} : !llvm.array<32 x i8>
// CHECK-DAG: llvm.mlir.global internal constant @dealloc___cpu___pvoid_pvoid___void("dealloc___cpu___pvoid_pvoid___void\00") {{.*}} : !llvm.array<35 x i8>
// CHECK-DAG: llvm.func @disc_ral_call(!llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func @alloc_dealloc
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[N:.*]]: i64)
// The byte size: n * 4 * sizeof(f32).
// CHECK: %[[C4:.*]] = llvm.mlir.constant(4) : i64
// CHECK: %[[NE:.*]] = llvm.mul %[[N]], %[[C4]] : i64
// CHECK: %[[BYTES:.*]] = llvm.mul %[[NE]], %{{.*}} : i64
// CHECK: %[[SLOTS:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, i64, !llvm.ptr)> : (i32) -> !llvm.ptr
// CHECK: %[[ARGS:.*]] = llvm.alloca %{{.*}} x !llvm.ptr : (i32) -> !llvm.ptr
// CHECK: llvm.store %[[CTX]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[BYTES]], %{{.*}} : i64, !llvm.ptr
// CHECK: %[[RES:.*]] = llvm.getelementptr %[[SLOTS]][0, 2]
// CHECK: %[[NAME:.*]] = llvm.mlir.addressof @alloc___cpu___pvoid_i64___pvoid : !llvm.ptr
// CHECK: %[[NAMEPTR:.*]] = llvm.getelementptr %[[NAME]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<32 x i8>
// CHECK: llvm.call @disc_ral_call(%[[CTX]], %[[NAMEPTR]], %[[ARGS]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK: %[[PTR:.*]] = llvm.load %[[RES]] : !llvm.ptr -> !llvm.ptr
// dealloc passes the allocated pointer (the descriptor's field 0 is the RAL buffer:
// read straight from it, the descriptor itself is then dead and not emitted).
// CHECK: llvm.store %[[PTR]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.mlir.addressof @dealloc___cpu___pvoid_pvoid___void
// CHECK: llvm.call @disc_ral_call
// CHECK: llvm.return
func.func @alloc_dealloc(%ctx: !disc_ral.context, %n: index) {
  %0 = memref.alloc(%n) : memref<?x4xf32>
  memref.dealloc %0 : memref<?x4xf32>
  return
}

// -----

// The descriptor of a RAL buffer: allocated = aligned = the buffer, offset 0,
// sizes [n, 4], strides [4, 1].
// CHECK-LABEL: llvm.func @alloc_descriptor
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[N:.*]]: i64)
// CHECK: %[[C4:.*]] = llvm.mlir.constant(4) : i64
// CHECK: llvm.call @disc_ral_call
// CHECK: %[[PTR:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[PTR]], %[[D0]][0]
// CHECK: %[[D2:.*]] = llvm.insertvalue %[[PTR]], %[[D1]][1]
// CHECK: llvm.insertvalue %{{.*}}[2]
// CHECK: llvm.insertvalue %[[N]], %{{.*}}[3, 0]
// CHECK: llvm.insertvalue %[[C4]], %{{.*}}[3, 1]
// CHECK: llvm.insertvalue %[[C4]], %{{.*}}[4, 0]
// CHECK: %[[D:.*]] = llvm.insertvalue %{{.*}}[4, 1]
// CHECK: llvm.return %[[D]]
func.func @alloc_descriptor(%ctx: !disc_ral.context, %n: index) -> memref<?x4xf32> {
  %0 = memref.alloc(%n) : memref<?x4xf32>
  return %0 : memref<?x4xf32>
}

// -----

// Memrefs in a gpu address space are allocated on the `gpu` device.
// CHECK-DAG: llvm.mlir.global internal constant @alloc___gpu___pvoid_i64___pvoid("alloc___gpu___pvoid_i64___pvoid\00")
// CHECK-DAG: llvm.mlir.global internal constant @dealloc___gpu___pvoid_pvoid___void("dealloc___gpu___pvoid_pvoid___void\00")
// CHECK-LABEL: llvm.func @gpu_alloc
// CHECK: llvm.mlir.addressof @alloc___gpu___pvoid_i64___pvoid
// CHECK: llvm.mlir.addressof @dealloc___gpu___pvoid_pvoid___void
func.func @gpu_alloc(%ctx: !disc_ral.context) {
  %0 = memref.alloc() : memref<8xf32, #gpu.address_space<global>>
  memref.dealloc %0 : memref<8xf32, #gpu.address_space<global>>
  return
}

// -----

// Memref arguments are expanded into their descriptor fields (MLIR's calling
// convention); the entry block rebuilds the descriptor, whose fields are read
// back directly (the struct is dead here and dropped). Loads index the aligned
// pointer with the static stride.
// CHECK-LABEL: llvm.func @signature
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[ALLOC:.*]]: !llvm.ptr, %[[ALIGN:.*]]: !llvm.ptr, %[[OFF:.*]]: i64, %[[S0:.*]]: i64, %[[S1:.*]]: i64, %[[T0:.*]]: i64, %[[T1:.*]]: i64, %[[I:.*]]: i64) -> f32
// CHECK-NOT: llvm.insertvalue
// CHECK: %[[C4:.*]] = llvm.mlir.constant(4) : i64
// CHECK: %[[ROW:.*]] = llvm.mul %[[I]], %[[C4]] : i64
// CHECK: %[[LIN:.*]] = llvm.add %[[ROW]], %{{.*}} : i64
// CHECK: %[[ADDR:.*]] = llvm.getelementptr inbounds %[[ALIGN]][%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[V:.*]] = llvm.load %[[ADDR]] : !llvm.ptr -> f32
// CHECK: llvm.return %[[V]] : f32
func.func @signature(%ctx: !disc_ral.context, %m: memref<?x4xf32>, %i: index) -> f32 {
  %c1 = arith.constant 1 : index
  %v = memref.load %m[%i, %c1] : memref<?x4xf32>
  return %v : f32
}

// -----

// recv_input / send_output are RAL calls with the encoded names the runtime registers.
// CHECK-DAG: llvm.mlir.global internal constant @ral_recv_input___cpu___pvoid_i64___m2df32("ral_recv_input___cpu___pvoid_i64___m2df32\00") {{.*}} : !llvm.array<42 x i8>
// CHECK-DAG: llvm.mlir.global internal constant @ral_send_output___cpu___pvoid_i64_m2df32___void("ral_send_output___cpu___pvoid_i64_m2df32___void\00") {{.*}} : !llvm.array<48 x i8>
// CHECK-LABEL: llvm.func @io(%{{.*}}: !llvm.ptr)
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, i64, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>)>
// CHECK: llvm.call @disc_ral_call
// CHECK: %[[IN:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// The output memref is passed field by field.
// CHECK: llvm.extractvalue %[[IN]][0]
// CHECK: llvm.extractvalue %[[IN]][4, 1]
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64)>
// CHECK: llvm.mlir.addressof @ral_send_output___cpu___pvoid_i64_m2df32___void
// CHECK: llvm.call @disc_ral_call
func.func @io(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?x?xf32>
  "disc_ral.send_output"(%ctx, %c0, %a) : (!disc_ral.context, index, memref<?x?xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: llvm.func @scalars
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i64, %[[X:.*]]: f32, %[[Y:.*]]: f32) -> f32
// CHECK: %[[I:.*]] = llvm.sext %[[A]] : i32 to i64
// CHECK: %[[LT:.*]] = llvm.icmp "slt" %[[I]], %[[B]] : i64
// CHECK: %[[GT:.*]] = llvm.fcmp "ugt" %[[X]], %[[Y]] : f32
// CHECK: %[[AND:.*]] = llvm.and %[[LT]], %[[GT]] : i1
// CHECK: %[[SEL:.*]] = llvm.select %[[AND]], %[[X]], %[[Y]] : i1, f32
// CHECK: %[[TANH:.*]] = llvm.call_intrinsic "llvm.tanh.f32"(%[[SEL]]) : (f32) -> f32
// CHECK: %[[F:.*]] = llvm.sitofp %[[A]] : i32 to f32
// CHECK: %[[MAX:.*]] = llvm.call_intrinsic "llvm.maximum.f32"(%[[TANH]], %[[F]]) : (f32, f32) -> f32
// CHECK: %[[SI:.*]] = llvm.fptosi %[[MAX]] : f32 to i32
// CHECK: %[[UF:.*]] = llvm.uitofp %[[SI]] : i32 to f32
// CHECK: %[[E:.*]] = llvm.intr.exp(%[[UF]]) : (f32) -> f32
// CHECK: llvm.return %[[E]] : f32
func.func @scalars(%a: i32, %b: index, %x: f32, %y: f32) -> f32 {
  %0 = arith.index_cast %a : i32 to index
  %1 = arith.cmpi slt, %0, %b : index
  %2 = arith.cmpf ugt, %x, %y : f32
  %3 = arith.andi %1, %2 : i1
  %4 = arith.select %3, %x, %y : f32
  %5 = math.tanh %4 : f32
  %6 = arith.sitofp %a : i32 to f32
  %7 = arith.maximumf %5, %6 : f32
  %8 = arith.fptosi %7 : f32 to i32
  %9 = arith.uitofp %8 : i32 to f32
  %10 = math.exp %9 : f32
  return %10 : f32
}

// -----

// Block arguments and branch operands take their LLVM types (index -> i64).
// CHECK-LABEL: llvm.func @branches
// CHECK-SAME: (%[[N:.*]]: i64, %[[FLAG:.*]]: i32) -> i64
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0) : i64
// CHECK: llvm.br ^[[LOOP:.*]](%[[C0]] : i64)
// CHECK: ^[[LOOP]](%[[I:.*]]: i64):
// CHECK: %[[C:.*]] = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK: llvm.cond_br %[[C]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK: ^[[BODY]]:
// CHECK: "llvm.switch"(%[[FLAG]], %[[N]]) [^[[LOOP]], ^[[EXIT]]] <{case_operand_segments = array<i32: 0>, case_values = dense<7> : vector<1xi32>
// CHECK: ^[[EXIT]]:
// CHECK: llvm.return %[[I]] : i64
func.func @branches(%n: index, %flag: i32) -> index {
  %c0 = arith.constant 0 : index
  cf.br ^bb1(%c0 : index)
^bb1(%i: index):
  %c = arith.cmpi slt, %i, %n : index
  cf.cond_br %c, ^bb2, ^bb3
^bb2:
  cf.switch %flag : i32, [
    default: ^bb1(%n : index),
    7: ^bb3
  ]
^bb3:
  return %i : index
}

// -----

// A CPU kernel launch: the kernel's arguments are packed into `void**`, a
// `packed_<kernel>(lb, ub, step, params)` wrapper unpacks them, and the launch
// is a `ral_kernel_launch` RAL call with the name the CPU driver registers.
// CHECK-DAG: llvm.mlir.global internal constant @ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void(
// CHECK-DAG: llvm.mlir.global internal constant @_cpu_kernel_kernel("kernel\00") {{.*}} : !llvm.array<7 x i8>
// CHECK-DAG: llvm.func @kernel(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64)
// CHECK-LABEL: llvm.func @launch
// The kernel parameters: context + the memref's fields.
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64)> : (i32) -> !llvm.ptr
// CHECK: llvm.mlir.addressof @packed_kernel : !llvm.ptr
// CHECK: llvm.mlir.addressof @_cpu_kernel_kernel : !llvm.ptr
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr)>
// CHECK: llvm.mlir.addressof @ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void
// CHECK: llvm.call @disc_ral_call
// CHECK-LABEL: llvm.func @packed_kernel
// CHECK-SAME: (%[[LB:.*]]: !llvm.ptr, %[[UB:.*]]: !llvm.ptr, %[[ST:.*]]: !llvm.ptr, %[[P:.*]]: !llvm.ptr)
// CHECK: %[[SLOT0:.*]] = llvm.getelementptr %[[P]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[F0:.*]] = llvm.load %[[SLOT0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[CTX:.*]] = llvm.load %[[F0]] : !llvm.ptr -> !llvm.ptr
// The induction-variable memrefs: offset 0, size 1 (one iv), stride 1.
// CHECK: %[[Z:.*]] = llvm.mlir.constant(0) : i64
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK: llvm.call @kernel(%[[CTX]], %[[LB]], %[[LB]], %[[Z]], %[[ONE]], %[[ONE]], %[[UB]], %[[UB]], %[[Z]], %[[ONE]], %[[ONE]], %[[ST]], %[[ST]], %[[Z]], %[[ONE]], %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: llvm.return
func.func private @kernel(%ctx: !disc_ral.context, %lb: memref<1xindex>, %ub: memref<1xindex>, %st: memref<1xindex>, %a: memref<?xf32>)

func.func @launch(%ctx: !disc_ral.context, %a: memref<?xf32>) {
  %lb = memref.alloca() : memref<1xindex>
  %ub = memref.alloca() : memref<1xindex>
  %st = memref.alloca() : memref<1xindex>
  %c1 = arith.constant 1 : index
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %st, %c1, %a) {callee = @kernel} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<?xf32>) -> ()
  return
}

// -----

// A dispatch with a backend config passes a pointer to the config string.
// CHECK-DAG: llvm.mlir.global internal constant @my_op___cpu___pvoid_f32_pvoid___f32__attrs("cfg\00")
// CHECK-DAG: llvm.mlir.global internal constant @my_op___cpu___pvoid_f32_pvoid___f32("my_op___cpu___pvoid_f32_pvoid___f32\00")
// CHECK-LABEL: llvm.func @dispatch
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, f32, !llvm.ptr, f32)>
// CHECK: llvm.call @disc_ral_call
// CHECK: %[[R:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: llvm.return %[[R]] : f32
func.func @dispatch(%ctx: !disc_ral.context, %x: f32) -> f32 {
  %0 = "disc_ral.dispatch"(%ctx, %x) {backend_config = "cfg", call_target_name = "my_op", device = "cpu", has_side_effect = false} : (!disc_ral.context, f32) -> f32
  return %0 : f32
}

// -----

// Globals hold the flattened data; get_global builds a static descriptor
// (allocated = aligned = the global's address), which a load reads from
// directly: element [1, 1] of the 2x2 row-major global is at offset 3.
// CHECK: llvm.mlir.global internal constant @cst(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>) {{.*}} : !llvm.array<4 x f32>
// CHECK-LABEL: llvm.func @global
// CHECK: %[[G:.*]] = llvm.mlir.addressof @cst : !llvm.ptr
// CHECK: %[[C3:.*]] = llvm.mlir.constant(3) : i64
// CHECK: %[[ADDR:.*]] = llvm.getelementptr inbounds %[[G]][%[[C3]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.load %[[ADDR]] : !llvm.ptr -> f32
"memref.global"() <{sym_name = "cst", sym_visibility = "private", type = memref<2x2xf32>, initial_value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, constant}> : () -> ()
func.func @global() -> f32 {
  %c1 = arith.constant 1 : index
  %g = memref.get_global @cst : memref<2x2xf32>
  %v = memref.load %g[%c1, %c1] : memref<2x2xf32>
  return %v : f32
}

// -----

// BladeDISC's default stream handle is a typed pointer (`!llvm.ptr<i8>`);
// LLVM's pointers are opaque: the handle becomes `!llvm.ptr` and is passed on
// as a pointer argument of the RAL call.
// CHECK-LABEL: llvm.func @typed_stream_handle
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[STREAM:.*]] = llvm.inttoptr %[[ZERO]] : i32 to !llvm.ptr{{$}}
// CHECK: llvm.store %[[STREAM]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.mlir.addressof @sync_on_stream___gpu___pvoid_pvoid___void
// CHECK: llvm.call @disc_ral_call
func.func @typed_stream_handle(%ctx: !disc_ral.context) {
  %0 = llvm.mlir.constant(0 : i32) : i32
  %1 = llvm.inttoptr %0 : i32 to !llvm.ptr<i8>
  "disc_ral.dispatch"(%ctx, %1) {backend_config = "", call_target_name = "sync_on_stream", device = "gpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr<i8>) -> ()
  return
}
