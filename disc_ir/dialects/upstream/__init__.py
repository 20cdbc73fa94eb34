"""Upstream MLIR dialects and ops xDSL lacks or defines differently from MLIR
(extra `llvm`, `memref`, `gpu`, `math` ops and types), registered with disc-ir's
context. A module here may import `disc_ir.ir`, `disc_ir.config` and other
dialect modules only."""
