python driver.py
