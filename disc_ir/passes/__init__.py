"""The pass registry: `registry` (`register_pass`, lookup by BladeDISC / MLIR
name, options and summaries) and `pass_table` (the generated table naming each
pass's module, so a lookup imports only that module; regenerate with
`python -m disc_ir.tools.gen_pass_table`). A module here may import the pass
modules (`disc_ir.transforms`, to load them) and nothing else of disc-ir."""
