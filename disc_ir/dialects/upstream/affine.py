"""The upstream `affine` dialect as disc-ir registers it."""

from xdsl.dialects.affine import Affine

AFFINE = Affine
