"""Benchmarks of disc-ir's generated CPU code against numpy and XLA (see bench/run.py)."""
