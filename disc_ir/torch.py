"""Compile PyTorch models with disc-ir: torch.export, torch-mlir's StableHLO, then the pipeline.

    import torch
    import disc_ir.torch

    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.GELU()).eval()
    x = torch.randn(8, 64)
    batch = torch.export.Dim("batch")
    exe = disc_ir.torch.compile(model, (x,), dynamic_shapes=({0: batch},))
    y = exe(torch.randn(5, 64))                     # any batch size, one compile

`compile(module_or_fn, example_inputs, dynamic_shapes=None, target="cpu", **compile_options)`
exports `module_or_fn` with `torch.export.export` (`dynamic_shapes` in
torch.export's form: `torch.export.Dim` objects per dynamic axis, by
argument name or position), imports the program with torch-mlir's FX
importer as StableHLO (`torch_mlir.fx.export_and_import(...,
output_type="stablehlo")`: parameters and buffers become
`dense_resource<...>` constants) and compiles that text with
`disc_ir.compile`. The `TorchExecutable` takes and returns torch tensors:
CPU tensors reach the runtime through DLPack (`numpy.from_dlpack`, no copy)
and the outputs come back with `torch.from_dlpack` (no copy either).

`torch.compile(model, backend="disc")` uses `disc_backend`, registered
through the `torch_dynamo_backends` entry point: each graph dynamo captures
is exported and compiled once, with every dimension dynamo made symbolic
(`dynamic=True`, or dynamo's automatic dynamic shapes after a shape changed)
dynamic in the compiled code. A graph disc-ir cannot compile runs eagerly,
after a one-line `DiscFallbackWarning` naming the op that stopped it (as
TorchBlade's plugin mode falls back per unsupported subgraph). The backend
serves inference: a graph captured with autograd recording (grad mode on and
an input that requires grad) runs eagerly too.

torch and torch-mlir are optional (`pip install 'disc-ir[torch]'`): `import
disc_ir` never imports them, and importing this module without them raises
an ImportError that says so.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

try:
    import torch
    from torch_mlir import fx as torch_mlir_fx
except ImportError as exc:  # pragma: no cover - exercised through a subprocess test
    raise ImportError(
        "disc_ir.torch needs torch and torch-mlir: install the 'torch' extra "
        "(pip install 'disc-ir[torch]')"
    ) from exc

import numpy as np

from disc_ir.api import CompileError, Executable
from disc_ir.api import compile as compile_source
from disc_ir.runtime import RalInputError

#: torch dtypes the runtime takes as another dtype's bits (numpy has no bfloat16)
_BITS_AS = {torch.bfloat16: torch.uint16}


class DiscFallbackWarning(UserWarning):
    """A graph `disc_backend` could not compile runs eagerly; the message names the op."""


class _Function(torch.nn.Module):
    """A plain function as the module torch.export takes."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _positional_shapes(fn: Callable[..., Any], dynamic_shapes: Any, count: int) -> Any:
    """A function's `dynamic_shapes` keyed by its parameter names, as a tuple by position."""
    if not isinstance(dynamic_shapes, Mapping):
        return dynamic_shapes
    try:
        names = list(inspect.signature(fn).parameters)[:count]
    except (TypeError, ValueError):
        raise TypeError(
            "dynamic_shapes: give a tuple by position for a function without a signature"
        ) from None
    unknown = set(dynamic_shapes) - set(names)
    if unknown:
        raise ValueError(
            f"dynamic_shapes: {sorted(unknown)} are not parameters of {fn.__name__}{tuple(names)}"
        )
    return tuple(dynamic_shapes.get(name) for name in names)


