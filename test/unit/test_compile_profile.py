"""bench.compile_profile: one compile's seconds per pass, per pattern, LLVM, GC."""

from __future__ import annotations

from xdsl.pattern_rewriter import GreedyRewritePatternApplier

from bench.compile_profile import compile_profile, format_profile, main
from disc_ir.pipeline import pipeline_specs

GRAPH = """
func.func @main(%arg0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = mhlo.add %arg0, %arg0 : tensor<?x8xf32>
  %1 = mhlo.exponential %0 : tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}
"""


def test_profile_of_a_small_graph() -> None:
    method = GreedyRewritePatternApplier.match_and_rewrite
    profile = compile_profile(GRAPH, top=200)
    # the pattern timers are removed again
    assert GreedyRewritePatternApplier.match_and_rewrite is method
    passes = {row["name"]: row for row in profile["passes"]}
    specs = pipeline_specs("cpu")
    assert passes["canonicalize"]["count"] == specs.count("canonicalize")
    assert sum(row["count"] for row in profile["passes"]) == len(specs)
    assert len(compile_profile(GRAPH, top=5)["passes"]) == 5
    assert 0 < profile["passes_total_s"] <= profile["total_s"]
    assert profile["patterns"] and all(row["count"] > 0 for row in profile["patterns"])
    assert profile["patterns_total_s"] <= profile["passes_total_s"]
    assert set(profile["llvm"]) == {"translate_s", "host_jit_s", "kernels_o3_and_codegen_s"}
    assert profile["gc"]["collections"] >= 1  # the one collection that ends the lowering
    text = "\n".join(format_profile(profile, "graph"))
    assert "passes (" in text and "rewrite patterns (" in text and "GC:" in text


def test_cli_rejects_bad_arguments(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import pytest

    with pytest.raises(SystemExit):
        main([str(tmp_path / "missing.mlir")])
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["softmax", "--top", "0"])
    source = tmp_path / "g.mlir"
    source.write_text(GRAPH)
    out = tmp_path / "p.json"
    assert main([str(source), "--top", "3", "--json", str(out)]) == 0
    assert '"passes"' in out.read_text()
