"""The upstream `gpu` dialect as disc-ir registers it."""

from xdsl.dialects.gpu import GPU

GPU = GPU
