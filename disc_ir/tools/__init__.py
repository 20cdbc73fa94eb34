"""Command-line tools: `disc-opt` (run named passes), `disc-compile` (source to
LLVM IR / PTX), `gen_pass_table`, `pass_docs` and `config_docs` (generate the
pass table, docs/passes.md and the guide's table of environment switches). Tools are drivers: they may import any part of disc-ir."""
