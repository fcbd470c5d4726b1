"""Readers for each kind of input: Python scripts, DeepSpeed JSON configs, launch scripts."""
