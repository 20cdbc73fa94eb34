"""The CPU pipeline lowers one fusion of each identical set and copies it
to the others (`disc_ir.codegen.shared_lowering`, the passes
`disc-mark-shared-fusion-lowering` / `disc-instantiate-shared-fusion-lowering`): the copies compute what
lowering each fusion by itself computes, fusions whose dims are not known
equal are not shared, and a copy that cannot be made falls back to lowering
every fusion."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import disc_ir
import disc_ir.api as api
from disc_ir.codegen import shared_lowering as sl

MODELS = Path(__file__).resolve().parents[1] / "models"


def _softmax(x: str, out: str, s: str) -> str:
    return f"""
  %{out}_m = mhlo.reduce(%{x} init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?xf32>
  %{out}_mb = "mhlo.dynamic_broadcast_in_dim"(%{out}_m, %{s}) {{broadcast_dimensions = dense<0> : tensor<1xi64>}} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x16xf32>
  %{out}_c = mhlo.subtract %{x}, %{out}_mb : tensor<?x16xf32>
  %{out}_e = mhlo.exponential %{out}_c : tensor<?x16xf32>
  %{out}_sum = mhlo.reduce(%{out}_e init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?xf32>
  %{out}_sb = "mhlo.dynamic_broadcast_in_dim"(%{out}_sum, %{s}) {{broadcast_dimensions = dense<0> : tensor<1xi64>}} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x16xf32>
  %{out} = mhlo.divide %{out}_e, %{out}_sb : tensor<?x16xf32>"""


_CONSTANTS = """
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>"""

#: softmax(softmax(x) @ w): two fusions alike (a library call between), on
#: dims of the same classes
CHAINED = f"""
func.func @main(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> tensor<?x16xf32> {{
  %s = shape.shape_of %x : tensor<?x16xf32> -> tensor<2xindex>{_CONSTANTS}{_softmax("x", "p", "s")}
  %d = "mhlo.dot"(%p, %w) : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>{_softmax("d", "q", "s")}
  return %q : tensor<?x16xf32>
}}
"""

#: softmax of two unrelated inputs: the same ops on dims of other classes
UNRELATED = f"""
func.func @main(%x: tensor<?x16xf32>, %y: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {{
  %s = shape.shape_of %x : tensor<?x16xf32> -> tensor<2xindex>
  %t = shape.shape_of %y : tensor<?x16xf32> -> tensor<2xindex>{_CONSTANTS}{_softmax("x", "p", "s")}{_softmax("y", "q", "t")}
  return %p, %q : tensor<?x16xf32>, tensor<?x16xf32>
}}
"""


def _softmax_ref(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _chained_ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return _softmax_ref(_softmax_ref(x) @ w)


@pytest.fixture
def duplicates(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of duplicate fusions each compile marked; a copy that failed
    (the compile then ran again without sharing) is counted as -1 after it."""
    counts: list[int] = []
    share = sl.share_fusion_lowering
    instantiate = sl.SharedLowering.instantiate

    def counted(module: object) -> sl.SharedLowering:
        shared = share(module)  # type: ignore[arg-type]
        counts.append(len(shared.duplicates))
        return shared

    def checked(self: sl.SharedLowering) -> None:
        try:
            instantiate(self)
        except sl.SharingFailed:
            counts.append(-1)
            raise

    monkeypatch.setattr(sl, "share_fusion_lowering", counted)
    monkeypatch.setattr(sl.SharedLowering, "instantiate", checked)
    return counts


def test_identical_fusions_take_one_lowering(duplicates: list[int]) -> None:
    exe = disc_ir.compile(CHAINED, verify=True)
    assert duplicates == [1]
    rng = np.random.default_rng(0)
    w = rng.standard_normal((16, 16)).astype(np.float32)
    for rows in [3, 17, 1]:
        x = rng.standard_normal((rows, 16)).astype(np.float32)
        (out,) = exe(x, w)
        np.testing.assert_allclose(out, _chained_ref(x, w), rtol=1e-5, atol=1e-6)


def test_fusions_on_unrelated_dims_are_not_shared(duplicates: list[int]) -> None:
    exe = disc_ir.compile(UNRELATED, verify=True)
    assert duplicates == [0]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 16)).astype(np.float32)
    y = rng.standard_normal((11, 16)).astype(np.float32)
    p, q = exe(x, y)
    np.testing.assert_allclose(p, _softmax_ref(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(q, _softmax_ref(y), rtol=1e-5, atol=1e-6)


def test_sharing_off_by_environment(monkeypatch: pytest.MonkeyPatch, duplicates: list[int]) -> None:
    monkeypatch.setenv(sl.SHARE_ENV, "0")
    disc_ir.compile(CHAINED)
    assert duplicates == []


def test_failed_copy_compiles_again_without_sharing(
    monkeypatch: pytest.MonkeyPatch, duplicates: list[int]
) -> None:
    def fail(self: sl.SharedLowering) -> None:
        raise sl.SharingFailed("forced")

    monkeypatch.setattr(sl.SharedLowering, "instantiate", fail)
    exe = disc_ir.compile(CHAINED)
    assert duplicates == [1]  # one try with sharing, then none
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 16)).astype(np.float32)
    w = rng.standard_normal((16, 16)).astype(np.float32)
    np.testing.assert_allclose(exe(x, w)[0], _chained_ref(x, w), rtol=1e-5, atol=1e-6)


def test_duplicates_are_skipped_then_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Marked duplicates stay lmhlo through the code generation passes, and hold
    the representative's lowered body (its kernel launches) after
    `disc-instantiate-shared-fusion-lowering`."""
    held: list[sl.SharedLowering] = []
    hold = sl.hold

    def capture(module: object, shared: sl.SharedLowering) -> None:
        held.append(shared)
        hold(module, shared)  # type: ignore[arg-type]

    monkeypatch.setattr(sl, "hold", capture)
    ctx = api.make_context()
    module = api.load_module(ctx, CHAINED)
    api.entry_function(module, "main")
    for _, passes in api.phase_passes("cpu", None, "", True):
        for p in passes:
            if p.name != "disc-instantiate-shared-fusion-lowering":
                p.apply(ctx, module)
                continue
            (shared,) = held
            assert len(shared.duplicates) == 1
            dup = shared.duplicates[0]
            rep_launches = [o for o in dup.rep.walk() if o.name == "disc_ral.cpu_launch"]
            assert rep_launches
            assert any(
                o.name.startswith("lmhlo.") for o in dup.fusion.walk() if o is not dup.fusion
            )
            p.apply(ctx, module)
            assert not sl.is_shared_duplicate(dup.fusion)
            launches = [o for o in dup.fusion.walk() if o.name == "disc_ral.cpu_launch"]
            assert [o.properties.get("callee") or o.attributes.get("callee") for o in launches] == [
                o.properties.get("callee") or o.attributes.get("callee") for o in rep_launches
            ]
            assert not any(
                o.name.startswith("lmhlo.") and o.name != "lmhlo.terminator"
                for o in dup.fusion.walk()
                if o is not dup.fusion
            )
            return
    raise AssertionError("disc-instantiate-shared-fusion-lowering is not in the CPU pipeline")


def test_disc_opt_falls_back_as_compile_does(
    monkeypatch: pytest.MonkeyPatch, duplicates: list[int], tmp_path: Path
) -> None:
    """A copy that cannot be made: disc-opt runs the pipeline again without
    sharing, as `disc_ir.compile` does, and prints the IR the compile keeps."""
    import contextlib
    import io

    from disc_ir.tools import disc_opt

    def fail(self: sl.SharedLowering) -> None:
        raise sl.SharingFailed("forced")

    monkeypatch.setattr(sl.SharedLowering, "instantiate", fail)
    source = tmp_path / "chained.mlir"
    source.write_text(CHAINED)
    lowered = api.lower_to_llvm_ir(source, keep_ir=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert disc_opt.main(["--disc-pipeline=target=cpu until=codegen", str(source)]) == 0
    assert out.getvalue() == api.print_module(lowered.phase_ir["codegen"])
    assert duplicates == [1, 1]  # one try with sharing each, then none


def _two_layers(path: Path) -> str:
    """The zoo model's `main` as a private `@layer`, and a `main` applying it twice
    (the frontend inlines the calls: a two-layer encoder)."""
    text = path.read_text()
    header = re.search(r"func\.func public @main\((.*?)\) -> \((tensor<[^>]*>)[^)]*\) \{", text)
    assert header is not None
    params, result = header.group(1), header.group(2)
    names = re.findall(r"(%arg\d+): ", params)
    types = re.findall(r"%arg\d+: (tensor<[^>]*>)", params)
    sig = ", ".join(types)
    text = text.replace(header.group(0), f"func.func private @layer({params}) -> {result} {{", 1)
    first = ", ".join(names)
    second = ", ".join(["%h", *names[1:]])
    main = f"""
  func.func public @main({params}) -> {result} {{
    %h = func.call @layer({first}) : ({sig}) -> {result}
    %o = func.call @layer({second}) : ({sig}) -> {result}
    return %o : {result}
  }}
}}"""
    return text[: text.rindex("}")] + main


def test_two_layer_encoder_computes_the_same_with_and_without_sharing(
    monkeypatch: pytest.MonkeyPatch, duplicates: list[int]
) -> None:
    source = _two_layers(MODELS / "bert_layer_dyn.mlir")
    shared = disc_ir.compile(source)
    assert duplicates[0] >= 4 and -1 not in duplicates  # the second layer's fusions, copied
    monkeypatch.setenv(sl.SHARE_ENV, "0")
    alone = disc_ir.compile(source)
    rng = np.random.default_rng(3)
    for batch, seq in [(1, 5), (2, 9)]:
        args = []
        for spec in shared.inputs:
            shape = [
                d if d is not None else (batch if i == 0 else seq) for i, d in enumerate(spec.shape)
            ]
            args.append((0.1 * rng.standard_normal(shape)).astype(np.float32))
        for a, b in zip(shared(*args), alone(*args), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_disc_pipeline_pass_applied_directly_falls_back_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`DiscPipelinePass.apply` (the pass run without disc-opt's expansion) owns
    the same fallback: the module is restored and lowered without sharing."""
    from disc_ir.transforms.disc_pipeline import DiscPipelinePass

    def fail(self: sl.SharedLowering) -> None:
        raise sl.SharingFailed("forced")

    monkeypatch.setattr(sl.SharedLowering, "instantiate", fail)
    ctx = api.make_context()
    module = api.load_module(ctx, CHAINED, import_stablehlo=False)
    DiscPipelinePass(target="cpu", until="codegen").apply(ctx, module)
    expected = api.lower_to_llvm_ir(CHAINED, keep_ir=True).phase_ir["codegen"]
    assert api.print_module(module) == api.print_module(expected)


def test_same_element_pairs_match_the_pairwise_question(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fusion key's pairs of outside values holding as many elements, asked
    once per pair of element classes, are those `is_same_num_elements` gives
    pair by pair, on every fusion of a two-layer encoder."""
    checked: list[tuple[int, int]] = []
    pairs = sl._same_num_elements_pairs

    def both(values: list, indices: list[int], sa: object) -> tuple[tuple[int, int], ...]:
        got = pairs(values, indices, sa)  # type: ignore[arg-type]
        want = tuple(
            (a, b)
            for k, a in enumerate(indices)
            for b in indices[k + 1 :]
            if sa.is_same_num_elements(values[a], values[b])  # type: ignore[attr-defined]
        )
        assert got == want
        checked.append((len(indices), len(got)))
        return got

    monkeypatch.setattr(sl, "_same_num_elements_pairs", both)
    disc_ir.compile(_two_layers(MODELS / "bert_layer_dyn.mlir"))
    # fusions where some pairs hold as many elements and others do not
    assert any(0 < same < n * (n - 1) // 2 for n, same in checked)
