from torch.utils.data import DataLoader, DistributedSampler

from utils.dist import get_rank, get_world_size

from .speech_commands import LogMelClips


def build_loaders(args):
    train_set = LogMelClips(args.data_root, "train", num_frames=args.num_frames, spec_augment=True)
    val_set = LogMelClips(args.data_root, "validation", num_frames=args.num_frames)
    train_sampler = DistributedSampler(train_set, num_replicas=get_world_size(), rank=get_rank(),
                                       shuffle=True, seed=args.seed)
    val_sampler = DistributedSampler(val_set, num_replicas=get_world_size(), rank=get_rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True, persistent_workers=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler,
                            num_workers=args.workers, pin_memory=True)
    return train_loader, val_loader
