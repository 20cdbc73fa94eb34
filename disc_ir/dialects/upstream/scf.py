"""The upstream `scf` dialect as disc-ir registers it."""

from xdsl.dialects.scf import Scf

SCF = Scf
