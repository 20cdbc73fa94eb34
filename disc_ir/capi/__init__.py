"""disc-ir as oneDNN's pluggable graph compiler: the RFC's C API, `libdisc_graph_compiler.so`.

`python -m disc_ir.capi.build [-o DIR]` builds the library and copies
`dnnl_graph_compiler.h` beside it (cffi's embedding mode: the library starts
an embedded Python on its first call). `entry` is the Python side of the C
functions, `allocator` routes the executable's host buffers through the C
context's allocator. A driver layer: it may import anything of disc_ir.
"""

from pathlib import Path

HEADER_PATH = Path(__file__).with_name("dnnl_graph_compiler.h")

__all__ = ["HEADER_PATH"]
