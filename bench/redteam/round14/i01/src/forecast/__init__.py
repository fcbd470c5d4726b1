"""Load forecasting package."""

__version__ = "0.3.1"
