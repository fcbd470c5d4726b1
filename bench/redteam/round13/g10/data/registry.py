"""Name -> dataset class registry, filled in by the @register decorators of the dataset modules."""

DATASETS = {}


def register(name):
    def decorator(cls):
        if name in DATASETS:
            raise KeyError(f"dataset {name!r} registered twice")
        DATASETS[name] = cls
        return cls

    return decorator


def build_dataset(name, **kwargs):
    # importing the module runs its @register decorators
    from data import streams  # noqa: F401

    try:
        return DATASETS[name](**kwargs)
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; known: {sorted(DATASETS)}") from None
