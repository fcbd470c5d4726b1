from . import mpu
