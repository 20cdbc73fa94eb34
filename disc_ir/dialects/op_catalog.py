"""Every op of today's StableHLO, CHLO and mhlo, and whether disc-ir compiles it.

The list is that of StableHLO's specification (`docs/spec.md`) and its
dialect (`StablehloOps.td`: also `broadcast`, `dot`, `einsum`, ...), CHLO
(`ChloOps.td`), and the ops of today's mlir-hlo `mhlo` (`hlo_ops.td`) that
StableHLO spells otherwise or lacks. Each entry says whether `disc_ir.compile`
compiles it (`COMPILED`, on the CPU target) or refuses it (`REFUSED`), with a
note: a limit of the lowering, or why it is refused.

A refused op that disc-ir does not even parse is refused by name when the
text is parsed (`refusal_message`): "'stablehlo.cholesky' is not supported by
disc-ir (...)", instead of the parser's "unknown op" message, which reads as
a typo. Refused ops that parse (`stablehlo.rng`, f64 `chlo.erf_inv` ...) are named
by the compiler when it finds no lowering (`disc-reject-unlowered-tensor-ops`);
ops on complex numbers by `disc_ir.compile` before it lowers anything.
`docs/ops.md` is generated from this table (`python -m disc_ir.tools.op_docs`).
"""

from __future__ import annotations

from dataclasses import dataclass

COMPILED = "compiled"
REFUSED = "refused"


@dataclass(frozen=True)
class OpSupport:
    """`name`'s status (COMPILED / REFUSED) and a note on it."""

    name: str
    status: str
    note: str = ""


_C, _R = COMPILED, REFUSED

_COLLECTIVE = "a collective across replicas / partitions: disc-ir compiles single-device programs"
_TOKEN = (
    "tokens order side effects (after_all, create_token, infeed, outfeed, send, recv, "
    "add_dependency): disc-ir has no token type"
)
_ASYNC = "asynchronous execution (async_start, async_update, async_done) is not modelled"
_COMPLEX = "complex element types are not compiled"
_QUANT = "quantized element types (`!quant.uniform`) are not compiled"

