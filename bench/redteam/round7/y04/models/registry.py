_MODELS = {}


def register_model(name):
    def deco(fn):
        _MODELS[name] = fn
        return fn
    return deco


def build(name, **kw):
    return _MODELS[name](**kw)
