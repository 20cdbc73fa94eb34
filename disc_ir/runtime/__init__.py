"""The Runtime Abstraction Layer (RAL): what runs compiled code.

Importable without xDSL: a saved artifact loads and runs with numpy and
llvmlite only. Importing the package registers the CPU driver APIs and the
library kernels.

* :mod:`~disc_ir.runtime.abi` -- type codes, encoded API names, slot layout
* :mod:`~disc_ir.runtime.registry` -- ``@ral_api`` and the API registry
* :mod:`~disc_ir.runtime.context` -- ``RalContext`` / ``ExecutionContext``
* :mod:`~disc_ir.runtime.dispatch` -- the C symbol ``disc_ral_call``
* :mod:`~disc_ir.runtime.drivers.cpu` -- host memory, CPU kernel launch, I/O, consts
* :mod:`~disc_ir.runtime.kernels` -- gemm, conv
* :mod:`~disc_ir.runtime.jit` -- MCJIT loading of LLVM IR
* :mod:`~disc_ir.runtime.okl_launcher` -- the OKL launcher of the kernel-launch mode
* :mod:`~disc_ir.runtime.artifact` -- the ``model.disc`` file format
* :mod:`~disc_ir.runtime.graph_executor` -- ``load(path)``: a saved artifact as a
  TVM-style graph executor
"""

from disc_ir.runtime import kernels as _kernels  # noqa: F401  (registers the kernels)
from disc_ir.runtime.abi import (
    RalAbiError,
    decode_ral_api_name,
    encode_ral_api_name,
    parse_type_code,
)
from disc_ir.runtime.artifact import ArtifactError
from disc_ir.runtime.context import (
    ExecutionContext,
    InputSpec,
    RalContext,
    RalContextOptions,
    RalError,
    RalInputError,
)
from disc_ir.runtime.dispatch import DISC_RAL_CALL_ADDRESS, register_symbols
from disc_ir.runtime.drivers import cpu as _cpu  # noqa: F401  (registers the cpu APIs)
from disc_ir.runtime.graph_executor import GraphModule, load
from disc_ir.runtime.kernels.assertion import ShapeAssertionError
from disc_ir.runtime.registry import (
    GLOBAL_REGISTRY,
    ApiRegistry,
    UnknownRalApiError,
    ral_api,
)

__all__ = [
    "ArtifactError",
    "GraphModule",
    "load",
    "DISC_RAL_CALL_ADDRESS",
    "GLOBAL_REGISTRY",
    "ApiRegistry",
    "ExecutionContext",
    "InputSpec",
    "RalAbiError",
    "RalContext",
    "RalContextOptions",
    "RalError",
    "RalInputError",
    "ShapeAssertionError",
    "UnknownRalApiError",
    "decode_ral_api_name",
    "encode_ral_api_name",
    "parse_type_code",
    "ral_api",
    "register_symbols",
]
