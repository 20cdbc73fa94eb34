"""``ral_gemm`` on gpu: row-major (batched) matrix multiply through cuBLAS.

cuBLAS is column-major. A row-major ``C[m, n] = op(A)[m, k] @ op(B)[k, n]`` is,
read column-major, ``C^T[n, m] = op(B)^T @ op(A)^T``: so cuBLAS is called with
the operands swapped (``B`` first), ``m' = n``, ``n' = m``, the transpose flags
swapped, and each leading dimension the row stride of the row-major storage.
A matrix whose minor stride is not 1 but whose row stride is (a transposed
view) is passed as the transposed storage of its transpose. Batch dims (ranks
3+) must collapse into one uniformly strided batch; ``cublasGemmStridedBatchedEx``
runs it (``cublasGemmEx`` for a single matrix).

:func:`plan_row_major_gemm` computes the call (:class:`CublasGemmCall`) from
the memref descriptors alone, so the mapping is tested without a GPU;
:class:`CublasHandle` runs a plan.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from disc_ir.runtime.context import RalError
from disc_ir.runtime.cuda_libs import LibCublas, libcublas
from disc_ir.runtime.kernels.gemm import gemm_dims
from disc_ir.runtime.memref import MemRefDescriptor, numpy_dtype

CUBLAS_OP_N = 0
CUBLAS_OP_T = 1
CUBLAS_GEMM_DEFAULT = -1

CUDA_R_32F = 0
CUDA_R_64F = 1
CUDA_R_16F = 2
CUDA_R_16BF = 14

CUBLAS_COMPUTE_32F = 68
CUBLAS_COMPUTE_64F = 70

#: element code -> (cudaDataType, cublasComputeType, ctypes type of alpha/beta)
CUBLAS_TYPES: dict[str, tuple[int, int, type]] = {
    "f32": (CUDA_R_32F, CUBLAS_COMPUTE_32F, ctypes.c_float),
    "f64": (CUDA_R_64F, CUBLAS_COMPUTE_64F, ctypes.c_double),
    "f16": (CUDA_R_16F, CUBLAS_COMPUTE_32F, ctypes.c_float),
    "bf16": (CUDA_R_16BF, CUBLAS_COMPUTE_32F, ctypes.c_float),
}

#: element -> (cublas<t>geam, its scalar type): the element types ral_transpose takes on the GPU
TRANSPOSE_TYPES = {"f32": ("cublasSgeam", ctypes.c_float), "f64": ("cublasDgeam", ctypes.c_double)}

INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class CublasGemmCall:
    """One cuBLAS (strided-batched) gemm in column-major terms.

    ``C = op_a(A) @ op_b(B)`` with ``A`` ``m x k``, ``B`` ``k x n``, ``C`` ``m x n``
    after the ops; pointers are byte addresses, leading dims and batch
    strides in elements.
    """

    transa: int
    transb: int
    m: int
    n: int
    k: int
    a: int
    lda: int
    stride_a: int
    b: int
    ldb: int
    stride_b: int
    c: int
    ldc: int
    stride_c: int
    batch: int
    element: str


@dataclass(frozen=True)
class _Matrix:
    """A row-major matrix operand: ``rows x cols`` with row stride ``ld`` (elements),
    stored transposed when ``transposed`` (then ``ld`` is the column stride)."""

    address: int
    rows: int
    cols: int
    ld: int
    transposed: bool
    batch_stride: int


def _batch_stride(desc: MemRefDescriptor, what: str) -> tuple[int, int]:
    """(batch count, uniform batch stride) of the leading dims of ``desc``."""
    batch_dims = desc.sizes[:-2]
    batch_strides = desc.strides[:-2]
    count = 1
    for s in batch_dims:
        count *= s
    if not batch_dims:
        return 1, 0
    # The batch dims collapse when each stride is the next one times its size.
    stride = None
    for i in range(len(batch_dims) - 1, -1, -1):
        if batch_dims[i] == 1:
            continue
        if stride is None:
            stride = batch_strides[i]
            expected = stride * batch_dims[i]
            continue
        if batch_strides[i] != expected:
            raise RalError(
                f"ral_gemm (gpu): the batch dims of {what} (sizes {desc.sizes}, strides "
                f"{desc.strides}) do not collapse into one strided batch"
            )
        expected = batch_strides[i] * batch_dims[i]
    return count, stride or 0


def _matrix(desc: MemRefDescriptor, what: str) -> _Matrix:
    rows, cols = desc.sizes[-2], desc.sizes[-1]
    row_stride, col_stride = desc.strides[-2], desc.strides[-1]
    _, batch_stride = _batch_stride(desc, what)
    if (col_stride == 1 or cols == 1) and (rows == 1 or row_stride >= max(1, cols)):
        ld = row_stride if rows > 1 else max(1, cols)
        return _Matrix(desc.data_address, rows, cols, ld, False, batch_stride)
    if (row_stride == 1 or rows == 1) and (cols == 1 or col_stride >= max(1, rows)):
        ld = col_stride if cols > 1 else max(1, rows)
        return _Matrix(desc.data_address, rows, cols, ld, True, batch_stride)
    raise RalError(
        f"ral_gemm (gpu): {what} has strides {desc.strides}: neither dimension of the matrix "
        f"is contiguous with a valid leading dimension"
    )


def plan_row_major_gemm(
    a: MemRefDescriptor,
    b: MemRefDescriptor,
    c: MemRefDescriptor,
    tp_a: bool,
    tp_b: bool,
) -> CublasGemmCall | None:
    """The cuBLAS call computing row-major ``c = op(a) @ op(b)``; None for an empty product.

    Checks shapes (contraction dims, batch dims, output shape) and element
    types as BladeDISC's ``ral_gemm`` does, raising RalError with the sizes.
    """
    if not (a.rank == b.rank == c.rank) or c.rank < 2:
        raise RalError(f"ral_gemm (gpu): operand ranks {a.rank}, {b.rank}, {c.rank} differ or < 2")
    element = c.element.code
    if a.element.code != element or b.element.code != element:
        raise RalError(
            f"ral_gemm (gpu): element types {a.element.code}, {b.element.code}, {element} differ"
        )
    if element not in CUBLAS_TYPES:
        raise RalError(f"ral_gemm (gpu): element type {element} is not supported by cuBLAS here")
    m, n, k = gemm_dims(a, b, c, tp_a, tp_b, "ral_gemm (gpu)")
    if a.num_elements == 0 or b.num_elements == 0 or c.num_elements == 0:
        return None
    batch, _ = _batch_stride(c, "C")
    ma, mb, mc = _matrix(a, "A"), _matrix(b, "B"), _matrix(c, "C")
    if mc.transposed and mc.rows > 1 and mc.cols > 1:
        raise RalError(
            f"ral_gemm (gpu): the output has strides {c.strides}; rows must be contiguous"
        )
    for value, what in (
        (m, "m"),
        (n, "n"),
        (k, "k"),
        (ma.ld, "lda"),
        (mb.ld, "ldb"),
        (mc.ld, "ldc"),
    ):
        if value > INT_MAX:
            raise RalError(f"ral_gemm (gpu): {what} = {value} exceeds cuBLAS's 32-bit int")
    # Row-major op(X) stored untransposed is, column-major, op(X)^T: the op on
    # the swapped operand is "N" when the row-major op is "transpose" and vice
    # versa -- flipped once more when the storage itself is transposed.
    op_b = CUBLAS_OP_T if (bool(tp_b) != mb.transposed) else CUBLAS_OP_N
    op_a = CUBLAS_OP_T if (bool(tp_a) != ma.transposed) else CUBLAS_OP_N
    return CublasGemmCall(
        transa=op_b,
        transb=op_a,
        m=n,
        n=m,
        k=k,
        a=mb.address,
        lda=mb.ld,
        stride_a=mb.batch_stride,
        b=ma.address,
        ldb=ma.ld,
        stride_b=ma.batch_stride,
        c=mc.address,
        ldc=mc.ld,
        stride_c=mc.batch_stride,
        batch=batch,
        element=element,
    )


def element_itemsize(element: str) -> int:
    """Bytes per element of an element code."""
    from disc_ir.runtime.abi import ScalarType

    return numpy_dtype(ScalarType(element)).itemsize


class CublasHandle:
    """A cuBLAS handle bound to one stream (one per CUDA RAL context)."""

    def __init__(self, stream: int, lib: LibCublas | None = None):
        self.lib = lib if lib is not None else libcublas()
        handle = ctypes.c_void_p()
        self.lib.check("cublasCreate", self.lib.cublasCreate_v2(ctypes.byref(handle)))
        self.handle = handle.value
        self.lib.check("cublasSetStream", self.lib.cublasSetStream_v2(self.handle, stream))

    def run(self, call: CublasGemmCall) -> None:
        """Enqueues ``call`` on the handle's stream (``C = op(A) op(B)``, beta 0)."""
        data_type, compute_type, scalar = CUBLAS_TYPES[call.element]
        alpha, beta = scalar(1.0), scalar(0.0)
        head = (self.handle, call.transa, call.transb, call.m, call.n, call.k, ctypes.byref(alpha))
        # Each matrix: pointer, data type, leading dimension (and batch stride),
        # in the argument order of cuda_libs' prototypes.
        mats: list[tuple[int, ...]] = [
            (call.a, data_type, call.lda, call.stride_a),
            (call.b, data_type, call.ldb, call.stride_b),
            (call.c, data_type, call.ldc, call.stride_c),
        ]
        tail: tuple[int, ...]
        if call.batch == 1:
            name, mats, tail = "cublasGemmEx", [m[:3] for m in mats], ()
        else:
            name, tail = "cublasGemmStridedBatchedEx", (call.batch,)
        args = (*head, *mats[0], *mats[1], ctypes.byref(beta), *mats[2], *tail)
        code = getattr(self.lib, name)(*args, compute_type, CUBLAS_GEMM_DEFAULT)
        self.lib.check(name, code)

    def transpose(self, element: str, src: int, dst: int, rows: int, cols: int) -> None:
        """Enqueues ``dst = src^T`` for a row-major ``rows x cols`` matrix of f32/f64.

        cuBLAS is column-major: the source seen column-major is ``cols x rows``
        (ld ``cols``); ``geam`` with ``transa`` writes its transpose, ``rows x
        cols`` column-major (ld ``rows``), which is ``src^T`` row-major."""
        name, scalar = TRANSPOSE_TYPES[element]
        if rows == 0 or cols == 0:
            return
        alpha, beta = scalar(1.0), scalar(0.0)
        code = getattr(self.lib, name)(
            self.handle,
            CUBLAS_OP_T,
            CUBLAS_OP_N,
            rows,
            cols,
            ctypes.byref(alpha),
            src,
            cols,
            ctypes.byref(beta),
            dst,
            rows,
            dst,
            rows,
        )
        self.lib.check(name, code)

    def close(self) -> None:
        if self.handle:
            self.lib.cublasDestroy_v2(self.handle)
            self.handle = None
