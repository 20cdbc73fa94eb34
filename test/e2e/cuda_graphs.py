"""Every graph of the end-to-end CPU suite, by name, for the CUDA compilation test.

The suite's graphs are module-level MHLO strings (`func.func @main`) and the
builders of its parametrized tables (`test_elementwise`'s unary / binary /
compare / convert cases, `test_nn`'s `_graph` kinds and `_dense_gelu`);
`test_is_finite` builds its graph inline and is repeated here.
`e2e_graphs()` gathers them all (deduplicated by text).
"""

from __future__ import annotations

from types import ModuleType

from . import (
    test_broadcast,
    test_dot,
    test_elementwise,
    test_float_semantics,
    test_misc,
    test_nn,
    test_reduce,
    test_shape_ops,
    test_sort,
)

MODULES: tuple[ModuleType, ...] = (
    test_broadcast,
    test_dot,
    test_elementwise,
    test_float_semantics,
    test_misc,
    test_nn,
    test_reduce,
    test_shape_ops,
    test_sort,
)
NN_KINDS = ("softmax", "layernorm", "gelu_tanh", "gelu_erf", "layernorm_gelu")
IS_FINITE = """
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xi1> {
  %0 = "mhlo.is_finite"(%arg0) : (tensor<?xf32>) -> tensor<?xi1>
  return %0 : tensor<?xi1>
}
"""


def e2e_graphs() -> dict[str, str]:
    """name -> MHLO text of every graph the CPU e2e suite compiles."""
    ew = test_elementwise
    named: dict[str, str] = {}
    for module in MODULES:
        short = module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
        for name, value in vars(module).items():
            if isinstance(value, str) and "func.func @main" in value:
                named[f"{short}.{name}"] = value
    for c in ew.UNARY:
        named[f"unary.{c.id}"] = ew._unary_graph(c)
    for c in ew.BINARY:
        named[f"binary.{c.id}"] = ew._binary_graph(c)
    for direction, dtype in ew.COMPARE:
        named[f"compare.{direction}-{ew.MLIR[dtype]}"] = ew._compare_graph(direction, dtype)
    for src, dst in ew.CONVERTS:
        named[f"convert.{ew.MLIR[src]}-to-{ew.MLIR[dst]}"] = ew._convert_graph(src, dst)
    for kind in NN_KINDS:
        named[f"nn.{kind}"] = test_nn._graph(kind)
    named["nn.dense_gelu"] = test_nn._dense_gelu()
    named["elementwise.is_finite"] = IS_FINITE
    seen: set[str] = set()
    unique: dict[str, str] = {}
    for name, text in named.items():
        if text not in seen:
            seen.add(text)
            unique[name] = text
    return unique
