"""Fusion strategy lookup and the `disc-fusion` pipelines (BladeDISC's `makeNewDeviceStrategy`).

`get_fusion_strategy(device, name)` returns the process-wide strategy for a
device (`"cpu"` / `"gpu"`) and a strategy name; `make_fusion_pipeline`
returns the stages `disc-fusion` runs, each a `PlacementAwareFusionStrategy`
holding only the default device's strategy:

* `fusion-strategy=base`: `[base]`;
* `stitch`, CPU: `[sparse_base, stitch_base, stitch, base]` (+ `transform_based`
  with `mlir-compute-intensive-codegen` or `DISC_ENABLE_TRANSFORM_SCHEDULE`);
* `stitch`, GPU: `[base, stitch]` (+ `pre_dot`, `dot` first with
  `DISC_ENABLE_COMPUTE_INTENSIVE_FUSE`, + `transform_based`).

Strategies not implemented here (dot, sparse, GPU transform-based)
have no entry: their stage fuses nothing, and `missing_strategies` names them.
"""

from __future__ import annotations

from disc_ir import config
from disc_ir.fusion.stitch_cpu import StitchCpuFusionStrategy
from disc_ir.fusion.stitch_gpu import StitchGpuFusionStrategy
from disc_ir.fusion.strategy_base import (
    BaseCpuFusionStrategy,
    BaseGpuFusionStrategy,
    FusionStrategy,
    PlacementAwareFusionStrategy,
    StitchBaseCpuFusionStrategy,
)
from disc_ir.fusion.transform_cpu import TransformBasedCpuFusionStrategy

_FACTORIES: dict[tuple[str, str], type[FusionStrategy]] = {
    ("cpu", "base"): BaseCpuFusionStrategy,
    ("gpu", "base"): BaseGpuFusionStrategy,
    ("gpu", "stitch_base"): BaseGpuFusionStrategy,
    ("cpu", "stitch_base"): StitchBaseCpuFusionStrategy,
    ("cpu", "stitch"): StitchCpuFusionStrategy,
    ("gpu", "stitch"): StitchGpuFusionStrategy,
    ("cpu", "transform_based"): TransformBasedCpuFusionStrategy,
}

#: Known to BladeDISC but not implemented here.
UNIMPLEMENTED = frozenset(
    {
        ("gpu", "pre_dot"),
        ("gpu", "dot"),
        ("gpu", "transform_based"),
        ("cpu", "sparse_base"),
    }
)

_CACHE: dict[tuple[str, str], FusionStrategy] = {}


def get_fusion_strategy(device: str, name: str) -> FusionStrategy | None:
    """The shared strategy `name` for `device`, None if not implemented."""
    key = (device, name)
    if key not in _CACHE:
        factory = _FACTORIES.get(key)
        if factory is None:
            if key in UNIMPLEMENTED:
                return None
            raise ValueError(f"unknown fusion strategy '{name}' for device '{device}'")
        _CACHE[key] = factory()
    return _CACHE[key]


def make_placement_aware_strategy(gpu_enabled: bool, name: str) -> PlacementAwareFusionStrategy:
    device = "gpu" if gpu_enabled else "cpu"
    strategy = get_fusion_strategy(device, name)
    return PlacementAwareFusionStrategy(device, {device: strategy} if strategy else {})


def pipeline_stage_names(
    gpu_enabled: bool, fusion_strategy: str, mlir_compute_intensive_codegen: bool
) -> list[str]:
    """The strategy names `disc-fusion` runs in order."""
    if fusion_strategy == "base":
        return ["base"]
    if fusion_strategy != "stitch":
        raise ValueError(f"unknown fusion-strategy '{fusion_strategy}' (base or stitch)")
    if gpu_enabled:
        stages = ["pre_dot", "dot"] if config.flag("DISC_ENABLE_COMPUTE_INTENSIVE_FUSE") else []
        stages += ["base", "stitch"]
    else:
        stages = ["sparse_base", "stitch_base", "stitch", "base"]
    if mlir_compute_intensive_codegen or config.flag("DISC_ENABLE_TRANSFORM_SCHEDULE"):
        stages.append("transform_based")
    return stages


def make_fusion_pipeline(
    gpu_enabled: bool, fusion_strategy: str, mlir_compute_intensive_codegen: bool
) -> list[PlacementAwareFusionStrategy]:
    return [
        make_placement_aware_strategy(gpu_enabled, name)
        for name in pipeline_stage_names(
            gpu_enabled, fusion_strategy, mlir_compute_intensive_codegen
        )
    ]


def missing_strategies(
    gpu_enabled: bool, fusion_strategy: str, mlir_compute_intensive_codegen: bool
) -> list[str]:
    """Stages of that pipeline that are not implemented (they fuse nothing)."""
    device = "gpu" if gpu_enabled else "cpu"
    return [
        name
        for name in pipeline_stage_names(
            gpu_enabled, fusion_strategy, mlir_compute_intensive_codegen
        )
        if (device, name) in UNIMPLEMENTED
    ]


__all__ = [
    "UNIMPLEMENTED",
    "get_fusion_strategy",
    "make_fusion_pipeline",
    "make_placement_aware_strategy",
    "missing_strategies",
    "pipeline_stage_names",
]
