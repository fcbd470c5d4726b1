"""Helpers shared by the distillation scripts."""
