"""numpy implementations of oneDNN Graph ops, written from oneDNN's op documentation.

`run_reference(graph_obj, inputs)` evaluates a decoded benchdnn JSON graph on
`{tensor id: array}` and returns every logical tensor it computed. Independent
of disc-ir: the windows of convolution and pooling are explicit loops over
kernel offsets, interpolation follows oneDNN's resampling reference
(`roundf` for nearest; `left`/`right` and |s - trunc(s)| weights for linear).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_ERF = np.vectorize(math.erf, otypes=[np.float64])


def _attrs(op: dict[str, Any]) -> dict[str, Any]:
    return {k: v["value"] for k, v in op.get("attrs", {}).items()}


def _channel_last(a: dict[str, Any]) -> bool:
    return a.get("data_format", "NXC") == "NXC"


def _to_ncx(x: np.ndarray, nxc: bool) -> np.ndarray:
    return np.moveaxis(x, -1, 1) if nxc else x


def _from_ncx(x: np.ndarray, nxc: bool) -> np.ndarray:
    return np.moveaxis(x, 1, -1) if nxc else x


def _pads(
    a: dict[str, Any], sizes: list[int], k: list[int], s: list[int], d: list[int]
) -> tuple[list[int], list[int]]:
    auto = str(a.get("auto_pad", "none")).lower()
    n = len(k)
    if auto in ("none", ""):
        return list(a["pads_begin"])[:n], list(a["pads_end"])[:n]
    if auto == "valid":
        return [0] * n, [0] * n
    pb, pe = [], []
    for i in range(n):
        out = -(-sizes[i] // s[i])
        total = max((out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - sizes[i], 0)
        lo = total // 2 if auto == "same_upper" else total - total // 2
        pb.append(lo)
        pe.append(total - lo)
    return pb, pe


def conv_ncx(x: np.ndarray, w: np.ndarray, strides, pb, pe, dil, groups: int) -> np.ndarray:
    """Direct convolution: x [N, C, X...], w [O, C/g, K...] (float64 accumulate)."""
    n_sp = x.ndim - 2
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    pad = [(0, 0), (0, 0)] + [(max(p, 0), max(q, 0)) for p, q in zip(pb, pe, strict=True)]
    xp = np.pad(x, pad)
    for i, q in enumerate(pe):
        if q < 0:
            xp = np.take(xp, range(xp.shape[2 + i] + q), axis=2 + i)
    ks = w.shape[2:]
    outs = [(xp.shape[2 + i] - ((ks[i] - 1) * dil[i] + 1)) // strides[i] + 1 for i in range(n_sp)]
    N, C = x.shape[:2]
    n_out = w.shape[0]
    cg, og = C // groups, n_out // groups
    y = np.zeros((N, n_out, *outs))
    for kidx in np.ndindex(*ks):
        sl = tuple(
            slice(kidx[i] * dil[i], kidx[i] * dil[i] + (outs[i] - 1) * strides[i] + 1, strides[i])
            for i in range(n_sp)
        )
        patch = xp[(slice(None), slice(None), *sl)]
        for g in range(groups):
            wk = w[(slice(g * og, (g + 1) * og), slice(None), *kidx)]
            y[:, g * og : (g + 1) * og] += np.einsum(
                "nc...,oc->no...", patch[:, g * cg : (g + 1) * cg], wk
            )
    return y


def conv_transpose_ncx(
    x: np.ndarray, w_oi: np.ndarray, strides, pb, pe, dil, out_pad, groups: int
) -> np.ndarray:
    """Transposed convolution by scatter: w_oi [O, C_in/g, K...]."""
    n_sp = x.ndim - 2
    N, C = x.shape[:2]
    og = w_oi.shape[0] // groups
    cg = C // groups
    ks = w_oi.shape[2:]
    full = [
        (x.shape[2 + i] - 1) * strides[i] + (ks[i] - 1) * dil[i] + 1 + out_pad[i]
        for i in range(n_sp)
    ]
    y = np.zeros((N, og * groups, *full))
    xd = x.astype(np.float64)
    for kidx in np.ndindex(*ks):
        sl = tuple(
            slice(
                kidx[i] * dil[i],
                kidx[i] * dil[i] + (x.shape[2 + i] - 1) * strides[i] + 1,
                strides[i],
            )
            for i in range(n_sp)
        )
        for g in range(groups):
            wk = w_oi[(slice(g * og, (g + 1) * og), slice(None), *kidx)].astype(np.float64)
            y[(slice(None), slice(g * og, (g + 1) * og), *sl)] += np.einsum(
                "nc...,oc->no...", xd[:, g * cg : (g + 1) * cg], wk
            )
    crop = tuple(slice(pb[i], full[i] - pe[i]) for i in range(n_sp))
    return y[(slice(None), slice(None), *crop)]


def pool_ncx(x: np.ndarray, kind: str, a: dict[str, Any]) -> np.ndarray:
    n_sp = x.ndim - 2
    k = list(a["kernel"])
    s = list(a["strides"])
    d = list(a.get("dilations", [1] * n_sp)) if kind == "MaxPool" else [1] * n_sp
    sizes = list(x.shape[2:])
    pb, pe = _pads(a, sizes, k, s, d)
    ceil = a.get("rounding_type", "floor") == "ceil"
    outs = []
    for i in range(n_sp):
        span = sizes[i] + pb[i] + pe[i] - ((k[i] - 1) * d[i] + 1)
        outs.append((-(-span // s[i]) if ceil else span // s[i]) + 1)
    y = np.zeros((*x.shape[:2], *outs), np.float64)
    xd = x.astype(np.float64)
    for o in np.ndindex(*outs):
        starts = [o[i] * s[i] - pb[i] for i in range(n_sp)]
        idx = []
        for i in range(n_sp):
            pos = [starts[i] + j * d[i] for j in range(k[i])]
            idx.append([p for p in pos if 0 <= p < sizes[i]])
        win = xd[(slice(None), slice(None), *np.ix_(*idx))] if all(idx) else None
        if kind == "MaxPool":
            y[(slice(None), slice(None), *o)] = win.reshape(*x.shape[:2], -1).max(-1)
        else:
            total = win.reshape(*x.shape[:2], -1).sum(-1) if win is not None else 0.0
            if a["exclude_pad"]:
                denom = math.prod(len(v) for v in idx)
            else:
                denom = math.prod(k)
            y[(slice(None), slice(None), *o)] = total / denom
    return y


def _roundf(v: np.ndarray) -> np.ndarray:
    return np.where(v >= 0, np.floor(v + 0.5), np.ceil(v - 0.5))


def interpolate_ncx(x: np.ndarray, a: dict[str, Any], out_sizes: list[int]) -> np.ndarray:
    mode = a["mode"]
    align = a.get("coordinate_transformation_mode", "half_pixel") == "align_corners"
    y = x.astype(np.float64)
    for i, out in enumerate(out_sizes):
        axis = 2 + i
        size = x.shape[axis]
        o = np.arange(out, dtype=np.float32)
        if align:
            s = (
                np.zeros(out, np.float32)
                if out == 1
                else o * np.float32(size - 1) / np.float32(out - 1)
            )
        else:
            s = (o + np.float32(0.5)) * np.float32(size) / np.float32(out) - np.float32(0.5)
        if mode == "nearest":
            idx = np.clip(_roundf(s), 0, size - 1).astype(int)
            y = np.take(y, idx, axis=axis)
        else:
            left = np.clip(np.floor(s), 0, size - 1).astype(int)
            right = np.clip(np.where(s < 0, 0, np.ceil(s)), 0, size - 1).astype(int)
            w = np.abs(s - np.trunc(s)).astype(np.float64)
            shape = [1] * y.ndim
            shape[axis] = out
            w = w.reshape(shape)
            y = np.take(y, left, axis=axis) * (1 - w) + np.take(y, right, axis=axis) * w
    return y


def _softplus(x: np.ndarray, beta: float = 1.0) -> np.ndarray:
    return np.logaddexp(0.0, beta * x) / beta


def eltwise(kind: str, x: np.ndarray, a: dict[str, Any]) -> np.ndarray:
    x = x.astype(np.float64)
    if kind == "ReLU":
        return np.maximum(x, 0)
    if kind == "Sigmoid":
        return 1 / (1 + np.exp(-x))
    if kind == "Tanh":
        return np.tanh(x)
    if kind == "Exp":
        return np.exp(x)
    if kind == "Log":
        return np.log(x)
    if kind == "Sqrt":
        return np.sqrt(x)
    if kind == "Square":
        return x * x
    if kind == "Abs":
        return np.abs(x)
    if kind == "Round":
        return np.rint(x)  # nearbyint: halfway cases to even
    if kind == "Reciprocal":
        return 1 / x
    if kind == "GELU":
        if a.get("mode", "gelu_erf") == "gelu_tanh":
            return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
        return 0.5 * x * (1 + _ERF(x / math.sqrt(2)))
    if kind == "Elu":
        return np.where(x > 0, x, a["alpha"] * (np.exp(x) - 1))
    if kind == "LeakyReLU":
        return np.where(x >= 0, x, a["alpha"] * x)
    if kind == "Clamp":
        return np.clip(x, a["min"], a["max"])
    if kind == "HardSwish":
        return x * np.clip(x + 3, 0, 6) / 6
    if kind == "HardSigmoid":
        return np.clip(a["alpha"] * x + a["beta"], 0, 1)
    if kind == "SoftPlus":
        return _softplus(x, float(a.get("beta", 1.0)))
    if kind == "Mish":
        return x * np.tanh(_softplus(x))
    if kind == "Pow":
        return np.power(x, a["beta"])
    raise KeyError(kind)


_ELTWISE = {
    "ReLU", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Square", "Abs", "Round", "Reciprocal",
    "GELU", "Elu", "LeakyReLU", "Clamp", "HardSwish", "HardSigmoid", "SoftPlus", "Mish", "Pow",
}  # fmt: skip

_BINARY = {
    "Add": np.add,
    "Subtract": np.subtract,
    "Multiply": np.multiply,
    "Divide": np.divide,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
    "SquaredDifference": lambda p, q: (p - q) ** 2,
}


def _chan(x: np.ndarray, v: np.ndarray, nxc: bool) -> np.ndarray:
    shape = [1] * x.ndim
    shape[-1 if nxc else 1] = v.shape[0]
    return v.reshape(shape)


def _matmul(a: np.ndarray, b: np.ndarray, at: dict[str, Any]) -> np.ndarray:
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    if at.get("transpose_a", False) and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if at.get("transpose_b", False) and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def run_op(
    op: dict[str, Any], ins: list[np.ndarray], out_shapes: list[list[int]]
) -> list[np.ndarray]:
    kind = op["kind"]
    a = _attrs(op)
    if kind in _BINARY:
        return [_BINARY[kind](ins[0].astype(np.float64), ins[1].astype(np.float64))]
    if kind in _ELTWISE:
        return [eltwise(kind, ins[0], a)]
    if kind == "MatMul":
        y = _matmul(ins[0], ins[1], a)
        return [y + ins[2] if len(ins) == 3 else y]
    if kind == "BiasAdd":
        return [ins[0] + _chan(ins[0], ins[1], _channel_last(a))]
    if kind in ("SoftMax", "LogSoftmax"):
        axis = a.get("axis", 1 if kind == "SoftMax" else -1)
        x = ins[0].astype(np.float64)
        e = np.exp(x - x.max(axis, keepdims=True))
        sm = e / e.sum(axis, keepdims=True)
        return [sm if kind == "SoftMax" else np.log(sm)]
    if kind == "LayerNorm":
        x = ins[0].astype(np.float64)
        begin = a.get("begin_norm_axis", -1) % x.ndim
        axes = tuple(range(begin, x.ndim))
        mean = x.mean(axes, keepdims=True)
        var = ((x - mean) ** 2).mean(axes, keepdims=True)
        y = (x - mean) / np.sqrt(var + a.get("epsilon", 1e-5))
        if a.get("use_affine", True):
            y = y * ins[1] + ins[2]
        return [y, mean.reshape(x.shape[:begin]), var.reshape(x.shape[:begin])]
    if kind == "BatchNormInference":
        x, g, b, m, v = ins
        nxc = _channel_last(a)
        return [
            (x - _chan(x, m, nxc)) / np.sqrt(_chan(x, v, nxc) + a["epsilon"]) * _chan(x, g, nxc)
            + _chan(x, b, nxc)
        ]
    if kind == "BatchNormTrainingBackward":
        x, dd, m, v = (t.astype(np.float64) for t in ins[:4])
        nxc = _channel_last(a)
        axes = tuple(i for i in range(x.ndim) if i != (x.ndim - 1 if nxc else 1))
        inv = 1 / np.sqrt(_chan(x, v, nxc) + a["epsilon"])
        xhat = (x - _chan(x, m, nxc)) * inv
        n = math.prod(x.shape[i] for i in axes)
        db = dd.sum(axes, keepdims=True)
        dg = (dd * xhat).sum(axes, keepdims=True)
        g = _chan(x, ins[4], nxc) if len(ins) == 5 and len(op["outputs"]) > 1 else 1.0
        ds = g * inv * (dd - db / n - xhat * dg / n)
        return [ds, dg.reshape(-1), db.reshape(-1)]
    if kind == "ReLUBackward":
        return [np.where(ins[0] > 0, ins[1], 0.0)]
    if kind.startswith("Reduce"):
        x = ins[0].astype(np.float64)
        axes = tuple(ax % x.ndim for ax in a["axes"])
        keep = bool(a.get("keep_dims", False))
        fn = {
            "ReduceSum": lambda t: t.sum(axes, keepdims=keep),
            "ReduceProd": lambda t: t.prod(axes, keepdims=keep),
            "ReduceMax": lambda t: t.max(axes, keepdims=keep),
            "ReduceMin": lambda t: t.min(axes, keepdims=keep),
            "ReduceMean": lambda t: t.mean(axes, keepdims=keep),
            "ReduceL1": lambda t: np.abs(t).sum(axes, keepdims=keep),
            "ReduceL2": lambda t: np.sqrt((t * t).sum(axes, keepdims=keep)),
        }[kind]
        return [fn(x)]
    if kind == "StaticTranspose":
        return [np.transpose(ins[0], a["order"])]
    if kind == "StaticReshape":
        shape = [
            ins[0].shape[i] if (s == 0 and a["special_zero"]) else s
            for i, s in enumerate(a["shape"])
        ]
        return [ins[0].reshape(shape)]
    if kind in ("Reorder", "End"):
        return [ins[0]]
    if kind == "TypeCast":
        return [ins[0]]
    if kind == "Select":
        return [np.where(ins[0], ins[1], ins[2])]
    if kind == "GreaterEqual":
        return [ins[0] >= ins[1]]
    if kind == "GenIndex":
        x = ins[0]
        axis = a["axis"] % x.ndim
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        return [np.broadcast_to(np.arange(x.shape[axis]).reshape(shape), x.shape).astype(np.int32)]
    if kind == "Concat":
        return [np.concatenate(ins, axis=a["axis"])]
    if kind == "PReLU":
        x, s = ins
        if s.ndim == 1 and x.ndim >= 2 and a.get("per_channel_broadcast", True):
            s = _chan(x, s, _channel_last(a))
        return [np.where(x >= 0, x, x * s)]
    if kind == "Convolution":
        nxc = _channel_last(a)
        x = _to_ncx(ins[0], nxc)
        w = ins[1]
        if a.get("weights_format", "XIO") == "XIO":
            w = np.moveaxis(np.moveaxis(w, -1, 0), -1, 1)
        n = x.ndim - 2
        k = list(w.shape[2:])
        s, d = list(a["strides"]), list(a["dilations"])
        pb, pe = _pads(a, list(x.shape[2:]), k, s, d)
        y = conv_ncx(x, w, s, pb, pe, d, int(a.get("groups", 1)))
        if len(ins) == 3:
            y = y + ins[2].reshape(1, -1, *([1] * n))
        return [_from_ncx(y, nxc)]
    if kind == "ConvTranspose":
        nxc = _channel_last(a)
        x = _to_ncx(ins[0], nxc)
        w = ins[1]
        fmt = a.get("weights_format", "XIO")
        r = w.ndim
        if fmt == "IOX":
            w = np.swapaxes(w, 0, 1)
        elif fmt == "XIO":
            w = np.transpose(w, [r - 1, r - 2, *range(r - 2)])
        elif fmt == "XOI":
            w = np.transpose(w, [r - 2, r - 1, *range(r - 2)])
        # now [O, C_in/g, K...]
        n = x.ndim - 2
        s, d = list(a["strides"]), list(a["dilations"])
        out_pad = list(a.get("output_padding", [0] * n))[:n]
        y = conv_transpose_ncx(
            x,
            w,
            s,
            list(a["pads_begin"])[:n],
            list(a["pads_end"])[:n],
            d,
            out_pad,
            int(a.get("groups", 1)),
        )
        if len(ins) == 3:
            y = y + ins[2].reshape(1, -1, *([1] * n))
        return [_from_ncx(y, nxc)]
    if kind in ("MaxPool", "AvgPool"):
        nxc = _channel_last(a)
        return [_from_ncx(pool_ncx(_to_ncx(ins[0], nxc), kind, a), nxc)]
    if kind == "Interpolate":
        nxc = _channel_last(a)
        x = _to_ncx(ins[0], nxc)
        out = out_shapes[0]
        sp = out[1:-1] if nxc else out[2:]
        if a.get("sizes"):
            sp = list(a["sizes"])
        return [_from_ncx(interpolate_ncx(x, a, list(sp)), nxc)]
    raise KeyError(f"no reference for {kind}")


def run_reference(graph: dict[str, Any], inputs: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Every logical tensor of `graph` computed from `inputs` (float64 for floats)."""
    env: dict[int, np.ndarray] = dict(inputs)
    pending = list(graph["graph"])
    while pending:
        progressed = False
        for op in list(pending):
            if all(t["id"] in env for t in op["inputs"]):
                ins = [env[t["id"]] for t in op["inputs"]]
                outs = run_op(op, ins, [t["shape"] for t in op["outputs"]])
                for t, v in zip(op["outputs"], outs, strict=False):
                    if t["dtype"] == "f32":
                        v = np.asarray(v, np.float64)
                    env[t["id"]] = np.asarray(v)
                pending.remove(op)
                progressed = True
        if not progressed:
            raise ValueError("reference: the graph has unresolvable inputs")
    return env
