from .validation import ValidationHook
