"""The dialects disc-ir defines or completes on xDSL: mhlo, lmhlo, mhlo_disc,
lmhlo_disc, disc_shape, disc_ral, chlo, stablehlo, okl (OneFlow's kernel-launch
dialect) and the attributes they share, with `upstream` holding MLIR dialects
xDSL lacks or defines differently. A module here may import `disc_ir.ir`,
`disc_ir.config` and other dialect modules only."""
