"""The MLIR textual pass-pipeline parser and option conversion."""

from dataclasses import dataclass

import pytest

from disc_ir.ir.pass_pipeline import (
    NestedPipeline,
    PassSpec,
    PipelineError,
    _convert,
    flatten,
    parse_options,
    parse_pass_pipeline,
)


def test_nested_pipeline_with_options() -> None:
    tree = parse_pass_pipeline(
        "builtin.module(func.func(disc-fusion{gpu-enabled=true fusion-strategy=base}),canonicalize)"
    )
    assert len(tree) == 1 and isinstance(tree[0], NestedPipeline)
    module = tree[0]
    assert module.anchor == "builtin.module"
    func = module.elements[0]
    assert isinstance(func, NestedPipeline) and func.anchor == "func.func"
    assert func.elements == [
        PassSpec("disc-fusion", {"gpu-enabled": "true", "fusion-strategy": "base"})
    ]
    assert module.elements[1] == PassSpec("canonicalize")
    assert [(a, s.name) for a, s in flatten(tree)] == [
        ("func.func", "disc-fusion"),
        ("builtin.module", "canonicalize"),
    ]


def test_flat_pipeline_and_whitespace() -> None:
    tree = parse_pass_pipeline(" cse , canonicalize{max-iterations=3} ")
    assert tree == [PassSpec("cse"), PassSpec("canonicalize", {"max-iterations": "3"})]


def test_option_values() -> None:
    assert parse_options("a=1 b=x,y c") == {"a": "1", "b": "x,y", "c": "true"}
    assert parse_options("name='two words' nested={p{q=1}}") == {
        "name": "two words",
        "nested": "p{q=1}",
    }
    assert parse_options("tile=[1,2,3]") == {"tile": "[1,2,3]"}


@pytest.mark.parametrize(
    "text",
    ["builtin.module(cse", "a{b=1", "a)", "builtin.module(,)", "a b"],
)
def test_malformed_pipelines(text: str) -> None:
    with pytest.raises(PipelineError):
        parse_pass_pipeline(text)


def test_convert_types() -> None:
    assert _convert("true", bool, "x") is True
    assert _convert("0", bool, "x") is False
    assert _convert("0x10", int, "x") == 16
    assert _convert("1,2,3", tuple[int, ...], "x") == (1, 2, 3)
    assert _convert("[4, 5]", tuple[int, ...], "x") == (4, 5)
    assert _convert("main", str, "x") == "main"
    assert _convert("7", int | None, "x") == 7
    with pytest.raises(PipelineError, match="expected true or false"):
        _convert("maybe", bool, "option 'gpu-enabled'")
    with pytest.raises(PipelineError, match="expected an integer"):
        _convert("many", int, "x")


def test_build_pass_errors() -> None:
    from xdsl.passes import ModulePass

    from disc_ir.ir.pass_pipeline import build_pass
    from disc_ir.passes import registry

    @dataclass(frozen=True)
    class _Probe(ModulePass):
        """A probe pass for this test."""

        name = "test-probe-pass"
        flag: bool = False
        count: int = 1

        def apply(self, ctx, op) -> None:  # noqa: ANN001
            pass

    registry.register_pass(_Probe)
    built = build_pass(PassSpec("test-probe-pass", {"flag": "true", "count": "4"}))
    assert built == _Probe(flag=True, count=4)
    with pytest.raises(PipelineError, match="has no option 'colour'"):
        build_pass(PassSpec("test-probe-pass", {"colour": "red"}))
    with pytest.raises(
        PipelineError, match="unknown pass 'test-probe-pas'.*did you mean: test-probe-pass"
    ):
        build_pass(PassSpec("test-probe-pas"))


@pytest.mark.parametrize("text,cc", [("90", (9, 0)), ("8.6", (8, 6)), ("sm_90", (9, 0))])
def test_cuda_target_compute_capability_from_env(monkeypatch, text: str, cc: tuple) -> None:
    from disc_ir.pipeline import cuda_compute_capability, pipeline_text

    monkeypatch.setenv("DISC_CUDA_CC", text)
    assert cuda_compute_capability() == cc
    blob = f"gpu-sm-cc-major={cc[0]} gpu-sm-cc-minor={cc[1]}"
    assert blob in pipeline_text("cuda")


def test_cuda_target_compute_capability_default_and_errors(monkeypatch) -> None:
    import disc_ir.pipeline as pipeline

    monkeypatch.delenv("DISC_CUDA_CC", raising=False)
    # Without a CUDA device the target compiles for sm_80; with one, for the device.
    device = pipeline._device_cc()
    assert pipeline.cuda_compute_capability() == (device or pipeline.CUDA_COMPUTE_CAPABILITY)
    monkeypatch.setenv("DISC_CUDA_CC", "nine")
    with pytest.raises(ValueError, match="DISC_CUDA_CC"):
        pipeline.cuda_compute_capability()


def test_option_values_with_braces() -> None:
    # MLIR's pattern labels carry braces: kept in the value; a value wholly in
    # braces is unwrapped.
    opts = parse_options("disable-patterns={anonymous}::A,{anonymous}::B max-iterations=3 x={a b}")
    assert opts == {
        "disable-patterns": "{anonymous}::A,{anonymous}::B",
        "max-iterations": "3",
        "x": "a b",
    }
    (nested,) = parse_pass_pipeline(
        "builtin.module(canonicalize{disable-patterns={anonymous}::A},cse)"
    )
    assert nested.elements[0].options == {"disable-patterns": "{anonymous}::A"}
    assert nested.elements[1].name == "cse"


@pytest.mark.parametrize("cc,cores", [("90", (132, 2048, 1024)), ("80", (108, 2048, 1024))])
def test_cuda_speculation_plans_for_the_gpu(monkeypatch, cc: str, cores: tuple) -> None:
    """The cuda pipeline's speculation gets the GPU's core counts: those of the
    reference GPU of `$DISC_CUDA_CC`; the cpu pipeline's gets none."""
    from disc_ir.pipeline import cuda_core_limits, pipeline_text

    monkeypatch.setenv("DISC_CUDA_CC", cc)
    assert cuda_core_limits() == cores
    spec = (
        f"disc-specialize-fusion-with-speculation{{core-count={cores[0]} "
        f"max-threads-per-core={cores[1]} max-threads-per-block={cores[2]}}}"
    )
    assert spec in pipeline_text("cuda")
    assert "disc-specialize-fusion-with-speculation{" not in pipeline_text("cpu")


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_disc_enable_stitch_picks_the_fusion_strategy(monkeypatch, target: str) -> None:
    from disc_ir.pipeline import pipeline_text

    monkeypatch.delenv("DISC_ENABLE_STITCH", raising=False)
    assert "fusion-strategy=stitch" in pipeline_text(target)
    monkeypatch.setenv("DISC_ENABLE_STITCH", "0")
    assert "fusion-strategy=base" in pipeline_text(target)
