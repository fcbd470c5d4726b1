python fit.py
