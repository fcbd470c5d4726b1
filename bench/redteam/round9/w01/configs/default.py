import ml_collections


def get_config():
    config = ml_collections.ConfigDict()
    config.seed = 17
    config.device = "cuda:0"
    config.num_epochs = 40
    config.batch_size = 128
    config.learning_rate = 3e-4
    config.weight_decay = 0.05

    config.model = ml_collections.ConfigDict()
    config.model.width = 512
    config.model.depth = 6
    config.model.num_classes = 100
    return config
