from engine.classification import ClassificationTrainer


if __name__ == "__main__":
    ClassificationTrainer(data_root="/data/cifar", epochs=100).fit()
