import timm


def build_model(name: str, drop_path: float):
    arch = {"vit_b16": "vit_base_patch16_224", "vit_s16": "vit_small_patch16_224"}[name]
    return timm.create_model(arch, pretrained=False, num_classes=1000, drop_path_rate=drop_path)