OPS: tuple[OpSupport, ...] = (
    # -- StableHLO (spec.md and StablehloOps.td) ------------------------------
    OpSupport("stablehlo.abs", _C),
    OpSupport("stablehlo.add", _C),
    OpSupport("stablehlo.after_all", _R, _TOKEN),
    OpSupport("stablehlo.all_gather", _R, _COLLECTIVE),
    OpSupport("stablehlo.all_reduce", _R, _COLLECTIVE),
    OpSupport("stablehlo.all_to_all", _R, _COLLECTIVE),
    OpSupport("stablehlo.and", _C),
    OpSupport("stablehlo.async_done", _R, _ASYNC),
    OpSupport("stablehlo.async_start", _R, _ASYNC),
    OpSupport("stablehlo.atan2", _C),
    OpSupport("stablehlo.batch_norm_grad", _C, "unfused into reductions and elementwise ops"),
    OpSupport("stablehlo.batch_norm_inference", _C, "unfused into elementwise ops"),
    OpSupport(
        "stablehlo.batch_norm_training",
        _C,
        "unfused: per-feature mean and biased variance (of the centered values) by reductions",
    ),
    OpSupport("stablehlo.bitcast_convert", _C),
    OpSupport("stablehlo.broadcast", _C),
    OpSupport("stablehlo.broadcast_in_dim", _C),
    OpSupport(
        "stablehlo.case",
        _C,
        "every branch is computed, then selected (results of one shape in all branches)",
    ),
    OpSupport("stablehlo.cbrt", _C),
    OpSupport("stablehlo.ceil", _C),
    OpSupport("stablehlo.cholesky", _R, "a linear-algebra solver: no lowering"),
    OpSupport("stablehlo.clamp", _C),
    OpSupport("stablehlo.collective_broadcast", _R, _COLLECTIVE),
    OpSupport("stablehlo.collective_permute", _R, _COLLECTIVE),
    OpSupport("stablehlo.collective_reduce", _R, _COLLECTIVE),
    OpSupport("stablehlo.compare", _C),
    OpSupport("stablehlo.complex", _R, _COMPLEX),
    OpSupport("stablehlo.composite", _C, "inlined: its decomposition is compiled"),
    OpSupport("stablehlo.concatenate", _C),
    OpSupport("stablehlo.constant", _C),
    OpSupport("stablehlo.convert", _C),
    OpSupport("stablehlo.convolution", _C),
    OpSupport("stablehlo.cosine", _C),
    OpSupport("stablehlo.count_leading_zeros", _C),
    OpSupport("stablehlo.create_token", _R, _TOKEN),
    OpSupport(
        "stablehlo.custom_call",
        _C,
        "a call of the RAL API named by its target (an unregistered target fails at the call)",
    ),
    OpSupport("stablehlo.divide", _C),
    OpSupport("stablehlo.dot", _C),
    OpSupport("stablehlo.dot_general", _C, "default precision algorithm only"),
    OpSupport("stablehlo.dynamic_broadcast_in_dim", _C),
    OpSupport("stablehlo.dynamic_conv", _C),
    OpSupport("stablehlo.dynamic_gather", _C),
    OpSupport("stablehlo.dynamic_iota", _C),
    OpSupport("stablehlo.dynamic_pad", _C),
    OpSupport("stablehlo.dynamic_reshape", _C),
    OpSupport("stablehlo.dynamic_slice", _C),
    OpSupport("stablehlo.dynamic_update_slice", _C),
    OpSupport("stablehlo.einsum", _R, "deprecated in StableHLO; jax emits dot_general"),
    OpSupport("stablehlo.exponential", _C),
    OpSupport("stablehlo.exponential_minus_one", _C),
    OpSupport("stablehlo.fft", _R, _COMPLEX),
    OpSupport("stablehlo.floor", _C),
    OpSupport("stablehlo.gather", _C, "batching dimensions too"),
    OpSupport("stablehlo.get_dimension_size", _C),
    OpSupport("stablehlo.get_tuple_element", _C, "of a custom_call's tuple result"),
    OpSupport(
        "stablehlo.if",
        _C,
        "both branches are computed, then selected (results of one shape in both)",
    ),
    OpSupport("stablehlo.imag", _R, _COMPLEX),
    OpSupport("stablehlo.infeed", _R, _TOKEN),
    OpSupport("stablehlo.iota", _C),
    OpSupport("stablehlo.is_finite", _C),
    OpSupport("stablehlo.log", _C),
    OpSupport("stablehlo.log_plus_one", _C),
    OpSupport("stablehlo.logistic", _C),
    OpSupport("stablehlo.map", _R, "no lowering; jax emits the body's ops directly"),
    OpSupport("stablehlo.maximum", _C),
    OpSupport("stablehlo.minimum", _C),
    OpSupport("stablehlo.multiply", _C),
    OpSupport("stablehlo.negate", _C),
    OpSupport("stablehlo.not", _C),
    OpSupport("stablehlo.optimization_barrier", _C, "replaced by its operands"),
    OpSupport("stablehlo.or", _C),
    OpSupport("stablehlo.outfeed", _R, _TOKEN),
    OpSupport("stablehlo.pad", _C),
    OpSupport("stablehlo.partition_id", _R, _COLLECTIVE),
    OpSupport("stablehlo.popcnt", _C),
    OpSupport("stablehlo.power", _C),
    OpSupport("stablehlo.real", _R, _COMPLEX),
    OpSupport("stablehlo.real_dynamic_slice", _C),
    OpSupport("stablehlo.recv", _R, _TOKEN),
    OpSupport("stablehlo.reduce", _C),
    OpSupport(
        "stablehlo.reduce_precision",
        _C,
        "expanded on the bits: mantissa rounded to nearest even, exponent range flushed",
    ),
    OpSupport("stablehlo.reduce_scatter", _R, _COLLECTIVE),
    OpSupport("stablehlo.reduce_window", _C),
    OpSupport("stablehlo.remainder", _C),
    OpSupport("stablehlo.replica_id", _R, _COLLECTIVE),
    OpSupport("stablehlo.reshape", _C),
    OpSupport("stablehlo.return", _C, "the terminator of regions"),
    OpSupport("stablehlo.reverse", _C),
    OpSupport("stablehlo.rng", _R, "no lowering; jax's PRNG emits threefry (integer ops) instead"),
    OpSupport(
        "stablehlo.rng_bit_generator", _R, "no lowering; jax's default threefry PRNG compiles"
    ),
    OpSupport("stablehlo.round_nearest_afz", _C),
    OpSupport("stablehlo.round_nearest_even", _C),
    OpSupport("stablehlo.rsqrt", _C),
    OpSupport("stablehlo.scatter", _C, "one operand; updates applied in order"),
    OpSupport("stablehlo.select", _C),
    OpSupport("stablehlo.select_and_scatter", _R, "no lowering (the gradient of max pooling)"),
    OpSupport("stablehlo.send", _R, _TOKEN),
    OpSupport(
        "stablehlo.set_dimension_size", _R, "XLA's bounded dynamism: disc-ir's shapes are dynamic"
    ),
    OpSupport("stablehlo.shift_left", _C),
    OpSupport("stablehlo.shift_right_arithmetic", _C),
    OpSupport("stablehlo.shift_right_logical", _C),
    OpSupport("stablehlo.sign", _C),
    OpSupport("stablehlo.sine", _C),
    OpSupport("stablehlo.slice", _C),
    OpSupport("stablehlo.sort", _C),
    OpSupport("stablehlo.sqrt", _C),
    OpSupport("stablehlo.subtract", _C),
    OpSupport("stablehlo.tan", _C),
    OpSupport("stablehlo.tanh", _C),
    OpSupport(
        "stablehlo.torch_index_select", _R, "deprecated in StableHLO; torch-mlir emits gather"
    ),
    OpSupport("stablehlo.transpose", _C),
    OpSupport("stablehlo.triangular_solve", _R, "a linear-algebra solver: no lowering"),
    OpSupport("stablehlo.tuple", _R, "tuples built in the graph have no lowering"),
    OpSupport(
        "stablehlo.unary_einsum", _R, "deprecated in StableHLO; jax emits reduce / transpose"
    ),
    OpSupport("stablehlo.uniform_dequantize", _R, _QUANT),
    OpSupport("stablehlo.uniform_quantize", _R, _QUANT),
    OpSupport("stablehlo.while", _C, "loops with a trip count known at compile time (unrolled)"),
    OpSupport("stablehlo.xor", _C),
    # -- CHLO (ChloOps.td) ----------------------------------------------------
    OpSupport("chlo._asin_acos_kernel", _R, "an internal helper of CHLO's complex asin / acos"),
    OpSupport("chlo.acos", _C, "2 atan2(sqrt(1 - x^2), 1 + x)"),
    OpSupport("chlo.acosh", _C, "log1p form near 1, log 2 + log x past sqrt(max)"),
    OpSupport("chlo.asin", _C, "2 atan2(x, 1 + sqrt(1 - x^2))"),
    OpSupport("chlo.asinh", _C, "log1p form near 0, log 2 + log |x| past sqrt(max)"),
    OpSupport("chlo.atan", _C, "atan2(x, 1)"),
    OpSupport("chlo.atanh", _C, "(log1p(x) - log1p(-x)) / 2"),
    OpSupport("chlo.bessel_i1e", _C, "Chebyshev series on |x| <= 8 and beyond; f32, f16, bf16"),
    OpSupport("chlo.broadcast_add", _C),
    OpSupport("chlo.broadcast_and", _C),
    OpSupport("chlo.broadcast_atan2", _C),
    OpSupport("chlo.broadcast_compare", _C),
    OpSupport("chlo.broadcast_complex", _R, _COMPLEX),
    OpSupport("chlo.broadcast_divide", _C),
    OpSupport("chlo.broadcast_maximum", _C),
    OpSupport("chlo.broadcast_minimum", _C),
    OpSupport("chlo.broadcast_multiply", _C),
    OpSupport("chlo.broadcast_next_after", _C),
    OpSupport("chlo.broadcast_or", _C),
    OpSupport("chlo.broadcast_polygamma", _C, "as chlo.polygamma"),
    OpSupport("chlo.broadcast_power", _C),
    OpSupport("chlo.broadcast_remainder", _C),
    OpSupport("chlo.broadcast_select", _C),
    OpSupport("chlo.broadcast_shift_left", _C),
    OpSupport("chlo.broadcast_shift_right_arithmetic", _C),
    OpSupport("chlo.broadcast_shift_right_logical", _C),
    OpSupport("chlo.broadcast_subtract", _C),
    OpSupport("chlo.broadcast_xor", _C),
    OpSupport("chlo.broadcast_zeta", _C, "as chlo.zeta"),
    OpSupport("chlo.conj", _R, _COMPLEX),
    OpSupport("chlo.constant", _C),
    OpSupport("chlo.constant_like", _C),
    OpSupport("chlo.cosh", _C, "e^x/2 + e^-x/2"),
    OpSupport("chlo.digamma", _C, "Lanczos (g = 7), reflection below 1/2; f64, f32, f16, bf16"),
    OpSupport("chlo.erf", _C, "f32, f16, bf16"),
    OpSupport("chlo.erf_inv", _C, "Giles' single-precision polynomials; f32, f16, bf16"),
    OpSupport("chlo.erfc", _C, "f32, f16, bf16"),
    OpSupport("chlo.is_inf", _C),
    OpSupport("chlo.is_neg_inf", _C),
    OpSupport("chlo.is_pos_inf", _C),
    OpSupport("chlo.lgamma", _C, "Lanczos (g = 7), reflection below 1/2; f64, f32, f16, bf16"),
    OpSupport("chlo.mulhi", _R, "no lowering; jax does not emit it"),
    OpSupport("chlo.next_after", _C, "one step of the integer representation; every float width"),
    OpSupport(
        "chlo.polygamma", _C, "(-1)^(n+1) n! zeta(n + 1, x), digamma at n = 0; computed in f64"
    ),
    OpSupport("chlo.ragged_dot", _R, "no lowering of grouped (ragged) matmuls"),
    OpSupport("chlo.scan", _R, "no lowering; jax emits while loops or reduce_window for scans"),
    OpSupport("chlo.sinh", _C, "expm1 form for |x| < 1, e^x/2 - e^-x/2 beyond"),
    OpSupport("chlo.square", _C),
    OpSupport("chlo.tan", _C, "sin / cos"),
    OpSupport(
        "chlo.top_k",
        _C,
        "a stable descending sort in XLA's total order, then the first k; any leading dims",
    ),
    OpSupport(
        "chlo.zeta",
        _C,
        "Cephes' Euler-Maclaurin summation with XLA's poles and NaNs; computed in f64",
    ),
    # -- today's mhlo beyond StableHLO's spelling ----------------------------
    OpSupport("mhlo.acos", _C, "as chlo.acos"),
    OpSupport("mhlo.acosh", _C, "as chlo.acosh"),
    OpSupport("mhlo.add_dependency", _R, _TOKEN),
    OpSupport("mhlo.asin", _C, "as chlo.asin"),
    OpSupport("mhlo.asinh", _C, "as chlo.asinh"),
    OpSupport("mhlo.async_update", _R, _ASYNC),
    OpSupport("mhlo.atanh", _C, "as chlo.atanh"),
    OpSupport("mhlo.bitcast", _R, "XLA's layout-changing bitcast: no lowering"),
    OpSupport("mhlo.copy", _C),
    OpSupport("mhlo.cosh", _C, "as chlo.cosh"),
    OpSupport("mhlo.domain", _R, "XLA's sharding domains: disc-ir compiles single-device programs"),
    OpSupport("mhlo.dynamic_broadcast_in_dim", _C),
    OpSupport("mhlo.erf", _C, "as chlo.erf"),
    OpSupport("mhlo.fusion", _R, "XLA's fusion regions: disc-ir fuses by itself"),
    OpSupport("mhlo.ragged_dot", _R, "no lowering of grouped (ragged) matmuls"),
    OpSupport("mhlo.real_dynamic_slice", _C),
    OpSupport("mhlo.reduce_precision", _C, "as stablehlo.reduce_precision"),
    OpSupport("mhlo.sinh", _C, "as chlo.sinh"),
    OpSupport("mhlo.stochastic_convert", _R, "stochastic rounding: no lowering"),
    OpSupport("mhlo.tan", _C),
    OpSupport("mhlo.topk", _R, "no lowering; chlo.top_k (what jax emits) compiles"),
    OpSupport("mhlo.trace", _R, "XLA's tracing annotation: no lowering"),
    OpSupport("mhlo.xla.rng_get_and_update_state", _R, "XLA's PRNG state: no lowering"),
)

BY_NAME: dict[str, OpSupport] = {op.name: op for op in OPS}

#: dialect types of refused ops (pretty names without `!`) -> why
UNSUPPORTED_TYPES: dict[str, str] = {
    "stablehlo.token": _TOKEN,
    "mhlo.token": _TOKEN,
    "stablehlo.future": _ASYNC,
    "mhlo.async_bundle": _ASYNC,
    "quant.uniform": _QUANT,
}


def refusal_message(name: str) -> str | None:
    """The error for op `name` when disc-ir refuses it (None if it does not)."""
    entry = BY_NAME.get(name)
    if entry is None or entry.status != REFUSED:
        return None
    return f"'{name}' is not supported by disc-ir: {entry.note}"


def type_refusal_message(name: str) -> str | None:
    """The error for the dialect type `name` (e.g. `stablehlo.token`), or None."""
    why = UNSUPPORTED_TYPES.get(name)
    return None if why is None else f"'!{name}' is not supported by disc-ir: {why}"


__all__ = [
    "BY_NAME",
    "COMPILED",
    "OPS",
    "REFUSED",
    "UNSUPPORTED_TYPES",
    "OpSupport",
    "refusal_message",
    "type_refusal_message",
]
