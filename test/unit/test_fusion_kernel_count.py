"""Kernel counts of a bufferized transformer layer before and after `disc-fusion`.

The graph is written by hand at the lmhlo level (what `disc-hlo-legalize-to-lhlo`
produces for a single-head transformer encoder layer on `[T, 64]` tokens, T
dynamic): attention (q/k/v projections, scaled scores, row softmax, context,
output projection), bias + residual + layer norm, an MLP with tanh-GELU, bias +
residual + layer norm.

A *kernel* is what runs as one launch: an `lmhlo.fusion`, a library call
(`lmhlo.dot_general`), or any other top-level lmhlo op left unfused
(constants excluded: they are folded into their users' kernels or live in
constant buffers).
"""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.fusion.pattern import FusionPattern, FusionType, fusion_body_ops
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import DiscParser
from disc_ir.passes.registry import get_pass

H = 64  # hidden size
F = 256  # MLP size

F32 = "f32"


class _Builder:
    """Emits lmhlo ops on freshly allocated buffers of a `[T, *]` graph."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def _new(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    @staticmethod
    def ty(shape: tuple[str | int, ...]) -> str:
        dims = "x".join("?" if d == "T" else str(d) for d in shape)
        return f"memref<{dims}x{F32}>" if dims else f"memref<{F32}>"

    def alloc(self, shape: tuple[str | int, ...]) -> str:
        v = self._new()
        dyn = ", ".join("%t" for d in shape if d == "T")
        self.lines.append(f"{v} = memref.alloc({dyn}) : {self.ty(shape)}")
        return v

    def op(self, name: str, ins: list[tuple[str, tuple]], out_shape: tuple, attrs: str = "") -> str:
        out = self.alloc(out_shape)
        operands = ", ".join([v for v, _ in ins] + [out])
        types = ", ".join([self.ty(s) for _, s in ins] + [self.ty(out_shape)])
        attr_text = f" {{{attrs}}}" if attrs else ""
        self.lines.append(f'"lmhlo.{name}"({operands}){attr_text} : ({types}) -> ()')
        return out

    def const(self, value: float) -> tuple[str, tuple]:
        out = self.alloc(())
        literal = "0xFF800000" if value == float("-inf") else f"{value:e}"
        self.lines.append(
            f'"lmhlo.constant"({out}) {{value = dense<{literal}> : tensor<f32>}} : (memref<f32>) -> ()'
        )
        return out, ()

    def dot(self, lhs: tuple[str, tuple], rhs: tuple[str, tuple], transpose_rhs: bool = False):
        out_shape = (lhs[1][0], rhs[1][0] if transpose_rhs else rhs[1][1])
        rc = 1 if transpose_rhs else 0
        attrs = (
            "dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], "
            f"rhs_contracting_dimensions = [{rc}]>"
        )
        return self.op("dot_general", [lhs, rhs], out_shape, attrs), out_shape

    def bcast(self, src: tuple[str, tuple], shape: tuple, dims: list[int]):
        shape_buf = {("T", "T"): "%s2", ("T", H): "%sh", ("T", F): "%sf", ("T",): "%s1"}[shape]
        out = self.alloc(shape)
        ext = len(shape)
        dims_attr = f"dense<[{', '.join(map(str, dims))}]> : tensor<{len(dims)}xi64>"
        if not dims:
            dims_attr = "dense<> : tensor<0xi64>"
        self.lines.append(
            f'"lmhlo.dynamic_broadcast_in_dim"({src[0]}, {shape_buf}, {out}) '
            f"{{broadcast_dimensions = {dims_attr}}} : "
            f"({self.ty(src[1])}, memref<{ext}xindex>, {self.ty(shape)}) -> ()"
        )
        return out, shape

    def ew(self, name: str, *ins: tuple[str, tuple]):
        shape = ins[0][1]
        return self.op(name, list(ins), shape), shape

    def reduce(self, src: tuple[str, tuple], init: tuple[str, tuple], kind: str):
        out_shape = (src[1][0],)
        out = self.alloc(out_shape)
        self.lines += [
            f'"lmhlo.reduce"({src[0]}, {init[0]}, {out}) ({{',
            "^bb0(%ra: memref<f32>, %rb: memref<f32>, %rc: memref<f32>):",
            f'  "lmhlo.{kind}"(%ra, %rb, %rc) : (memref<f32>, memref<f32>, memref<f32>) -> ()',
            '  "lmhlo.terminator"() : () -> ()',
            f"}}) {{dimensions = dense<1> : tensor<1xi64>}} : "
            f"({self.ty(src[1])}, memref<f32>, {self.ty(out_shape)}) -> ()",
        ]
        return out, out_shape

    # -- composite layers ------------------------------------------------------

    def softmax(self, s):
        shape = s[1]
        mx = self.reduce(s, self.const(float("-inf")), "maximum")
        sub = self.ew("subtract", s, self.bcast(mx, shape, [0]))
        e = self.ew("exponential", sub)
        sm = self.reduce(e, self.const(0.0), "add")
        return self.ew("divide", e, self.bcast(sm, shape, [0]))

    def layernorm(self, x, gamma, beta):
        shape = x[1]
        zero = self.const(0.0)
        n = self.bcast(self.const(float(H)), ("T",), [])
        mean = self.ew("divide", self.reduce(x, zero, "add"), n)
        xc = self.ew("subtract", x, self.bcast(mean, shape, [0]))
        var = self.ew("divide", self.reduce(self.ew("multiply", xc, xc), zero, "add"), n)
        eps = self.bcast(self.const(1e-5), ("T",), [])
        rstd = self.ew("rsqrt", self.ew("add", var, eps))
        norm = self.ew("multiply", xc, self.bcast(rstd, shape, [0]))
        scaled = self.ew("multiply", norm, self.bcast(gamma, shape, [1]))
        return self.ew("add", scaled, self.bcast(beta, shape, [1]))

    def bias(self, x, b):
        return self.ew("add", x, self.bcast(b, x[1], [1]))

    def gelu(self, x):
        shape = x[1]

        def c(v: float):
            return self.bcast(self.const(v), shape, [])

        x3 = self.ew("multiply", self.ew("multiply", x, x), x)
        inner = self.ew("add", x, self.ew("multiply", c(0.044715), x3))
        t = self.ew("tanh", self.ew("multiply", c(0.7978845608), inner))
        return self.ew("multiply", c(0.5), self.ew("multiply", x, self.ew("add", c(1.0), t)))


def transformer_layer() -> str:
    b = _Builder()
    x, wq, wk, wv, wo = ("%x", ("T", H)), *((f"%{n}", (H, H)) for n in ("wq", "wk", "wv", "wo"))
    w1, w2 = ("%w1", (H, F)), ("%w2", (F, H))
    bo, b1, b2 = ("%bo", (H,)), ("%b1", (F,)), ("%b2", (H,))
    g1, be1, g2, be2 = (("%" + n, (H,)) for n in ("g1", "be1", "g2", "be2"))

    q, k, v = b.dot(x, wq), b.dot(x, wk), b.dot(x, wv)
    scores = b.dot(q, k, transpose_rhs=True)
    scaled = b.ew("multiply", scores, b.bcast(b.const(0.125), ("T", "T"), []))
    probs = b.softmax(scaled)
    ctx = b.dot(probs, v)
    attn = b.bias(b.dot(ctx, wo), bo)
    ln1 = b.layernorm(b.ew("add", x, attn), g1, be1)
    hidden = b.gelu(b.bias(b.dot(ln1, w1), b1))
    mlp = b.bias(b.dot(hidden, w2), b2)
    out = b.layernorm(b.ew("add", ln1, mlp), g2, be2)

    def mt(shape: tuple) -> str:
        return _Builder.ty(shape)

    args = [x, wq, wk, wv, wo, w1, w2, bo, b1, b2, g1, be1, g2, be2]
    sig = ", ".join(f"{n}: {mt(s)}" for n, s in args)
    header = [
        f"func.func @layer({sig}) -> {mt(out[1])} {{",
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        f"%c{H} = arith.constant {H} : index",
        f"%c{F} = arith.constant {F} : index",
        "%t = memref.dim %x, %c0 : memref<?x64xf32>",
        "%s1 = memref.alloca() : memref<1xindex>",
        "memref.store %t, %s1[%c0] : memref<1xindex>",
    ]
    for name, second in (("%sh", f"%c{H}"), ("%sf", f"%c{F}"), ("%s2", "%t")):
        header += [
            f"{name} = memref.alloca() : memref<2xindex>",
            f"memref.store %t, {name}[%c0] : memref<2xindex>",
            f"memref.store {second}, {name}[%c1] : memref<2xindex>",
        ]
    body = header + b.lines + [f"return {out[0]} : {mt(out[1])}", "}"]
    return "\n".join(body)


def _module(text: str) -> ModuleOp:
    module = DiscParser(make_context(), text).parse_module()
    module.verify()
    return module


def _fuse(module: ModuleOp, **options: object) -> None:
    cls = get_pass("disc-fusion")
    assert cls is not None
    cls(**options).apply(make_context(), module)  # type: ignore[call-arg]
    module.verify()


def _top_ops(module: ModuleOp) -> list[Operation]:
    f = next(o for o in module.walk() if o.name == "func.func")
    return list(f.regions[0].blocks.first.ops)  # type: ignore[union-attr]


def kernels(module: ModuleOp) -> dict[str, int]:
    """Kernels by kind: `fusion`, `library` (dot), `other` (unfused lmhlo ops)."""
    counts = {"fusion": 0, "library": 0, "other": 0}
    for op in _top_ops(module):
        if op.name == "lmhlo.fusion":
            counts["fusion"] += 1
        elif op.name == "lmhlo.dot_general":
            counts["library"] += 1
        elif op.dialect_name() == "lmhlo" and op.name != "lmhlo.constant":
            counts["other"] += 1
    return counts


def fusion_types(module: ModuleOp) -> list[str]:
    return [
        op.attributes["disc.fusion_type"].data  # type: ignore[attr-defined]
        for op in _top_ops(module)
        if op.name == "lmhlo.fusion"
    ]


# Hand count of the graph (not counting its 13 scalar lmhlo.constant ops):
#   8 dot_general library calls: q, k, v, scores, context, output projection, MLP up, MLP down;
#   attention scaling: broadcast + multiply                                    =  2
#   softmax: reduce-max, broadcast, subtract, exp, reduce-sum, broadcast, divide =  7
#   bias after the output projection: broadcast + add                          =  2
#   residual add                                                               =  1
#   layer norm: 2 reduces, 2 divides, 2 scalar broadcasts (N, eps), mean / rstd
#     broadcasts, subtract, square, add eps, rsqrt, normalise, gamma / beta
#     broadcasts, scale, shift                                                 = 17
#   MLP bias (2); tanh-GELU (13): x*x, *x, 4 constant broadcasts, c1*x^3,
#     x + ., c2 * ., tanh, 1 + ., x * ., 0.5 * .                               = 15
#   MLP-down bias (2) + residual (1) + layer norm (17)                         = 20
# Before fusion every non-constant op is its own kernel: 8 + 2+7+2+1+17+15+20 = 72.
BEFORE = {"fusion": 0, "library": 8, "other": 64}

# The expectations below first take horizontal fusion off
# (DISC_ENABLE_HORIZONTAL_FUSION=0), so only producer/consumer fusion counts;
# the horizontal variants follow.
#
# CPU stitch (BladeDISC's CPU default). The dots stay library calls and split the
# graph into four regions; each region becomes exactly one kernel:
#   scores -> [scale, softmax]                      -> context : one kStitch (two row reductions)
#   out-proj -> [bias, residual, layer norm]        -> MLP up  : one kStitch
#   MLP up -> [bias, GELU] (elementwise only)       -> MLP down: one kLoop (the stitch stage
#                                                                 has nothing to merge it with)
#   MLP down -> [bias, residual, layer norm]        -> return  : one kStitch
# = 8 library calls + 4 fusions = 12 kernels.
AFTER_STITCH = {"fusion": 4, "library": 8, "other": 0}
STITCH_TYPES = ["kStitch", "kStitch", "kLoop", "kStitch"]

# CPU base (XLA style): a reduce cannot feed another op of its own fusion, a
# reduce root must be a fusion's only root, and multi-output needs results of
# one element count, so the row reductions cut every region:
#   softmax region: [scale] reduce-max [bcast, sub, exp] reduce-sum [bcast, div]
#     -> mul's and exp's outputs are also read past the reduce, so both reduces
#        stay alone: 3 kLoop fusions + 2 lone reduces                      = 5;
#   each bias + residual + layer norm region:
#     [bias bcast, add, residual add] -> kLoop; its output is read by reduce #1
#        and by the subtract, so reduce #1 stays alone;
#     the N broadcast ([T]) feeds the two divides, which end up in different
#        fusions whose outputs are [T, 64]: it stays alone;
#     [mean divide, bcast, subtract] -> kLoop;
#     [square, reduce #2] -> kRowReduction (the square is only read by it);
#     [var divide, eps, add, rsqrt, bcast, normalise, gamma, scale, beta, shift] -> kLoop
#     -> 4 fusions + 2 lone ops per region                                 = 6, x2 = 12;
#   MLP-up region: [bias, GELU] -> one kLoop                               = 1.
# = 8 library calls + 18 kernels: 12 fusions and 6 lone ops (4 reduces, 2 broadcasts).
AFTER_BASE = {"fusion": 12, "library": 8, "other": 6}

# With horizontal fusion (BladeDISC's default) unconnected clusters of one element
# count also merge, after the producer/consumer rounds of each stage. The two
# layer norms' N broadcasts ([T] each, no path between them) are the only such
# pair left unfused: they merge into one two-output kLoop. Under stitch this
# happens in the stitch_base stage, before the stitch stage could pull each
# broadcast into its layer norm, so the stitch plan gains a fifth kernel; under
# base the two lone broadcasts become one kernel.
AFTER_STITCH_HORIZONTAL = {"fusion": 5, "library": 8, "other": 0}
AFTER_BASE_HORIZONTAL = {"fusion": 13, "library": 8, "other": 4}


@pytest.fixture()
def layer_text() -> str:
    return transformer_layer()


def test_graph_before_fusion(layer_text: str) -> None:
    module = _module(layer_text)
    assert kernels(module) == BEFORE
    assert sum(BEFORE.values()) == 72


def _assert_dominance(module: ModuleOp) -> None:
    """Every top-level operand is defined before its user (the reorder held)."""
    ops = _top_ops(module)
    position = {op: i for i, op in enumerate(ops)}
    for op in ops:
        for nested in op.walk():
            for v in nested.operands:
                owner = v.owner
                if isinstance(owner, Operation) and owner in position:
                    assert position[owner] < position[op], f"{owner.name} after {op.name}"


@pytest.mark.parametrize(
    ("strategy", "horizontal", "expected"),
    [
        ("stitch", "0", AFTER_STITCH),
        ("base", "0", AFTER_BASE),
        ("stitch", "1", AFTER_STITCH_HORIZONTAL),
        ("base", "1", AFTER_BASE_HORIZONTAL),
    ],
)
def test_cpu_kernel_count(
    layer_text: str,
    monkeypatch: pytest.MonkeyPatch,
    strategy: str,
    horizontal: str,
    expected: dict[str, int],
) -> None:
    monkeypatch.setenv("DISC_ENABLE_HORIZONTAL_FUSION", horizontal)
    module = _module(layer_text)
    _fuse(module, gpu_enabled=False, fusion_strategy=strategy)
    assert kernels(module) == expected
    _assert_dominance(module)
    if strategy == "stitch" and horizontal == "0":
        assert fusion_types(module) == STITCH_TYPES


def test_fusion_patterns_answer_codegen_queries(
    layer_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each fusion's pattern (re-read from the IR) names its roots, type and
    dominant op; the row-reduction schedule wins when a row reduction is present."""
    monkeypatch.setenv("DISC_ENABLE_HORIZONTAL_FUSION", "0")
    module = _module(layer_text)
    _fuse(module, gpu_enabled=False, fusion_strategy="base")
    f = next(o for o in module.walk() if o.name == "func.func")
    analysis = ShapeAnalysis(f)
    for op in _top_ops(module):
        if op.name != "lmhlo.fusion":
            continue
        pattern = FusionPattern.from_fusion_op(op, analysis)
        assert pattern.op_list == fusion_body_ops(op)
        assert pattern.root_ops and pattern.dominant_op in pattern.op_list
        if pattern.fusion_type is FusionType.ROW_REDUCTION:
            assert pattern.dominant_op is not None
            assert pattern.dominant_op.name == "lmhlo.reduce"
            assert pattern.dominant_schedule() == "RowReductionSchedule"
        else:
            assert pattern.fusion_type is FusionType.LOOP
            assert pattern.dominant_schedule() == "LoopSchedule"


