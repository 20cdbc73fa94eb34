"""Constant folding for disc-ir passes: `fold_op(op)` as MLIR's `Operation::fold`.

Importing this package registers the folders of the arith, memref and tensor
ops (see `core` for the folder protocol). Later passes call:

- `fold_op(op)`: one `Attribute` or `SSAValue` per result, or None;
- `constant_value(value)`: the attribute of a constant-like op's result;
- `materialize_constant(dialect, attr, type)`: a new constant op for a fold.
"""

from disc_ir.rewriting.folding import arith as _arith  # noqa: F401 - registers folders
from disc_ir.rewriting.folding import bufferization as _bufferization  # noqa: F401 - registers folders
from disc_ir.rewriting.folding import mhlo as _mhlo  # noqa: F401 - registers folders
from disc_ir.rewriting.folding import shaped as _shaped  # noqa: F401 - registers folders
from disc_ir.rewriting.folding.core import (
    FOLDED_IN_PLACE,
    FoldResult,
    constant_value,
    fold_op,
    is_constant,
    materialize_constant,
    move_constants_right,
    operand_constants,
    register_folder,
)

__all__ = [
    "FOLDED_IN_PLACE",
    "FoldResult",
    "constant_value",
    "fold_op",
    "is_constant",
    "materialize_constant",
    "move_constants_right",
    "operand_constants",
    "register_folder",
]
