"""Symbolic-dimension analysis: which dimension sizes are provably equal.

`ShapeAnalysis(op)` analyses every value under `op` (a `func.func`, a
`builtin.module`, or any op with regions) once, on tensor (mhlo) and buffer
(lmhlo / memref) IR alike, and answers queries later passes need:

* `is_dim_equal(v1, d1, v2, d2)`: dim `d1` of `v1` == dim `d2` of `v2`;
* `is_shape_equal(v1, v2)`: same rank and all dims equal;
* `is_same_num_elements(v1, v2)` / `is_product_equal(...)`: products of dims;
* `get_dim_value_if_const(v, d)`: the dim size when known at compile time;
* `symbolic_dims(v)`: one `SymbolicDim` per dim, equal for equal dims;
* `refined_type(v)`: `v`'s type with the dims known constant made static;
* `is_index_value_equal(a, b)`, `get_index_value_if_const(a)`,
  `is_shape_value_equal(s1, s2)`: facts about index scalars and shape tensors.

How: a union-find over *nodes*, each standing for one integer:

* `dim(v, i)`: dimension `i` of a ranked tensor / memref value `v`;
* `val(x)`: the scalar SSA value `x` (index or integer);
* `elem(s, i)`: element `i` of a 1-d shape tensor / buffer `s` (element 0 of a
  0-d tensor);
* `sym(name)`: the `disc_shape.SymbolicDim` symbol `name`;
* `const(c)`: the integer `c`.

A class holding a `const` node has that value. Seeds: static dims; op
semantics (elementwise ops tie operand/result dims; `dynamic_reshape`,
`dynamic_broadcast_in_dim`, `dynamic_iota` take result dims from the shape
operand's elements; `tensor.dim` / `memref.dim`, `shape.shape_of`,
`tensor.from_elements`, `tensor.extract`, `memref.alloc` sizes,
`memref.reinterpret_cast` sizes, casts, `arith.constant`, `arith.index_cast`,
`disc_shape.tie_shape` ...). Products: `arith.muli`, reshapes and
`disc_shape.tie_product_equal` record *product equalities*, simplified to a
fixed point (a pair that reduces to `x == y` or `x == c` merges classes).

BladeDISC's shape-constraint IR is read unless `DISC_ENABLE_SHAPE_CONSTRAINT_IR=0`:
tensor encodings `tensor<?x?xf32, [@S0, @S1]>`, the `kDiscSymbolicDimAttr`
array on the op defining a memref, static `SymbolicDim` symbols, and
`disc_shape.tie_product_equal` ops. `save_shape_constraint_ir()` writes the
analysis back in that form.

lmhlo ops take their inputs then their output buffers (no results); the
analysis treats the output buffers as the op's results.

Conflicting facts (two different constants proven equal) make the analysis
raise a `DiagnosticException` once it has run: either the program is
inconsistent or a shape rule is wrong, and such facts must not drive fusion
or code generation (they made a 5-element and a 1-element buffer one kLoop's
roots). `conflicts` lists them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.config import shape_constraint_ir_enabled
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.dialects.hlo_ops_common import BINARY_ELEMENTWISE, UNARY_ELEMENTWISE
from disc_ir.ir.builders import index_constant
from disc_ir.ir.types import memref_type
from disc_ir.ir.walk import preorder_ops

#: Attribute on an op defining a memref naming the SymbolicDims of its dims.
SYMBOLIC_DIM_ATTR = "kDiscSymbolicDimAttr"

#: Name of the function holding the module's `tie_product_equal` facts.
SHAPE_CONSTRAINT_GRAPH = "shape_constraint_graph"

_ELEMENTWISE = frozenset(
    [s.mnemonic for s in (*UNARY_ELEMENTWISE, *BINARY_ELEMENTWISE)]
    + [
        "compare",
        "copy",
        "bitcast_convert",
        "reduce_precision",
        "exponential_minus_one",
        "reverse",
        "sort",
        "erf",
        "is_inf",
        "is_neg_inf",
        "is_pos_inf",
        "clz",
    ]
)
"""Mnemonics of mhlo / lmhlo ops whose ranked operands and results all have one shape."""

_SCALAR_OK = frozenset(["select", "clamp"])
"""Ops whose rank-0 operands broadcast (the others must match the result)."""

_TYPE_ONLY_MNEMONICS = (
    _ELEMENTWISE
    | _SCALAR_OK
    | {
        "tie_shape",
        "broadcast_in_dim",
        "dynamic_broadcast_in_dim",
        "dynamic_iota",
        "transpose",
        "reduce",
        "dot",
        "dot_general",
        "dynamic_update_slice",
        "scatter",
        "get_dimension_size",
        "gather",
        "dynamic_gather",
        "constant",
    }
)
"""Mnemonics of mhlo / lmhlo ops whose `_apply_hlo` only ties nodes chosen by
the op's types and attributes (no constant read off the union-find, no
product recorded): applying one again ties nothing new."""

_TENSOR_HLO_DIALECTS = frozenset(["mhlo", "mhlo_disc", "chlo"])
"""Dialects whose ops `ShapeAnalysis._apply_hlo` reads on tensors (results are outputs)."""

_BUFFER_HLO_DIALECTS = frozenset(["lmhlo", "lmhlo_disc"])
"""Dialects whose ops it reads on buffers (trailing operands are outputs)."""


def _ties_from_types_alone(name: str) -> bool:
    """Whether `ShapeAnalysis._apply` on an op named `name` ties the same
    nodes whatever the analysis knows (see `_TYPE_ONLY_MNEMONICS`)."""
    dialect, _, mnemonic = name.partition(".")
    return mnemonic in _TYPE_ONLY_MNEMONICS and (
        dialect in _TENSOR_HLO_DIALECTS or dialect in _BUFFER_HLO_DIALECTS
    )


class SymbolicDim(NamedTuple):
    """A class of equal dimension sizes: `id` identifies the class within one
    analysis, `value` is its size when known (else None)."""

    id: int
    value: int | None


Node = tuple[object, ...]


def _is_ranked(t: Attribute) -> bool:
    return isinstance(t, TensorType | MemRefType)


#: id(type) -> (type, its shape or None): the analysis asks each value's type
#: for its shape many times; the entry holds the type, so its id is not reused
_SHAPES: dict[int, tuple[Attribute, tuple[int, ...] | None]] = {}
_SHAPES_LIMIT = 1 << 16


def _shape(t: Attribute) -> tuple[int, ...] | None:
    entry = _SHAPES.get(id(t))
    if entry is not None:
        return entry[1]
    shape = t.get_shape() if isinstance(t, TensorType | MemRefType) else None
    if len(_SHAPES) >= _SHAPES_LIMIT:
        _SHAPES.clear()
    _SHAPES[id(t)] = (t, shape)
    return shape


def _small_vector_size(v: SSAValue) -> int | None:
    """The element count of a rank-0 or static rank-1 shaped value (a shape
    value's carrier), else None."""
    shape = _shape(v.type)
    if shape is None or len(shape) > 1:
        return None
    if not shape:
        return 1
    return shape[0] if shape[0] >= 0 else None


def _is_scalar_int(t: Attribute) -> bool:
    return isinstance(t, IndexType | IntegerType)


def _int_attr(attr: Attribute | None) -> int | None:
    if isinstance(attr, IntegerAttr) and _is_scalar_int(attr.type):
        return attr.value.data
    return None


def _dense_ints(attr: Attribute | None) -> list[int] | None:
    """The integers of a dense int elements attribute of an integer/index type."""
    if isinstance(attr, DenseIntOrFPElementsAttr):
        t = attr.get_element_type() if hasattr(attr, "get_element_type") else None
        if t is not None and not _is_scalar_int(t):
            return None
        values = [int(v) for v in attr.get_values()]
        shape = attr.get_shape() or ()
        count = math.prod(shape) if shape else 1
        if len(values) == 1 and count != 1:
            values = values * count
        return values
    return None


def _attr(op: Operation, name: str) -> Attribute | None:
    if name in op.properties:
        return op.properties[name]
    return op.attributes.get(name)


def _static_array(op: Operation, name: str) -> list[int] | None:
    a = _attr(op, name)
    if isinstance(a, DenseArrayBase):
        return [int(v) for v in a.get_values()]
    if a is not None:
        return list(ints(a))
    return None


def _sym_names(attr: Attribute | None, rank: int) -> list[str] | None:
    """The flat symbol names of `[@S0, @S1, ...]` if it has `rank` entries."""
    if attr.__class__ is not ArrayAttr or len(attr.data) != rank:  # (no subclasses: no ABC check)
        return None
    names = []
    for a in attr.data:
        if not isinstance(a, SymbolRefAttr) or a.nested_references.data:
            return None
        names.append(a.root_reference.data)
    return names


# ---------------------------------------------------------------------------
# union-find


class _UnionFind:
    """Union-find over integer ids; a class may carry one constant value."""

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.const: dict[int, int] = {}
        self.conflicts: list[tuple[int, int]] = []
        #: bumped by every union that merges two classes (memo invalidation)
        self.version = 0

    def add(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, x: int) -> int:
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: int, b: int) -> bool:
        """Merge the classes of `a` and `b`; True if they were different."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if rb < ra:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.version += 1
        cb = self.const.pop(rb, None)
        if cb is not None:
            ca = self.const.get(ra)
            if ca is None:
                self.const[ra] = cb
            elif ca != cb:
                self.conflicts.append((ca, cb))
        return True


class _Product(NamedTuple):
    factor: int
    symbols: tuple[int, ...]  # sorted class roots, with repetition


# ---------------------------------------------------------------------------
# the analysis


class ShapeAnalysis:
    """Symbolic dimension facts of every value under an op (see module doc).

    Build it once (`ShapeAnalysis(func_op)`) after the IR is final; it does not
    follow later rewrites. Values not under the analysed op are unknown: every
    query about them answers conservatively (False / None), except for static
    dims, which are compared by their sizes.
    """

    def __init__(self, op: Operation, *, use_shape_constraint_ir: bool | None = None):
        self.op = op
        self.use_shape_constraint_ir = (
            shape_constraint_ir_enabled()
            if use_shape_constraint_ir is None
            else use_shape_constraint_ir
        )
        self._uf = _UnionFind()
        self._ids: dict[Node, int] = {}
        self._values: list[SSAValue] = []  # every ranked value seen, program order
        self._seen: set[SSAValue] = set()
        self._products: list[tuple[list[int], list[int]]] = []
        # memos of the product reasoning, valid while the classes and the
        # product facts are unchanged (key: `_memo_key()`)
        self._pairs_memo: tuple[tuple[int, int], list[tuple[_Product, _Product]]] | None = None
        self._equal_memo: dict[tuple[_Product, _Product], bool] = {}
        self._equal_memo_key = (-1, -1)
        self._same_memo: dict[tuple[SSAValue, SSAValue], bool] = {}
        self._same_memo_key: tuple[int, ...] = ()
        self._same_elems = _UnionFind()
        self._same_elems_ids: dict[SSAValue, int] = {}
        self._scalars: list[SSAValue] = []
        self._module = self._find_module(op)
        self._static_syms: dict[str, int] = {}
        if self.use_shape_constraint_ir and self._module is not None:
            self._load_symbols(self._module)
        self._run()

    # -- public queries -----------------------------------------------------

    @property
    def conflicts(self) -> list[tuple[int, int]]:
        """Pairs of different constants the IR claims to be equal."""
        return list(self._uf.conflicts)

    def values(self) -> list[SSAValue]:
        """Every ranked tensor / memref value analysed, in program order."""
        return list(self._values)

    def is_dim_equal(self, v1: SSAValue, d1: int, v2: SSAValue, d2: int) -> bool:
        """Whether dim `d1` of `v1` is provably equal to dim `d2` of `v2`."""
        s1, s2 = _shape(v1.type), _shape(v2.type)
        if s1 is None or s2 is None or not (0 <= d1 < len(s1) and 0 <= d2 < len(s2)):
            return False
        if s1[d1] != DYNAMIC_INDEX and s2[d2] != DYNAMIC_INDEX:
            return s1[d1] == s2[d2]
        r1, r2 = self._dim_root(v1, d1), self._dim_root(v2, d2)
        if r1 is None or r2 is None:
            return False
        if r1 == r2:
            return True
        c1, c2 = self._uf.const.get(r1), self._uf.const.get(r2)
        return c1 is not None and c1 == c2

    def is_shape_equal(self, v1: SSAValue, v2: SSAValue) -> bool:
        """Whether `v1` and `v2` have the same rank and provably equal dims."""
        s1, s2 = _shape(v1.type), _shape(v2.type)
        if s1 is None or s2 is None or len(s1) != len(s2):
            return False
        return all(self.is_dim_equal(v1, i, v2, i) for i in range(len(s1)))

    def is_product_equal(
        self, v1: SSAValue, dims1: Sequence[int], v2: SSAValue, dims2: Sequence[int]
    ) -> bool:
        """Whether prod(dims1 of v1) == prod(dims2 of v2) provably (dims assumed non-zero
        when cancelling common factors)."""
        p1 = self._dims_product(v1, dims1)
        p2 = self._dims_product(v2, dims2)
        if p1 is None or p2 is None:
            return False
        return self._products_equal(p1, p2)

    def is_same_num_elements(self, v1: SSAValue, v2: SSAValue) -> bool:
        """Whether `v1` and `v2` provably hold the same number of elements."""
        if v1 is v2:
            return True
        key = (*self._memo_key(), self._same_elems.version)
        if key != self._same_memo_key:
            self._same_memo = {}
            self._same_memo_key = key
        found = self._same_memo.get((v1, v2))
        if found is None:
            found = self._same_memo[(v1, v2)] = self._is_same_num_elements(v1, v2)
        return found

    def elements_class(self, v: SSAValue) -> tuple[int | None, Any] | None:
        """What `is_same_num_elements` looks at of `v` (its class among the
        values known to hold as many elements, and the product of its dims),
        hashable; None for an unranked `v`. For `v1 is not v2`,
        `is_same_num_elements(v1, v2) == same_elements_class(c1, c2)` of their
        classes, until the analysis learns more (`version`)."""
        s = _shape(v.type)
        if s is None:
            return None
        i = self._same_elems_ids.get(v)
        root = self._same_elems.find(i) if i is not None else None
        return (root, self._dims_product(v, range(len(s))))

    def same_elements_class(
        self, c1: tuple[int | None, Any] | None, c2: tuple[int | None, Any] | None
    ) -> bool:
        """`is_same_num_elements` of two values of classes `c1` and `c2` (see
        `elements_class`)."""
        if c1 is None or c2 is None:
            return False
        if c1[0] is not None and c1[0] == c2[0]:
            return True
        p1, p2 = c1[1], c2[1]
        if p1 is None or p2 is None:
            return False
        return self._products_equal(p1, p2)

    @property
    def version(self) -> tuple[int, ...]:
        """Changes whenever the analysis learns a fact (memos keyed by it stay valid)."""
        return (*self._memo_key(), self._same_elems.version)

    def _is_same_num_elements(self, v1: SSAValue, v2: SSAValue) -> bool:
        i1, i2 = self._same_elems_ids.get(v1), self._same_elems_ids.get(v2)
        if (
            i1 is not None
            and i2 is not None
            and self._same_elems.find(i1) == self._same_elems.find(i2)
        ):
            return True
        s1, s2 = _shape(v1.type), _shape(v2.type)
        if s1 is None or s2 is None:
            return False
        return self.is_product_equal(v1, range(len(s1)), v2, range(len(s2)))

    def get_dim_value_if_const(self, v: SSAValue, d: int) -> int | None:
        """The size of dim `d` of `v` if known at compile time."""
        s = _shape(v.type)
        if s is None or not 0 <= d < len(s):
            return None
        if s[d] != DYNAMIC_INDEX:
            return s[d]
        root = self._dim_root(v, d)
        return None if root is None else self._uf.const.get(root)

    def symbolic_dims(self, v: SSAValue) -> list[SymbolicDim] | None:
        """One `SymbolicDim` per dim of `v` (None if `v` is not ranked or not analysed)."""
        s = _shape(v.type)
        if s is None:
            return None
        out = []
        for i, size in enumerate(s):
            root = self._dim_root(v, i)
            if root is None:
                if size == DYNAMIC_INDEX:
                    return None
                root = self._node(("const", size))
                root = self._uf.find(root)
            const = self._uf.const.get(root)
            out.append(SymbolicDim(root, const))
        return out

    def refined_type(self, v: SSAValue) -> Attribute:
        """`v`'s type with every dynamic dim known to be constant made static
        (the encoding, if any, kept); other types unchanged."""
        t = v.type
        s = _shape(t)
        if s is None or DYNAMIC_INDEX not in s:
            return t
        known = [
            (self.get_dim_value_if_const(v, i) if size == DYNAMIC_INDEX else size)
            for i, size in enumerate(s)
        ]
        new = [DYNAMIC_INDEX if x is None else x for x in known]
        if new == list(s):
            return t
        if isinstance(t, TensorType):
            return TensorType(t.element_type, new, t.encoding)
        assert isinstance(t, MemRefType)
        return memref_type(t.element_type, new, t.layout, t.memory_space)

    def is_index_value_equal(self, a: SSAValue, b: SSAValue) -> bool:
        """Whether scalar values `a` and `b` provably hold the same integer."""
        if a is b:
            return True
        ra, rb = self._find(("val", a)), self._find(("val", b))
        if ra is None or rb is None:
            return False
        if ra == rb:
            return True
        ca, cb = self._uf.const.get(ra), self._uf.const.get(rb)
        return ca is not None and ca == cb

    def get_index_value_if_const(self, a: SSAValue) -> int | None:
        """The integer scalar `a` holds if known at compile time."""
        r = self._find(("val", a))
        return None if r is None else self._uf.const.get(r)

    def is_dim_equal_to_value(self, v: SSAValue, d: int, x: SSAValue) -> bool:
        """Whether dim `d` of `v` provably equals the scalar value `x`."""
        rd, rx = self._dim_root(v, d), self._find(("val", x))
        if rd is None or rx is None:
            return False
        if rd == rx:
            return True
        c1, c2 = self._uf.const.get(rd), self._uf.const.get(rx)
        return c1 is not None and c1 == c2

    def equal_index_values(self, v: SSAValue, d: int) -> list[SSAValue]:
        """The analysed scalar SSA values known equal to dim `d` of `v`, program order."""
        rd = self._dim_root(v, d)
        if rd is None:
            return []
        return [x for x in self._scalars if self._find(("val", x)) == rd]

    def is_shape_value_equal(self, s1: SSAValue, s2: SSAValue) -> bool:
        """Whether 1-d shape tensors `s1` and `s2` provably hold the same extents."""
        if s1 is s2:
            return True
        n1, n2 = _shape(s1.type), _shape(s2.type)
        if n1 is None or n2 is None or len(n1) != 1 or len(n2) != 1:
            return False
        if n1[0] == DYNAMIC_INDEX or n1[0] != n2[0]:
            return False
        for i in range(n1[0]):
            r1, r2 = self._find(("elem", s1, i)), self._find(("elem", s2, i))
            if r1 is None or r2 is None:
                return False
            if r1 != r2 and (
                self._uf.const.get(r1) is None or self._uf.const.get(r1) != self._uf.const.get(r2)
            ):
                return False
        return True

    # -- writing the shape-constraint IR ------------------------------------

    def save_shape_constraint_ir(self) -> None:
        """Write the analysis as BladeDISC's shape-constraint IR into the module.

        Each dim class becomes a module-level `disc_shape.SymbolicDim` (`S<n>`
        for unknown sizes, `C<size>` for constants); ranked tensors get the
        symbols as their encoding (`tensor<?x10xf32, [@S0, @C10]>`), memrefs as a
        `kDiscSymbolicDimAttr` array on their defining op; function types follow
        their arguments and returns; product equalities between classes go to
        `func.func @shape_constraint_graph` as `disc_shape.tie_product_equal`.
        Old SymbolicDim ops no longer referenced are removed.
        """
        from xdsl.dialects import func
        from xdsl.dialects.builtin import FunctionType

        from disc_ir.dialects.disc_shape import DimOp, SymbolicDimOp, TieProductEqualOp

        module = self._module
        if module is None:
            raise ValueError("save_shape_constraint_ir needs the analysed op inside a module")
        body = module.body.block
        existing = {op.sym_name.data: op for op in body.ops if isinstance(op, SymbolicDimOp)}
        names: dict[int, str] = {}
        taken = set(existing)
        counter = 0

        def name_of(root: int) -> str:
            nonlocal counter
            if root in names:
                return names[root]
            const = self._uf.const.get(root)
            if const is not None:
                name = f"C{const}"
            else:
                while f"S{counter}" in taken:
                    counter += 1
                name = f"S{counter}"
                counter += 1
            taken.add(name)
            names[root] = name
            return name

        used: dict[str, int | None] = {}
        for v in self._values:
            dims = self.symbolic_dims(v)
            if dims is None:
                continue
            syms = [name_of(d.id) for d in dims]
            for d, n in zip(dims, syms, strict=True):
                used[n] = d.value
            attr = ArrayAttr([SymbolRefAttr(n) for n in syms])
            t = v.type
            if isinstance(t, TensorType):
                _set_type(v, TensorType(t.element_type, t.get_shape(), attr))
            elif isinstance(v, OpResult) and len(v.op.results) == 1:
                v.op.attributes[SYMBOLIC_DIM_ATTR] = attr
        # function types
        for f in preorder_ops(module):
            if isinstance(f, func.FuncOp) and f.body.blocks:
                block = f.body.block
                last = block.last_op
                outs = (
                    [o.type for o in last.operands]
                    if isinstance(last, func.ReturnOp)
                    else list(f.function_type.outputs.data)
                )
                f.function_type = FunctionType.from_lists([a.type for a in block.args], outs)
        # symbols
        for name, op in existing.items():
            if name not in used:
                op.detach()
                op.erase()
        first = body.first_op
        for name, value in used.items():
            if name in existing:
                sym = existing[name]
                if value is not None:
                    sym.set_dim_size(value)
                continue
            sym = SymbolicDimOp(name)
            sym.update_known("knownNonNegative", True)
            if value is not None:
                sym.set_dim_size(value)
            if first is None:
                body.add_op(sym)
            else:
                body.insert_op_before(sym, first)
        # product equalities
        graph = None
        for op in body.ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data == SHAPE_CONSTRAINT_GRAPH:
                graph = op
        pairs = self._simplified_pairs()
        if graph is not None:
            graph.detach()
            graph.erase()
        if not pairs:
            return
        block = Block()
        graph = func.FuncOp(SHAPE_CONSTRAINT_GRAPH, ((), ()), _region(block))
        body.add_op(graph)

        def operands(p: _Product) -> list[SSAValue]:
            out: list[SSAValue] = []
            if p.factor != 1:
                c = index_constant(p.factor)
                block.add_op(c)
                out.append(c.result)
            for s in p.symbols:
                d = DimOp(name_of(s))
                block.add_op(d)
                out.append(d.result)
            return out

        for x, y in pairs:
            if any(name_of(s) not in used for s in (*x.symbols, *y.symbols)):
                continue
            block.add_op(TieProductEqualOp(operands(x), operands(y)))
        block.add_op(func.ReturnOp())

    # -- internals: nodes ----------------------------------------------------

    @staticmethod
    def _find_module(op: Operation) -> ModuleOp | None:
        cur: Operation | None = op
        while cur is not None:
            if isinstance(cur, ModuleOp):
                return cur
            cur = cur.parent_op()
        return None

    def _node(self, key: Node) -> int:
        i = self._ids.get(key)
        if i is None:
            i = self._uf.add()
            self._ids[key] = i
            if key[0] == "const":
                self._uf.const[i] = key[1]  # type: ignore[assignment]  # a "const" key holds an int
            elif key[0] == "sym" and key[1] in self._static_syms:
                self._uf.union(i, self._node(("const", self._static_syms[key[1]])))
        return i

    def _find(self, key: Node) -> int | None:
        i = self._ids.get(key)
        return None if i is None else self._uf.find(i)

    def _dim_root(self, v: SSAValue, d: int) -> int | None:
        return self._find(("dim", v, d))

    def _tie(self, a: Node, b: Node) -> None:
        self._uf.union(self._node(a), self._node(b))

    def _tie_dim(self, v: SSAValue, i: int, w: SSAValue, j: int) -> None:
        sv, sw = _shape(v.type), _shape(w.type)
        if sv is None or sw is None or not (0 <= i < len(sv) and 0 <= j < len(sw)):
            return
        self._tie(("dim", v, i), ("dim", w, j))

    def _tie_shape(self, v: SSAValue, w: SSAValue) -> None:
        sv, sw = _shape(v.type), _shape(w.type)
        if sv is None or sw is None or len(sv) != len(sw):
            return
        for i in range(len(sv)):
            self._tie(("dim", v, i), ("dim", w, i))
        self._same_num_elements(v, w)

    def _same_num_elements(self, v: SSAValue, w: SSAValue) -> None:
        ids = []
        for x in (v, w):
            i = self._same_elems_ids.get(x)
            if i is None:
                i = self._same_elems.add()
                self._same_elems_ids[x] = i
            ids.append(i)
        self._same_elems.union(ids[0], ids[1])

    def _dims_nodes(self, v: SSAValue) -> list[Node]:
        s = _shape(v.type) or ()
        return [("dim", v, i) for i in range(len(s))]

    def _add_product(self, lhs: Iterable[Node], rhs: Iterable[Node]) -> None:
        self._products.append(([self._node(n) for n in lhs], [self._node(n) for n in rhs]))

    def _scalar_node(self, x: SSAValue) -> Node:
        """The node of a scalar SSA value (a constant's node if it is one)."""
        return ("val", x)

    def _shape_elems(self, s: SSAValue, rank: int) -> list[Node] | None:
        """Element nodes of a shape operand with `rank` extents."""
        shp = _shape(s.type)
        if shp is None or len(shp) != 1:
            return None
        return [("elem", s, i) for i in range(rank)]

    # -- internals: seeding ------------------------------------------------------

    def _load_symbols(self, module: ModuleOp) -> None:
        from disc_ir.dialects.disc_shape import SymbolicDimOp

        for op in module.body.block.ops:
            if isinstance(op, SymbolicDimOp) and not op.is_dynamic():
                self._static_syms[op.sym_name.data] = op.get_dim_size()

    def _seed_value(self, v: SSAValue) -> None:
        if v in self._seen:
            return
        t = v.type
        s = _shape(t)
        if s is None:
            if _is_scalar_int(t):
                self._seen.add(v)
                self._scalars.append(v)
                self._node(("val", v))
            return
        self._seen.add(v)
        self._values.append(v)
        for i, size in enumerate(s):
            n = self._node(("dim", v, i))
            if size != DYNAMIC_INDEX:
                self._uf.union(n, self._node(("const", size)))
        if len(s) == 0:
            self._node(("elem", v, 0))
        if self.use_shape_constraint_ir:
            names = None
            if isinstance(t, TensorType):
                names = _sym_names(t.encoding, len(s))
            elif isinstance(v, OpResult):
                names = _sym_names(v.op.attributes.get(SYMBOLIC_DIM_ATTR), len(s))
            if names is not None:
                for i, name in enumerate(names):
                    self._tie(("dim", v, i), ("sym", name))

    def _run(self) -> None:
        ops: list[Operation] = []
        for region in self.op.regions:
            for block in region.blocks:
                self._walk_block(block, ops)
        # twice: facts found late (a constant shape element, a product) reach
        # the ops that read them earlier in program order. An op whose facts
        # follow from its types and attributes alone only ties what it tied
        # the first time (a no-op on the union-find): the second pass skips it.
        for op in ops:
            self._apply(op)
        self._simplify_products()
        for op in ops:
            if not _ties_from_types_alone(op.name):
                self._apply(op)
        self._simplify_products()
        if self._uf.conflicts:
            # a dim proven equal to two different constants: the program is
            # inconsistent, or an op's shape rule here is wrong; either way its
            # facts must not drive fusion or code generation
            a, b = self._uf.conflicts[0]
            raise DiagnosticException(
                f"shape analysis of '{getattr(getattr(self.op, 'sym_name', None), 'data', None)}': "
                f"a dimension is both {a} and {b}"
            )

    def _walk_block(self, block: Block, ops: list[Operation]) -> None:
        for a in block.args:
            self._seed_value(a)
        for op in block.ops:
            for r in op.results:
                self._seed_value(r)
            ops.append(op)
            for region in op.regions:
                for b in region.blocks:
                    self._walk_block(b, ops)

    # -- internals: op semantics ----------------------------------------------

    def _apply(self, op: Operation) -> None:
        name = op.name
        dialect, _, mnemonic = name.partition(".")
        if dialect in _TENSOR_HLO_DIALECTS:
            self._apply_hlo(op, mnemonic, list(op.operands), list(op.results))
        elif dialect in _BUFFER_HLO_DIALECTS:
            outs = _lmhlo_outputs(op)
            ins = list(op.operands)[: len(op.operands) - len(outs)]
            self._apply_hlo(op, mnemonic, ins, outs)
            if mnemonic in ("reshape", "dynamic_reshape") and ins and outs:
                self._same_num_elements(ins[0], outs[-1])
        else:
            handler = _HANDLERS.get(name)
            if handler is not None:
                handler(self, op)
            elif name == "disc_shape.tie_product_equal" and self.use_shape_constraint_ir:
                n = _segment_sizes(op)
                lhs = list(op.operands)[: n[0]] if n else []
                rhs = list(op.operands)[n[0] :] if n else []
                self._add_product([("val", x) for x in lhs], [("val", x) for x in rhs])

    def _apply_hlo(self, op: Operation, m: str, ins: list[SSAValue], outs: list[SSAValue]) -> None:
        ranked = [v for v in (*ins, *outs) if _shape(v.type) is not None]
        if m in _ELEMENTWISE or m in _SCALAR_OK or m in ("tie_shape",):
            ref = outs[0] if outs else (ins[0] if ins else None)
            if ref is None:
                return
            rank = len(_shape(ref.type) or ())
            for v in ranked:
                if v is ref:
                    continue
                r = len(_shape(v.type) or ())
                if m in _SCALAR_OK and r == 0 and rank != 0:
                    continue
                self._tie_shape(ref, v)
            return
        if not outs or not ins:
            return
        out = outs[0]
        so = _shape(out.type)
        si = _shape(ins[0].type)
        if so is None:
            return
        rank = len(so)
        if m in ("dynamic_reshape", "reshape"):
            if len(ins) > 1 and (elems := self._shape_elems(ins[1], rank)) is not None:
                for i, e in enumerate(elems):
                    self._tie(("dim", out, i), e)
            self._same_num_elements(ins[0], out)
            # a shape value reshaped (scalar <-> 1-element vector): same elements
            count = _small_vector_size(ins[0])
            if count is not None and count == _small_vector_size(out):
                for i in range(count):
                    self._tie(("elem", ins[0], i), ("elem", out, i))
            if si is not None:
                self._add_product(self._dims_nodes(ins[0]), self._dims_nodes(out))
        elif m == "dynamic_broadcast_in_dim" or m == "broadcast_in_dim":
            if m == "dynamic_broadcast_in_dim" and len(ins) > 1:
                elems = self._shape_elems(ins[1], rank)
                if elems is not None:
                    for i, e in enumerate(elems):
                        self._tie(("dim", out, i), e)
            bdims = list(ints(_attr(op, "broadcast_dimensions")))
            expanding = set(ints(_attr(op, "known_expanding_dimensions")))
            nonexp = set(ints(_attr(op, "known_nonexpanding_dimensions")))
            if si is None:
                return
            for i, rd in enumerate(bdims):
                if i >= len(si) or i in expanding:
                    continue
                if i in nonexp or (si[i] != DYNAMIC_INDEX and si[i] != 1):
                    self._tie_dim(ins[0], i, out, rd)
            if (
                len(bdims) == rank
                and len(si) == rank
                and bdims == list(range(rank))
                and all(d in nonexp for d in range(rank))
            ):
                self._same_num_elements(ins[0], out)
        elif m == "dynamic_iota":
            elems = self._shape_elems(ins[0], rank)
            if elems is not None:
                for i, e in enumerate(elems):
                    self._tie(("dim", out, i), e)
        elif m == "transpose":
            perm = list(ints(_attr(op, "permutation")))
            for i, p in enumerate(perm):
                self._tie_dim(ins[0], p, out, i)
            self._same_num_elements(ins[0], out)
        elif m == "concatenate":
            axis = _int_attr(_attr(op, "dimension"))
            if axis is None:
                return
            total: int | None = 0
            for v in ins:
                for i in range(rank):
                    if i != axis:
                        self._tie_dim(v, i, out, i)
                sv = _shape(v.type)
                if total is not None and sv is not None and axis < len(sv):
                    c = self.get_dim_value_if_const(v, axis)
                    total = None if c is None else total + c
            if total is not None:
                self._tie(("dim", out, axis), ("const", total))
            if rank == 1 and axis == 0:
                # a shape value assembled from pieces: its elements are theirs
                offset = 0
                for v in ins:
                    count = _small_vector_size(v)
                    if count is None:
                        break
                    for i in range(count):
                        self._tie(("elem", v, i), ("elem", out, offset + i))
                    offset += count
        elif m == "reduce":
            dims = set(ints(_attr(op, "dimensions")))
            n = len(outs)
            inputs = ins[:n] if len(ins) >= 2 * n else ins[:1]
            for v in inputs[1:]:
                self._tie_shape(inputs[0], v)
            for o in outs[1:]:
                self._tie_shape(outs[0], o)
            if si is None:
                return
            j = 0
            for i in range(len(si)):
                if i in dims:
                    continue
                self._tie_dim(inputs[0], i, out, j)
                j += 1
        elif m == "dot":
            if len(ins) >= 2:
                lhs, rhs = ins[0], ins[1]
                rl, rr = len(_shape(lhs.type) or ()), len(_shape(rhs.type) or ())
                if rl == 2 and rr == 2:
                    self._tie_dim(lhs, 1, rhs, 0)
                    self._tie_dim(lhs, 0, out, 0)
                    self._tie_dim(rhs, 1, out, 1)
                elif rl == 2 and rr == 1:
                    self._tie_dim(lhs, 1, rhs, 0)
                    self._tie_dim(lhs, 0, out, 0)
                elif rl == 1 and rr == 2:
                    self._tie_dim(lhs, 0, rhs, 0)
                    self._tie_dim(rhs, 1, out, 0)
                elif rl == 1 and rr == 1:
                    self._tie_dim(lhs, 0, rhs, 0)
        elif m == "dot_general":
            self._apply_dot_general(op, ins, out)
        elif m in ("dynamic_update_slice", "scatter") and len(outs) == 1:
            # the operand updated in a window: the result has its shape
            self._tie_shape(ins[0], out)
        elif m in ("real_dynamic_slice",):
            self._apply_real_dynamic_slice(ins, out)
        elif m == "dynamic_pad":
            self._apply_dynamic_pad(ins, out)
        elif m == "get_dimension_size":
            d = _int_attr(_attr(op, "dimension"))
            if d is not None and si is not None and d < len(si) and rank == 0:
                self._tie(("elem", out, 0), ("dim", ins[0], d))
        elif m in ("gather", "dynamic_gather"):
            dn = _attr(op, "dimension_numbers")
            if dn is None or si is None:
                return
            collapsed = set(ints(getattr(dn, "collapsed_slice_dims", None)))
            offset_dims = list(ints(getattr(dn, "offset_dims", None)))
            remapped = [i for i in range(len(si)) if i not in collapsed]
            # an offset dim is as long as the slice along its operand dim (not
            # the operand dim: a gather of 1-wide slices of a 5-long operand)
            sizes = list(ints(_attr(op, "slice_sizes"))) if m == "gather" else None
            for k, od in enumerate(offset_dims):
                if k >= len(remapped):
                    continue
                if sizes is not None:
                    if remapped[k] < len(sizes):
                        self._tie(("dim", out, od), ("const", sizes[remapped[k]]))
                elif len(ins) > 2:
                    self._tie(("dim", out, od), ("elem", ins[2], remapped[k]))
        elif m == "constant" and outs:
            vals = _dense_ints(_attr(op, "value"))
            if vals is not None and rank <= 1:
                for i, c in enumerate(vals):
                    self._tie(("elem", out, i), ("const", c))

    def _apply_dot_general(self, op: Operation, ins: list[SSAValue], out: SSAValue) -> None:
        dn = _attr(op, "dot_dimension_numbers")
        if dn is None or len(ins) < 2:
            return
        lhs, rhs = ins[0], ins[1]
        lb = list(ints(getattr(dn, "lhs_batching_dimensions", None)))
        rb = list(ints(getattr(dn, "rhs_batching_dimensions", None)))
        lc = list(ints(getattr(dn, "lhs_contracting_dimensions", None)))
        rc = list(ints(getattr(dn, "rhs_contracting_dimensions", None)))
        for a, b in zip(lc, rc, strict=False):
            self._tie_dim(lhs, a, rhs, b)
        for a, b in zip(lb, rb, strict=False):
            self._tie_dim(lhs, a, rhs, b)
        for i, a in enumerate(lb):
            self._tie_dim(lhs, a, out, i)
        free = [(lhs, i) for i in range(len(_shape(lhs.type) or ())) if i not in lb + lc]
        free += [(rhs, i) for i in range(len(_shape(rhs.type) or ())) if i not in rb + rc]
        for k, (v, i) in enumerate(free):
            self._tie_dim(v, i, out, len(lb) + k)

    def _elem_consts(self, s: SSAValue, rank: int) -> list[int | None] | None:
        elems = self._shape_elems(s, rank)
        if elems is None:
            return None
        return [self._uf.const.get(self._uf.find(self._node(e))) for e in elems]

    def _apply_real_dynamic_slice(self, ins: list[SSAValue], out: SSAValue) -> None:
        if len(ins) < 4:
            return
        rank = len(_shape(out.type) or ())
        starts = self._elem_consts(ins[1], rank)
        limits = self._shape_elems(ins[2], rank)
        strides = self._elem_consts(ins[3], rank)
        if starts is None or limits is None or strides is None:
            return
        for i in range(rank):
            start, stride = starts[i], strides[i]
            if start is None or stride is None or stride <= 0:
                continue
            limit_c = self._uf.const.get(self._uf.find(self._node(limits[i])))
            if limit_c is not None:
                self._tie(("dim", out, i), ("const", max(0, -(-(limit_c - start) // stride))))
            elif start == 0 and stride == 1:
                self._tie(("dim", out, i), limits[i])

    def _apply_dynamic_pad(self, ins: list[SSAValue], out: SSAValue) -> None:
        if len(ins) < 5:
            return
        rank = len(_shape(out.type) or ())
        low = self._elem_consts(ins[2], rank)
        high = self._elem_consts(ins[3], rank)
        interior = self._elem_consts(ins[4], rank)
        if low is None or high is None or interior is None:
            return
        for i in range(rank):
            lo, hi, it = low[i], high[i], interior[i]
            if lo is None or hi is None or it is None:
                continue
            if lo == 0 and hi == 0 and it == 0:
                self._tie_dim(ins[0], i, out, i)
                continue
            size = self.get_dim_value_if_const(ins[0], i)
            if size is not None:
                self._tie(("dim", out, i), ("const", lo + hi + size + max(size - 1, 0) * it))

    # -- internals: products --------------------------------------------------

    def _product_of(self, nodes: Iterable[int]) -> _Product:
        factor = 1
        syms: list[int] = []
        for n in nodes:
            r = self._uf.find(n)
            c = self._uf.const.get(r)
            if c is None:
                syms.append(r)
            else:
                factor *= c
        return _Product(factor, tuple(sorted(syms)))

    def _dims_product(self, v: SSAValue, dims: Iterable[int]) -> _Product | None:
        s = _shape(v.type)
        if s is None:
            return None
        nodes = []
        for d in dims:
            if not 0 <= d < len(s):
                return None
            if s[d] != DYNAMIC_INDEX:
                nodes.append(self._node(("const", s[d])))
                continue
            i = self._ids.get(("dim", v, d))
            if i is None:
                return None
            nodes.append(i)
        return self._product_of(nodes)

    @staticmethod
    def _cancel(x: _Product, y: _Product) -> tuple[_Product, _Product]:
        cx, cy = Counter(x.symbols), Counter(y.symbols)
        common = cx & cy
        cx -= common
        cy -= common
        fx, fy = x.factor, y.factor
        if fx != 0 and fy != 0:
            g = math.gcd(fx, fy)
            if g > 1:
                fx, fy = fx // g, fy // g
        return (
            _Product(fx, tuple(sorted(cx.elements()))),
            _Product(fy, tuple(sorted(cy.elements()))),
        )

    def _memo_key(self) -> tuple[int, int]:
        return (self._uf.version, len(self._products))

    def _simplified_pairs(self) -> list[tuple[_Product, _Product]]:
        """The product facts with common factors cancelled, deduplicated
        (memoised until a class merge or a new product fact)."""
        key = self._memo_key()
        if self._pairs_memo is not None and self._pairs_memo[0] == key:
            return self._pairs_memo[1]
        out = self._compute_simplified_pairs()
        self._pairs_memo = (key, out)
        return out

    def _compute_simplified_pairs(self) -> list[tuple[_Product, _Product]]:
        out = []
        seen = set()
        for lhs, rhs in self._products:
            x, y = self._cancel(self._product_of(lhs), self._product_of(rhs))
            if x == y or (x, y) in seen or (y, x) in seen:
                continue
            seen.add((x, y))
            out.append((x, y))
        return out

    def _simplify_products(self) -> None:
        """Merge classes a product equality pins down, to a fixed point.

        Only pairs that reduce to `x == y` or `x * c == c'` once constants are
        folded are used: cancelling a common symbolic factor assumes it is not
        zero, which is fine for `is_product_equal` queries but not to refine
        types (a zero-sized dim makes the other factor arbitrary).
        """
        changed = True
        rounds = 0
        while changed and rounds < 16:
            changed = False
            rounds += 1
            for lhs, rhs in self._products:
                x, y = self._product_of(lhs), self._product_of(rhs)
                for a, b in ((x, y), (y, x)):
                    if a == b:
                        break
                    if (
                        len(a.symbols) == 1
                        and len(b.symbols) == 1
                        and a.factor == b.factor
                        and a.factor != 0  # 0 * x == 0 * y says nothing of x, y
                    ):
                        changed |= self._uf.union(a.symbols[0], b.symbols[0])
                        break
                    if (
                        len(a.symbols) == 1
                        and not b.symbols
                        and a.factor != 0
                        and b.factor % a.factor == 0
                    ):
                        c = self._node(("const", b.factor // a.factor))
                        changed |= self._uf.union(a.symbols[0], c)
                        break

    def _products_equal(self, p1: _Product, p2: _Product) -> bool:
        """Whether the products are provably equal (memoised: the fusion
        planner asks the same few questions for every layer of a model)."""
        key = self._memo_key()
        if key != self._equal_memo_key:
            self._equal_memo = {}
            self._equal_memo_key = key
        found = self._equal_memo.get((p1, p2))
        if found is None:
            found = self._equal_memo[(p1, p2)] = self._compute_products_equal(p1, p2)
        return found

    def _compute_products_equal(self, p1: _Product, p2: _Product) -> bool:
        x, y = self._cancel(p1, p2)
        if x == y:
            return True
        for a, b in self._simplified_pairs():
            for a_, b_ in ((a, b), (b, a)):
                kx = _divide(x, a_)
                ky = _divide(y, b_)
                if kx is not None and kx == ky:
                    return True
        return False


def _divide(x: _Product, y: _Product) -> _Product | None:
    """x / y when y's symbols are a sub-multiset of x's and factors divide."""
    cx, cy = Counter(x.symbols), Counter(y.symbols)
    if cy - cx:
        return None
    if y.factor == 0 or x.factor % y.factor != 0:
        return None
    return _Product(x.factor // y.factor, tuple(sorted((cx - cy).elements())))


def _region(block: Block) -> Region:
    return Region(block)


def _set_type(value: SSAValue, new_type: Attribute) -> None:
    """Change `value`'s type in place (MLIR's `Value::setType`), keeping its uses."""
    value._type = new_type  # pyright: ignore[reportPrivateUsage, reportAttributeAccessIssue]


set_value_type = _set_type


def _segment_sizes(op: Operation) -> list[int] | None:
    for key in ("operandSegmentSizes", "operand_segment_sizes"):
        a = _attr(op, key)
        if isinstance(a, DenseArrayBase):
            return [int(v) for v in a.get_values()]
        if a is not None:
            return list(ints(a))
    n = len(op.operands)
    if n % 2 == 0:
        return [n // 2, n // 2]
    return None


_OUTPUT_NAMES = ("out", "output", "outputs", "result", "results")


#: per op class: the names of `_OUTPUT_NAMES` it defines, in that order
_CLASS_OUTPUT_NAMES: dict[type[Operation], tuple[str, ...]] = {}


def _lmhlo_outputs(op: Operation) -> list[SSAValue]:
    """The output buffers of an lmhlo op: its trailing `out`/`output` operands."""
    if op.name == "lmhlo.fusion" or op.name == "lmhlo.terminator" or not op.operands:
        return []
    cls = type(op)
    names = _CLASS_OUTPUT_NAMES.get(cls)
    if names is None:
        names = _CLASS_OUTPUT_NAMES[cls] = tuple(n for n in _OUTPUT_NAMES if hasattr(cls, n))
    for name in names:
        got = getattr(op, name, None)
        if isinstance(got, SSAValue):
            return [got]
        if isinstance(got, Sequence) and got and all(isinstance(g, SSAValue) for g in got):
            return list(got)
    return [op.operands[-1]]


# ---------------------------------------------------------------------------
# handlers of non-hlo ops


def _const_index(a: ShapeAnalysis, v: SSAValue) -> int | None:
    return a.get_index_value_if_const(v)


def _h_arith_constant(a: ShapeAnalysis, op: Operation) -> None:
    value = _attr(op, "value")
    r = op.results[0]
    c = _int_attr(value)
    if c is not None:
        a._tie(("val", r), ("const", c))
        return
    vals = _dense_ints(value)
    s = _shape(r.type)
    if vals is not None and s is not None and len(s) <= 1:
        for i, c in enumerate(vals):
            a._tie(("elem", r, i), ("const", c))


def _h_cast_scalar_or_shape(a: ShapeAnalysis, op: Operation) -> None:
    src, r = op.operands[0], op.results[0]
    if _is_scalar_int(src.type) and _is_scalar_int(r.type):
        a._tie(("val", src), ("val", r))
        return
    ss, sr = _shape(src.type), _shape(r.type)
    if ss is not None and sr is not None and len(ss) == 1 and len(sr) == 1:
        a._tie_shape(src, r)
        n = ss[0] if ss[0] != DYNAMIC_INDEX else sr[0]
        if n != DYNAMIC_INDEX:
            for i in range(n):
                a._tie(("elem", src, i), ("elem", r, i))


def _h_shape_cast(a: ShapeAnalysis, op: Operation) -> None:
    """tensor.cast / memref.cast / bufferization.to_tensor ...: same shape."""
    src, r = op.operands[0], op.results[0]
    a._tie_shape(src, r)
    ss = _shape(src.type)
    if ss is not None and len(ss) == 1:
        _h_cast_scalar_or_shape(a, op)


def _h_dim(a: ShapeAnalysis, op: Operation) -> None:
    src, index = op.operands[0], op.operands[1]
    d = _const_index(a, index)
    if d is not None and _shape(src.type) is not None and 0 <= d < len(_shape(src.type) or ()):
        a._tie(("dim", src, d), ("val", op.results[0]))


def _h_shape_of(a: ShapeAnalysis, op: Operation) -> None:
    src, r = op.operands[0], op.results[0]
    s = _shape(src.type)
    if s is None:
        return
    for i in range(len(s)):
        a._tie(("elem", r, i), ("dim", src, i))


def _h_from_elements(a: ShapeAnalysis, op: Operation) -> None:
    r = op.results[0]
    for i, x in enumerate(op.operands):
        a._tie(("elem", r, i), ("val", x))


def _h_extract(a: ShapeAnalysis, op: Operation) -> None:
    src = op.operands[0]
    idx = list(op.operands[1:])
    s = _shape(src.type)
    if s is None:
        return
    if len(s) == 0:
        a._tie(("val", op.results[0]), ("elem", src, 0))
    elif len(s) == 1 and len(idx) == 1:
        i = _const_index(a, idx[0])
        if i is not None:
            a._tie(("val", op.results[0]), ("elem", src, i))


def _h_store(a: ShapeAnalysis, op: Operation) -> None:
    value, buf = op.operands[0], op.operands[1]
    idx = list(op.operands[2:])
    s = _shape(buf.type)
    if s is None or not _is_scalar_int(value.type):
        return
    if len(s) == 0:
        a._tie(("val", value), ("elem", buf, 0))
        return
    if len(s) != 1 or len(idx) != 1:
        return
    i = _const_index(a, idx[0])
    if i is not None:
        a._tie(("val", value), ("elem", buf, i))


def _h_alloc(a: ShapeAnalysis, op: Operation) -> None:
    r = op.results[0]
    s = _shape(r.type)
    if s is None:
        return
    dyn = [v for v in op.operands if isinstance(v.type, IndexType)]
    k = 0
    for i, size in enumerate(s):
        if size == DYNAMIC_INDEX and k < len(dyn):
            a._tie(("dim", r, i), ("val", dyn[k]))
            k += 1


def _h_reinterpret_cast(a: ShapeAnalysis, op: Operation) -> None:
    r = op.results[0]
    static = _static_array(op, "static_sizes")
    sizes = list(getattr(op, "sizes", ()))
    if static is None:
        return
    k = 0
    for i, size in enumerate(static):
        if size == DYNAMIC_INDEX:
            if k < len(sizes):
                a._tie(("dim", r, i), ("val", sizes[k]))
            k += 1
        else:
            a._tie(("dim", r, i), ("const", size))


def _h_generate(a: ShapeAnalysis, op: Operation) -> None:
    _h_alloc(a, op)


def _h_muli(a: ShapeAnalysis, op: Operation) -> None:
    x, y = op.operands
    r = op.results[0]
    if _is_scalar_int(r.type):
        a._add_product([("val", r)], [("val", x), ("val", y)])


def _h_tie_shape(a: ShapeAnalysis, op: Operation) -> None:
    src, r = op.operands[0], op.results[0]
    a._tie_shape(src, r)
    for i, x in enumerate(op.operands[1:]):
        a._tie(("dim", r, i), ("val", x))


def _h_disc_dim(a: ShapeAnalysis, op: Operation) -> None:
    if not a.use_shape_constraint_ir:
        return
    ref = _attr(op, "name")
    if isinstance(ref, SymbolRefAttr):
        a._tie(("val", op.results[0]), ("sym", ref.root_reference.data))


def _h_get_extent(a: ShapeAnalysis, op: Operation) -> None:
    shp, dim = op.operands[0], op.operands[1]
    i = _const_index(a, dim)
    if i is not None:
        a._tie(("val", op.results[0]), ("elem", shp, i))


def _h_index_to_size(a: ShapeAnalysis, op: Operation) -> None:
    a._tie(("val", op.operands[0]), ("val", op.results[0]))


def _h_load(a: ShapeAnalysis, op: Operation) -> None:
    buf = op.operands[0]
    idx = list(op.operands[1:])
    s = _shape(buf.type)
    r = op.results[0]
    if s is None or not _is_scalar_int(r.type):
        return
    if len(s) == 0:
        a._tie(("val", r), ("elem", buf, 0))
    elif len(s) == 1 and len(idx) == 1:
        i = _const_index(a, idx[0])
        if i is not None:
            a._tie(("val", r), ("elem", buf, i))


_HANDLERS = {
    "arith.constant": _h_arith_constant,
    "arith.index_cast": _h_cast_scalar_or_shape,
    "arith.index_castui": _h_cast_scalar_or_shape,
    "arith.muli": _h_muli,
    "tensor.cast": _h_shape_cast,
    "memref.cast": _h_shape_cast,
    "bufferization.to_tensor": _h_shape_cast,
    "bufferization.to_memref": _h_shape_cast,
    "bufferization.to_buffer": _h_shape_cast,
    "shape.to_extent_tensor": _h_shape_cast,
    "tensor.dim": _h_dim,
    "memref.dim": _h_dim,
    "shape.shape_of": _h_shape_of,
    "tensor.from_elements": _h_from_elements,
    "tensor.extract": _h_extract,
    "memref.load": _h_load,
    "memref.store": _h_store,
    "memref.alloc": _h_alloc,
    "memref.alloca": _h_alloc,
    "tensor.empty": _h_alloc,
    "tensor.generate": _h_generate,
    "memref.reinterpret_cast": _h_reinterpret_cast,
    "disc_shape.tie_shape": _h_tie_shape,
    "disc_shape.dim": _h_disc_dim,
    "shape.get_extent": _h_get_extent,
    "shape.index_to_size": _h_index_to_size,
    "shape.size_to_index": _h_index_to_size,
}

__all__ = [
    "SHAPE_CONSTRAINT_GRAPH",
    "SYMBOLIC_DIM_ATTR",
    "ShapeAnalysis",
    "SymbolicDim",
    "set_value_type",
]