def on_gpu(text: str) -> str:
    """The layer with its buffers in GPU memory (`#gpu.address_space<global>`);
    reducer bodies keep their plain scalar memrefs."""
    out = []
    for line in text.splitlines():
        if "^bb0" not in line and "%ra, %rb, %rc" not in line:
            line = re.sub(
                r"memref<((?:\?x|\d+x)*f32)>", r"memref<\1, #gpu.address_space<global>>", line
            )
        out.append(line)
    return "\n".join(out)


# GPU stitch (`[base, stitch]`, StitchGpuFusionStrategy): the same four regions,
# each one kernel. Softmax and the two layer norms are kStitch (their row
# reductions feed later ops of the kernel through shared memory); bias + GELU
# stays kLoop. The split is the CPU stitch's, with or without horizontal fusion
# (the N broadcasts are fused into their layer norms by the base stage here).
AFTER_GPU_STITCH = {"fusion": 4, "library": 8, "other": 0}
# GPU base: a row reduction may only end a kernel (kRowReduction), so each
# softmax / layer norm splits at every reduction.
AFTER_GPU_BASE = {"fusion": 10, "library": 8, "other": 2}


@pytest.mark.parametrize("horizontal", ["0", "1"])
def test_gpu_stitch_kernel_count(
    layer_text: str, monkeypatch: pytest.MonkeyPatch, horizontal: str
) -> None:
    monkeypatch.setenv("DISC_ENABLE_HORIZONTAL_FUSION", horizontal)
    module = _module(on_gpu(layer_text))
    _fuse(module, gpu_enabled=True, fusion_strategy="stitch")
    assert kernels(module) == AFTER_GPU_STITCH
    assert fusion_types(module) == STITCH_TYPES
    _assert_dominance(module)
    f = next(o for o in module.walk() if o.name == "func.func")
    analysis = ShapeAnalysis(f)
    for op in _top_ops(module):
        if op.name == "lmhlo.fusion" and fusion_types_of(op) == "kStitch":
            pattern = FusionPattern.from_fusion_op(op, analysis)
            assert pattern.fusion_type is FusionType.STITCH
            assert pattern.sub_root_ops and all(
                r.name == "lmhlo.reduce" for r in pattern.sub_root_ops
            )
            assert pattern.dominant_op is pattern.sub_root_ops[-1]


