"""`gpu.launch_func` -> RAL `ral_kernel_launch` on `gpu` (BladeDISC's
ConvertLaunchFuncOpToRalCallPattern, disc_to_llvm.cc, on opaque pointers).

For `gpu.launch_func @m::@k blocks in (gx, gy, gz) threads in (bx, by, bz)
args(%a...)` whose `gpu.module @m` carries the compiled blob (`gpu.binary`,
or the `gpu.binary_<name>` attributes of a multi-cc compilation, in
`MULTI_SM_CONFIG` order):

    llvm.mlir.global internal constant @m_blob_gpu.binary("<cubin or PTX>")
    llvm.mlir.global internal constant @m_k_kernel_name("k\\00")
    %blobs = llvm.alloca N x !llvm.ptr          // pointers to each blob
    %params = <pack(fields(%a)...)>             // void**: the kernel's arguments,
                                                // memrefs as descriptor fields
    disc_ral_call(%ctx, "ral_kernel_launch___gpu___pvoid_ppvoid_i64_pvoid_i64_i64_i64_i64_i64_i64_i32_pvoid_i32_ppvoid___void",
                  [%blobs, N, name, gx, gy, gz, bx, by, bz, smem, stream 0, num_args, %params])

which matches the runtime's
`ral_kernel_launch(ctx, void** blobs, size_t num_blobs, const char* kernel_name,
intptr_t gridX, gridY, gridZ, blockX, blockY, blockZ, int32_t smem,
void* stream, int32_t num_args, void** params)` (BladeDISC's
ral_base_cuda_launch); the stream is the default one (null), the shared
memory size the launch's `dynamic_shared_memory_size` or 0. The context is
the enclosing function's first argument.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import BytesAttr, IntegerAttr, StringAttr, SymbolRefAttr, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.conversion.disc_ral_to_llvm import pack_slots
from disc_ir.conversion.llvm_common import (
    PTR,
    Emitter,
    fail,
    lookup_symbol,
    materialize_source,
    module_of,
    ral_context_of,
)
from disc_ir.conversion.ral_dispatch_to_llvm import (
    get_or_create_global_string,
    get_or_insert_dispatch_function,
    load_global_string,
    promote_operand,
)
from disc_ir.runtime.abi import encode_ral_api_name

RAL_GPU_LAUNCH = "ral_kernel_launch"
GPU_LAUNCH_API = encode_ral_api_name(
    RAL_GPU_LAUNCH,
    "gpu",
    ["pvoid", "ppvoid", "i64", "pvoid", *["i64"] * 6, "i32", "pvoid", "i32", "ppvoid"],
)
"""The RAL name of the GPU kernel launch."""
GPU_BINARY_ATTR = "gpu.binary"
#: the multi-cc blob names, in BladeDISC's c_MULTI_SM_CONFIG order (see disc-gpu-kernel-to-blob)
MULTI_SM_NAMES = ("compute_75", "sm_80", "sm_86", "sm_90")


def _blob_bytes(attr: object) -> bytes | None:
    if isinstance(attr, BytesAttr):
        return attr.data
    if isinstance(attr, StringAttr):
        return attr.data.encode("utf-8")
    return None


def kernel_blobs(gpu_module: Operation) -> list[tuple[str, bytes]]:
    """(attribute name, blob) of a compiled gpu.module: `gpu.binary`, else the multi-cc ones."""
    single = _blob_bytes(gpu_module.attributes.get(GPU_BINARY_ATTR))
    if single is not None:
        return [(GPU_BINARY_ATTR, single)]
    out = []
    for name in MULTI_SM_NAMES:
        attr_name = f"{GPU_BINARY_ATTR}_{name}"
        blob = _blob_bytes(gpu_module.attributes.get(attr_name))
        if blob is not None:
            out.append((attr_name, blob))
    return out


def _launch_func(op: Operation, rewriter: PatternRewriter) -> None:
    if op.asyncDependencies or op.asyncToken is not None:  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
        raise fail(op, "cannot convert a launch with async dependencies or result")
    kernel = op.properties.get("kernel") or op.attributes.get("kernel")
    assert isinstance(kernel, SymbolRefAttr)
    module_name = kernel.root_reference.data
    kernel_name = kernel.nested_references.data[-1].data if kernel.nested_references.data else ""
    module = module_of(op)
    gpu_module = lookup_symbol(module, module_name)
    if gpu_module is None or gpu_module.name != "gpu.module":
        raise fail(op, f"cannot find corresponding kernel module @{module_name}")
    blobs = kernel_blobs(gpu_module)
    if not blobs:
        raise fail(
            op,
            f"gpu.module @{module_name}: missing {GPU_BINARY_ATTR} attribute, at least one "
            "should be provided (run disc-gpu-kernel-to-blob)",
        )
    em = Emitter(rewriter, op)
    ctx = em.llvm(ral_context_of(op, rewriter))
    blob_array = em.alloca(PTR, em.value(llvm.ConstantOp(IntegerAttr(len(blobs), i32), i32)))
    for i, (attr_name, data) in enumerate(blobs):
        # NUL-terminated: cuModuleLoadData reads PTX up to its NUL (harmless for cubin).
        global_op = get_or_create_global_string(
            module, f"{module_name}_blob_{attr_name}", data + b"\0", rewriter
        )
        ptr = load_global_string(global_op, rewriter, op)
        em.emit(llvm.StoreOp(ptr, em.gep(blob_array, PTR, [i])))
    name_global = get_or_create_global_string(
        module, f"{module_name}_{kernel_name}_kernel_name", kernel_name.encode() + b"\0", rewriter
    )
    name_ptr = load_global_string(name_global, rewriter, op)
    kernel_args: list[SSAValue] = []
    for v in op.kernelOperands:  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
        kernel_args.extend(promote_operand(v, rewriter, op, materialize_source))
    params = pack_slots(em, kernel_args)
    sizes = [
        em.llvm(v)
        for v in (
            op.gridSizeX,  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
            op.gridSizeY,  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
            op.gridSizeZ,  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
            op.blockSizeX,  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
            op.blockSizeY,  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
            op.blockSizeZ,  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
        )
    ]
    shmem_value = op.dynamicSharedMemorySize  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    smem = em.llvm(shmem_value) if shmem_value is not None else em.const(0, i32)
    stream = em.value(llvm.IntToPtrOp(em.const(0, i32)))
    slots = [
        ctx,
        blob_array,
        em.i64(len(blobs)),
        name_ptr,
        *sizes,
        smem,
        stream,
        em.const(len(kernel_args), i32),
        params,
    ]
    args = pack_slots(em, slots)
    dispatch = get_or_insert_dispatch_function(module, rewriter)
    api = get_or_create_global_string(
        module, GPU_LAUNCH_API, GPU_LAUNCH_API.encode() + b"\0", rewriter
    )
    api_ptr = load_global_string(api, rewriter, op)
    em.emit(llvm.CallOp(dispatch.sym_name.data, ctx, api_ptr, args))
    rewriter.erase(op)


class GpuLaunchToLLVM(RewritePattern):
    """Lowers `gpu.launch_func` to a RAL kernel launch."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "gpu.launch_func":
            _launch_func(op, rewriter)


def gpu_launch_to_llvm_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [GpuLaunchToLLVM()]


__all__ = ["GPU_LAUNCH_API", "GpuLaunchToLLVM", "gpu_launch_to_llvm_patterns", "kernel_blobs"]
