"""Command-line tools: `disc-opt` (run named passes), `disc-compile` (source to
LLVM IR / PTX), `gen_pass_table` and `pass_docs` (generate the pass table and
docs/passes.md). Tools are drivers: they may import any part of disc-ir."""
