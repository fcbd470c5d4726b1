from .ds_configs import ZERO3
