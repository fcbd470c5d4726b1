from .export import ExportOnSave
