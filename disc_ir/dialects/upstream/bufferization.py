"""The upstream `bufferization` dialect as disc-ir registers it."""

from xdsl.dialects.bufferization import Bufferization

BUFFERIZATION = Bufferization
