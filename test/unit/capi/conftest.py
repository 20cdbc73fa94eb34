"""The C API tests use the oneDNN Graph tests' helpers and their own manifest writer."""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "onednn_graph"))
