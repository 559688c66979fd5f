"""Benchmarks of the core: replay, CLI latency, sync cost."""
