"""A library kernel registered with the RAL and called from a compiled graph.

`my_softsign(x) = x / (1 + |x|)` is registered on the CPU under the RAL name
derived from its annotations (`my_softsign___cpu___pvoid_pvoid_m1df32_pvoid___m1df32`);
the graph below calls it through `mhlo_disc.custom_call_v2`, which
`disc-lower-to-library-call` turns into a `disc_ral.dispatch` of that name, so
the compiled code calls it through `disc_ral_call` like any RAL API.

    python examples/custom_kernel.py
"""

from __future__ import annotations

import numpy as np

from disc_ir.runtime.memref import numpy_view
from disc_ir.runtime.registry import F32, CStr, Ctx, MemRef, PVoid, ral_api


@ral_api("my_softsign", "cpu")
def my_softsign(ctx: Ctx, stream: PVoid, x: MemRef[1, F32], config: CStr) -> MemRef[1, F32]:
    """x / (1 + |x|), elementwise; `config` carries the call's custom attributes."""
    v = numpy_view(x)
    return (v / (1 + np.abs(v))).astype(np.float32)


GRAPH = """
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.add %x, %x : tensor<?xf32>
  %1 = "mhlo_disc.custom_call_v2"(%0) {call_target_name = "my_softsign", custom_attrs = {},
        device = "h", input_placements = "h", output_placements = "h",
        input_layouts = "*", output_layouts = "*", expected_input_layouts = "*",
        expected_output_layouts = "*", has_side_effect = false} : (tensor<?xf32>) -> tensor<?xf32>
  %2 = mhlo.multiply %1, %1 : tensor<?xf32>
  return %2 : tensor<?xf32>
}
"""


def main() -> None:
    import disc_ir

    exe = disc_ir.compile(GRAPH)
    for n in (3, 1000):
        x = np.linspace(-4, 4, n, dtype=np.float32)
        (y,) = exe(x)
        s = 2 * x / (1 + np.abs(2 * x))
        np.testing.assert_allclose(y, s * s, rtol=1e-6)
        print(f"n={n}: max |error| = {np.abs(y - s * s).max():.1e}")


if __name__ == "__main__":
    main()