def test_gpu_base_kernel_count(layer_text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISC_ENABLE_HORIZONTAL_FUSION", "0")
    module = _module(on_gpu(layer_text))
    _fuse(module, gpu_enabled=True, fusion_strategy="base")
    assert kernels(module) == AFTER_GPU_BASE
    assert "kStitch" not in fusion_types(module)


def fusion_types_of(op: Operation) -> str:
    return op.attributes["disc.fusion_type"].data  # type: ignore[attr-defined]


@pytest.mark.parametrize("strategy", ["base", "stitch"])
def test_fusions_are_named_by_their_signature_without_a_new_analysis(
    layer_text: str, monkeypatch: pytest.MonkeyPatch, strategy: str
) -> None:
    """Each fusion the pass makes is named `<func>_<signature>_<n>`, the
    signature of its pattern as re-read from the IR, without the strategy
    analysing the fusion again for it."""
    from disc_ir.fusion.pattern import fusion_name, generate_signature

    def no_reanalysis(*_args: object) -> FusionPattern:
        raise AssertionError("a made fusion was analysed again to name it")

    module = _module(layer_text)
    with monkeypatch.context() as patch:
        patch.setattr(FusionPattern, "from_fusion_op", no_reanalysis)
        _fuse(module, gpu_enabled=False, fusion_strategy=strategy)
    f = next(o for o in module.walk() if o.name == "func.func")
    shape_analysis = ShapeAnalysis(f)
    fusions = [op for op in _top_ops(module) if op.name == "lmhlo.fusion"]
    assert fusions
    for fusion in fusions:
        signature = generate_signature(FusionPattern.from_fusion_op(fusion, shape_analysis))
        name = fusion_name(fusion)
        assert re.fullmatch(rf"{f.sym_name.data}_{re.escape(signature)}_\d+", name), name
