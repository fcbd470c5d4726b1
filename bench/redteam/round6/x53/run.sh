python launch.py
