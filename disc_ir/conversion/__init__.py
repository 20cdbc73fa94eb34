"""Reusable lowering patterns shared by the conversion passes (no passes here)."""
