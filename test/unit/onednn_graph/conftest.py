"""The oneDNN Graph tests' helpers (reference, inputs, builder) import as top-level modules."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
