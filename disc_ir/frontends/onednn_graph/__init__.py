"""oneDNN Graph JSON (benchdnn's graph format) -> mhlo text.

`import_onednn_graph(text)` parses a serialized oneDNN Graph partition and
returns `(graph, mhlo_text)`: the checked graph (ports, logical tensors with
shapes and strides) and `func.func @main` taking the input ports and
returning the output ports in port order, ready for `disc_ir.compile`.
Errors (malformed JSON, unknown op kinds, bad attributes or shapes) are
`OneDnnGraphError`s naming the op id and the problem.

A library layer like the other frontends: it imports nothing of disc_ir but
itself (it writes text).
"""

from disc_ir.frontends.onednn_graph.graph import (
    DTYPES,
    Graph,
    LogicalTensor,
    OneDnnGraphError,
    Op,
    parse_graph,
)
from disc_ir.frontends.onednn_graph.lower import lower_graph, supported_op_kinds


def import_onednn_graph(text: str | bytes) -> tuple[Graph, str]:
    """Parses a oneDNN Graph JSON text and lowers it: `(graph, mhlo text)`."""
    graph = parse_graph(text)
    return graph, lower_graph(graph)


__all__ = [
    "DTYPES",
    "Graph",
    "LogicalTensor",
    "Op",
    "OneDnnGraphError",
    "import_onednn_graph",
    "lower_graph",
    "parse_graph",
    "supported_op_kinds",
]