@contextlib.contextmanager
def _quiet_pytree_deprecation() -> Iterator[None]:
    """Silences torch's `LeafSpec` deprecation warning, which torch.export's own copies of
    tree specs raise at every export (nothing a caller can change)."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r".*isinstance\(treespec, LeafSpec\)", category=FutureWarning
        )
        yield


def export(
    module_or_fn: torch.nn.Module | Callable[..., Any],
    example_inputs: Sequence[Any] | torch.Tensor,
    dynamic_shapes: Any = None,
) -> torch.export.ExportedProgram:
    """`torch.export.export` of a module (or a function) at the example inputs."""
    args = (example_inputs,) if isinstance(example_inputs, torch.Tensor) else tuple(example_inputs)
    if isinstance(module_or_fn, torch.nn.Module):
        module = module_or_fn
    elif callable(module_or_fn):
        module = _Function(module_or_fn)
        dynamic_shapes = _positional_shapes(module_or_fn, dynamic_shapes, len(args))
        if dynamic_shapes is not None:
            dynamic_shapes = {"args": tuple(dynamic_shapes)}
    else:
        raise TypeError(f"expected a torch.nn.Module or a function, got {type(module_or_fn)!r}")
    with _quiet_pytree_deprecation():
        return torch.export.export(module, args, dynamic_shapes=dynamic_shapes)


def _with_all_buffers(program: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """`program`, or a shallow copy whose state dict also holds the non-persistent buffers
    (torch.export keeps those among the constants, where torch-mlir's importer does not look)."""
    missing = {
        spec.target: program.constants[spec.target]
        for spec in program.graph_signature.input_specs
        if spec.kind == torch.export.graph_signature.InputKind.BUFFER
        and spec.target is not None
        and spec.target not in program.state_dict
        and spec.target in program.constants
    }
    if not missing:
        return program
    copied = copy.copy(program)
    copied._state_dict = {**program.state_dict, **missing}
    return copied


def _transformer_encoder_layer_fwd(
    src: torch.Tensor,
    embed_dim: int,
    num_heads: int,
    qkv_weight: torch.Tensor,
    qkv_bias: torch.Tensor,
    proj_weight: torch.Tensor,
    proj_bias: torch.Tensor,
    use_gelu: bool,
    norm_first: bool,
    eps: float,
    norm_weight_1: torch.Tensor,
    norm_bias_1: torch.Tensor,
    norm_weight_2: torch.Tensor,
    norm_bias_2: torch.Tensor,
    ffn_weight_1: torch.Tensor,
    ffn_bias_1: torch.Tensor,
    ffn_weight_2: torch.Tensor,
    ffn_bias_2: torch.Tensor,
    mask: torch.Tensor | None = None,
    mask_type: int | None = None,
) -> Any:
    """`aten._transformer_encoder_layer_fwd` (nn.TransformerEncoderLayer's inference fast
    path, taken under no_grad) in the ops its slow path computes: attention through
    `scaled_dot_product_attention`, layer norms, the feed-forward network. A mask is left
    to the fused op (NotImplemented keeps it undecomposed)."""
    if mask is not None or src.dim() != 3:
        return NotImplemented
    functional = torch.nn.functional
    batch, length = src.shape[0], src.shape[1]
    head_dim = embed_dim // num_heads

    def self_attention(x: torch.Tensor) -> torch.Tensor:
        q, k, v = functional.linear(x, qkv_weight, qkv_bias).chunk(3, dim=-1)
        q, k, v = (t.reshape(batch, length, num_heads, head_dim).transpose(1, 2) for t in (q, k, v))
        y = functional.scaled_dot_product_attention(q, k, v)
        y = y.transpose(1, 2).reshape(batch, length, embed_dim)
        return functional.linear(y, proj_weight, proj_bias)

    def feed_forward(x: torch.Tensor) -> torch.Tensor:
        h = functional.linear(x, ffn_weight_1, ffn_bias_1)
        h = functional.gelu(h) if use_gelu else functional.relu(h)
        return functional.linear(h, ffn_weight_2, ffn_bias_2)

    def norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return functional.layer_norm(x, (embed_dim,), weight, bias, eps)

    if norm_first:
        x = src + self_attention(norm(src, norm_weight_1, norm_bias_1))
        return x + feed_forward(norm(x, norm_weight_2, norm_bias_2))
    x = norm(src + self_attention(src), norm_weight_1, norm_bias_1)
    return norm(x + feed_forward(x), norm_weight_2, norm_bias_2)


def decomposition_table() -> dict[Any, Callable[..., Any]]:
    """torch-mlir's decompositions, plus PyTorch's fused inference fast paths in plain ops."""
    table = dict(torch_mlir_fx.get_decomposition_table())
    table[torch.ops.aten._transformer_encoder_layer_fwd.default] = _transformer_encoder_layer_fwd
    return table


def to_stablehlo(program: torch.export.ExportedProgram) -> str:
    """The StableHLO text torch-mlir's FX importer makes of an exported program
    (parameters and buffers as `dense_resource` constants)."""
    # torch-mlir's decompositions first (they re-verify the program), then the import
    try:
        with _quiet_pytree_deprecation():
            program = program.run_decompositions(decomposition_table())
            program = _with_all_buffers(program)
            module = torch_mlir_fx.export_and_import(
                program, output_type="stablehlo", decomposition_table={}
            )
    except Exception as exc:  # noqa: BLE001 - torch-mlir raises many kinds
        op = _unsupported_op(program)
        reason = f"{op} has no StableHLO lowering" if op else _first_line(exc)
        raise CompileError(f"torch-mlir cannot lower the program to StableHLO: {reason}") from None
    return str(module)


#: torch-mlir's lowering from its torch backend IR to StableHLO
_STABLEHLO_PIPELINE = (
    "builtin.module(torch-backend-to-stablehlo-backend-pipeline{allow-non-finites=True})"
)


def _unsupported_op(program: torch.export.ExportedProgram) -> str | None:
    """The torch op (`torch.aten.xxx`) at which torch-mlir's StableHLO lowering of `program`
    fails, found by running that lowering again with its diagnostics; None when unknown."""
    from torch_mlir.ir import MLIRError
    from torch_mlir.passmanager import PassManager

    try:
        module = torch_mlir_fx.export_and_import(
            program, output_type="torch", decomposition_table={}
        )
    except Exception:  # noqa: BLE001 - the failure was before the lowering
        return None
    by_location: dict[str, str] = {}

    def visit(op: Any) -> None:
        name = op.name
        if name.startswith(("torch.aten.", "torch.prims.", "torch.prim.")):
            by_location.setdefault(str(op.location), name)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    visit(inner.operation)

    visit(module.operation)
    seen: list[tuple[str, str]] = []

    def collect(diagnostic: Any) -> bool:
        seen.append((str(diagnostic.location), str(diagnostic.message)))
        return True  # handled: not printed

    handler = module.context.attach_diagnostic_handler(collect)
    try:
        with module.context:
            PassManager.parse(_STABLEHLO_PIPELINE).run(module.operation)
    except MLIRError:
        pass
    finally:
        handler.detach()
    for location, message in seen:
        named = re.search(r"operation '([\w.]+)'", message)
        if named is not None and named.group(1).startswith("torch.aten."):
            return named.group(1)
        found = by_location.get(location)
        if found is not None:
            return found
        if named is not None:
            return named.group(1)
    return None


def to_runtime(tensor: torch.Tensor) -> Any:
    """What the runtime reads for `tensor`: a numpy view of a CPU tensor (DLPack, no copy),
    the tensor itself on a device (the runtime takes it through DLPack)."""
    tensor = tensor.detach()
    bits = _BITS_AS.get(tensor.dtype)
    if bits is not None:
        tensor = tensor.view(bits)
    if tensor.device.type != "cpu":
        return tensor
    if tensor.is_conj() or tensor.is_neg():
        tensor = tensor.resolve_conj().resolve_neg()
    return np.from_dlpack(tensor)


def from_runtime(array: Any, dtype: torch.dtype) -> torch.Tensor:
    """A runtime output as a tensor of `dtype` (DLPack, no copy)."""
    out = torch.from_dlpack(array)
    return out.view(dtype) if dtype in _BITS_AS else out


class TorchExecutable:
    """A PyTorch program compiled by disc-ir: call it with tensors as the exported program takes them.

    `program` is the `torch.export.ExportedProgram`, `stablehlo` the text that
    was compiled, `executable` the underlying `disc_ir.Executable`.
    """

    def __init__(
        self, program: torch.export.ExportedProgram, stablehlo: str, executable: Executable
    ) -> None:
        self.program = program
        self.stablehlo = stablehlo
        self.executable = executable
        self._out_dtypes = [
            _meta_dtype(program, s.arg) for s in program.graph_signature.output_specs
        ]
        # `call_spec` is computed at each access: read once
        self._in_spec = program.call_spec.in_spec
        self._out_spec = program.call_spec.out_spec

    def __repr__(self) -> str:
        return f"<disc_ir.torch.TorchExecutable: {self.executable!r}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        flat, spec = torch.utils._pytree.tree_flatten((args, kwargs))
        expected = self._in_spec
        if expected is not None and spec is not expected and spec != expected:
            got = [type(a).__name__ for a in args] + [
                f"{k}={type(v).__name__}" for k, v in kwargs.items()
            ]
            raise TypeError(
                f"expected the arguments the program was exported with ({expected.num_leaves} "
                f"tensor(s)), got ({', '.join(got)})"
            )
        for i, value in enumerate(flat):
            if not isinstance(value, torch.Tensor):
                raise RalInputError(
                    f"input {i}: expected a torch.Tensor, got {type(value).__name__}"
                )
        outs = self.executable(*[to_runtime(t) for t in flat])
        tensors = [from_runtime(o, d) for o, d in zip(outs, self._out_dtypes, strict=True)]
        return torch.utils._pytree.tree_unflatten(tensors, self._out_spec)

    def close(self) -> None:
        """Releases the compiled code's RAL context."""
        self.executable.close()

    def __enter__(self) -> TorchExecutable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _meta_dtype(program: torch.export.ExportedProgram, arg: Any) -> torch.dtype:
    name = getattr(arg, "name", None)
    for node in program.graph.nodes:
        if node.name == name:
            value = node.meta.get("val")
            if isinstance(value, torch.Tensor):
                return value.dtype
    raise CompileError(f"output {name!r} of the exported program is not a tensor")


def compile(  # noqa: A001 - mirrors disc_ir.compile and torch.compile
    module_or_fn: torch.nn.Module | Callable[..., Any],
    example_inputs: Sequence[Any] | torch.Tensor,
    dynamic_shapes: Any = None,
    target: str = "cpu",
    **compile_options: Any,
) -> TorchExecutable:
    """Exports `module_or_fn` at `example_inputs` (dynamic where `dynamic_shapes` says) and compiles it.

    `dynamic_shapes` is torch.export's argument (`torch.export.Dim` per dynamic
    axis; for a function, by parameter name or position). `compile_options` go
    to `disc_ir.compile` (`verify`, `dump_dir`, `keep_ir`, `num_threads`).
    Raises `disc_ir.CompileError` when torch-mlir or disc-ir cannot compile it.
    """
    program = export(module_or_fn, example_inputs, dynamic_shapes)
    text = to_stablehlo(program)
    return TorchExecutable(program, text, compile_source(text, target=target, **compile_options))


# ---------------------------------------------------------------------------
# torch.compile backend
# ---------------------------------------------------------------------------

_OP_PATTERNS = (
    re.compile(r"\b(torch\.(?:aten|prims?)\.[\w.]+) has no StableHLO lowering"),
    re.compile(r"'(torch\.aten\.[\w.]+|aten\.[\w.]+)'"),
    re.compile(r"\b(aten\.[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)"),
    re.compile(r"'([a-z_]+\.[\w.]+)' op"),
    re.compile(r"operation '([a-z_]+\.[\w.]+)'"),
)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def failing_op(exc: BaseException) -> str:
    """The op an export or compile error names (`aten.xxx`, `mhlo.xxx`), or `unknown op`."""
    text = str(exc)
    for pattern in _OP_PATTERNS:
        found = pattern.search(text)
        if found is not None:
            return found.group(1)
    return "unknown op"


class _SizesFromTensors(torch.nn.Module):
    """A dynamo graph that takes only its tensors: each size argument is read off the
    tensor dimension that carries the same symbol."""

    def __init__(
        self,
        graph: torch.fx.GraphModule,
        count: int,
        tensor_positions: list[int],
        size_sources: dict[int, tuple[int, int]],
    ) -> None:
        super().__init__()
        self.graph_module = graph
        self.count = count
        self.tensor_positions = tensor_positions
        self.size_sources = size_sources
        #: scalar inputs replaced by their value (`_bake_scalars`): the graph does not read them
        self.baked: dict[int, Any] = {}

    def forward(self, *tensors: torch.Tensor) -> Any:
        args: list[Any] = [None] * self.count
        for position, tensor in zip(self.tensor_positions, tensors, strict=True):
            args[position] = tensor
        for position, (tensor_position, dim) in self.size_sources.items():
            args[position] = args[tensor_position].shape[dim]
        return self.graph_module(*args)


def _placeholder_values(graph: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> list[Any]:
    """Each graph input's symbolic value (dynamo's fake tensor or SymInt), else the example."""
    nodes = [n for n in graph.graph.nodes if n.op == "placeholder"]
    values = []
    for node, example in zip(nodes, example_inputs, strict=True):
        value = node.meta.get("example_value", node.meta.get("val"))
        values.append(example if value is None else value)
    return values


def _substitute(user: torch.fx.Node, node: torch.fx.Node, value: Any) -> None:
    """Replaces `node` by the constant `value` among `user`'s arguments."""

    def replace(arg: torch.fx.Node) -> Any:
        return value if arg is node else arg

    user.args = torch.fx.node.map_arg(user.args, replace)
    user.kwargs = torch.fx.node.map_arg(user.kwargs, replace)


def _bake_scalars(graph: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> dict[int, Any]:
    """Replaces each 0-d tensor input that the graph only reads with `.item()` (dynamo
    passes float attributes such as LayerNorm's eps so) by its example value, in place;
    returns `{input position: value}` (calls check the value, see `_LazyGraph`)."""
    baked: dict[int, Any] = {}
    placeholders = [n for n in graph.graph.nodes if n.op == "placeholder"]
    for i, (node, example) in enumerate(zip(placeholders, example_inputs, strict=True)):
        if not isinstance(example, torch.Tensor) or example.dim() != 0 or not node.users:
            continue
        users = list(node.users)
        if not all(u.op == "call_method" and u.target == "item" for u in users):
            continue
        value = example.item()
        for item in users:
            for user in list(item.users):
                _substitute(user, item, value)
            graph.graph.erase_node(item)
        baked[i] = value
    if baked:
        graph.recompile()
    return baked


def _symbol(size: Any) -> str | None:
    """The symbol a dimension is (`s0`), None for a static one; ValueError for an expression."""
    if isinstance(size, int):
        return None
    if isinstance(size, torch.SymInt):
        expr = size.node.expr
        if getattr(expr, "is_Symbol", False):
            return str(expr)
        if getattr(expr, "is_Integer", False):
            return None
        raise ValueError(f"an input dimension is the expression {expr}, not a symbol")
    raise ValueError(f"unexpected dimension {size!r}")


def _prepare(
    graph: torch.fx.GraphModule, example_inputs: Sequence[Any]
) -> tuple[_SizesFromTensors, tuple[dict[int, Any], ...]]:
    """The graph as a tensors-only module and torch.export's dynamic shapes of its tensors;
    ValueError for a graph input that is neither a tensor nor a tensor's dimension."""
    values = _placeholder_values(graph, example_inputs)
    # a copy: the caller's graph stays the eager fallback
    graph = torch.fx.GraphModule(graph, copy.deepcopy(graph.graph))
    baked = _bake_scalars(graph, example_inputs)
    tensor_positions = [
        i for i, v in enumerate(values) if isinstance(v, torch.Tensor) and i not in baked
    ]
    where: dict[str, tuple[int, int]] = {}
    shapes: list[dict[int, Any]] = []
    for i in tensor_positions:
        spec: dict[int, Any] = {}
        for d, size in enumerate(values[i].shape):
            name = _symbol(size)
            if name is not None:
                # Dim.DYNAMIC: export keeps the dimension symbolic under the guards dynamo
                # already took (e.g. a strided conv's output size is not 1)
                spec[d] = torch.export.Dim.DYNAMIC
                where.setdefault(name, (i, d))
        shapes.append(spec)
    size_sources: dict[int, tuple[int, int]] = {}
    for i, value in enumerate(values):
        if i in tensor_positions or i in baked:
            continue
        if not isinstance(value, torch.SymInt):
            raise ValueError(f"graph input {i} is a {type(value).__name__}, not a tensor or a size")
        name = _symbol(value)
        if name is None or name not in where:
            raise ValueError(f"graph input {i} ({value}) is no dimension of an input tensor")
        size_sources[i] = where[name]
    module = _SizesFromTensors(graph, len(values), tensor_positions, size_sources)
    module.baked = baked
    return module, tuple(shapes)


def _needs_autograd(example_inputs: Sequence[Any]) -> bool:
    return torch.is_grad_enabled() and any(
        isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs
    )


def disc_backend(
    graph: torch.fx.GraphModule, example_inputs: Sequence[Any], **compile_options: Any
) -> Callable[..., Any]:
    """The `torch.compile(..., backend="disc")` compiler: one disc-ir executable per graph.

    Returns a function taking the graph's inputs (tensors and sizes) and returning
    its outputs; the graph itself (eager) when it cannot be compiled, after a
    one-line `DiscFallbackWarning` naming the op.
    """
    if _needs_autograd(example_inputs):
        warnings.warn(
            "disc: graph runs eagerly: autograd is recording (run inference under "
            "torch.no_grad() or torch.inference_mode())",
            DiscFallbackWarning,
            stacklevel=2,
        )
        return graph.forward
    try:
        module, shapes = _prepare(graph, example_inputs)
    except Exception as exc:  # noqa: BLE001 - any graph it cannot take runs eagerly
        _warn_fallback(exc)
        return graph.forward
    return _LazyGraph(graph, module, shapes, compile_options)


def _warn_fallback(exc: BaseException) -> None:
    warnings.warn(
        f"disc: graph runs eagerly: {failing_op(exc)} is not supported ({_first_line(exc)})",
        DiscFallbackWarning,
        stacklevel=3,
    )


class _LazyGraph:
    """A dynamo graph compiled at its first call (outside dynamo's tracing, on real tensors);
    every later call runs that one executable, or the graph eagerly when it did not compile."""

    def __init__(
        self,
        graph: torch.fx.GraphModule,
        module: _SizesFromTensors,
        shapes: tuple[dict[int, Any], ...],
        compile_options: Mapping[str, Any],
    ) -> None:
        self.graph = graph
        self.module = module
        self.shapes = shapes
        self.compile_options = dict(compile_options)
        self.executable: TorchExecutable | None = None
        self.failed = False

    def __call__(self, *args: Any) -> Any:
        if self.failed:
            return self.graph(*args)
        for position, value in self.module.baked.items():
            if args[position].item() != value:
                # a scalar the executable holds as a constant changed: eager from now on
                warnings.warn(
                    f"disc: graph runs eagerly: scalar input {position} changed from {value}",
                    DiscFallbackWarning,
                    stacklevel=2,
                )
                self.failed = True
                return self.graph(*args)
        tensors = [args[i] for i in self.module.tensor_positions]
        if self.executable is None:
            try:
                self.executable = compile(
                    self.module,
                    tensors,
                    dynamic_shapes={"tensors": self.shapes},
                    **self.compile_options,
                )
            except Exception as exc:  # noqa: BLE001 - any failure falls back to eager
                _warn_fallback(exc)
                self.failed = True
                return self.graph(*args)
        return self.executable(*tensors)


__all__ = [
    "DiscFallbackWarning",
    "TorchExecutable",
    "compile",
    "disc_backend",
    "export",
    "failing_op",
    "from_runtime",
    "to_runtime",
    "to_stablehlo",
]
