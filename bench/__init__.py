"""Benchmarks of disc-ir against XLA (jax.jit), torch.compile, IREE and numpy on the zoo models.

Usage (from the repository root, with the `bench` extra: `pip install -e .[bench]`)::

    python -m bench                  # full suite: runtime, dynamic shapes, BERT encoder, peak RSS
    python -m bench --quick          # small sizes, few repeats, a subset (< 60 s on an idle machine)
    python -m bench --sections runtime --models softmax,bert_layer --systems disc-ir,xla
    python -m bench --disc-source graphs   # disc-ir compiles bench/graphs/*.mlir instead of the jax export
    python -m bench.plot bench/results/<run>.json   # re-draw the PNG of a stored run
    python -m bench.compile_profile bert_encoder_12  # where one compile spends its time
    python -m bench.report bench/results/*.json -o docs/benchmarks.md   # the benchmarks page

Every run prints a table (median runtime, ratio to XLA and to the best other
system, achieved GB/s against the measured copy bandwidth, compile time,
relative error against XLA), disc-ir's compile time per pipeline phase, the
dynamic-shape workload, the BERT encoder's compile scaling, peak RSS per
system, and the target checks (PASS / MISS with the figures); it writes the
JSON (`bench/results/<date>-cpu-<cores>core.json`, schema `disc-ir-bench/2`, see
`bench.run.check_schema`) and a PNG beside it.

Modules: `run` (the sections, report, targets, CLI), `systems` (one adapter
per system), `models` (the zoo loaded from test/models/zoo.py, the stacked
BERT encoder, numpy twins, jax exports), `measure` (timing, bandwidth,
relative error, peak RSS subprocess), `rss` (the subprocess), `compile_profile`
(one compile's seconds per pass, per rewrite pattern, LLVM work, GC), `plot`, `report`
(docs/benchmarks.md from the kept runs; test/unit/test_bench_report.py checks it is current).
"""
