import torchvision
import torchvision.transforms as T

MEAN, STD = (0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762)


def build_datasets(root):
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    train_set = torchvision.datasets.CIFAR100(root, train=True, transform=train_tf, download=False)
    test_set = torchvision.datasets.CIFAR100(root, train=False, transform=test_tf, download=False)
    return train_set, test_set
