import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from tabrec.model import NeuMF


class DistributedMixin:
    def setup_distributed(self):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        dist.init_process_group("nccl")
        self.rank = dist.get_rank()
        self.world_size = dist.get_world_size()
        self.device = torch.device("cuda", self.local_rank)
        torch.manual_seed(self.cfg.train.seed)

    def setup_model(self, num_users, num_items):
        mc, tc = self.cfg.model, self.cfg.train
        model = NeuMF(num_users, num_items, mc.embedding_dim, mc.mlp).to(self.device)
        if tc.resume:
            model.load_state_dict(torch.load(tc.resume, map_location="cpu"))
        self.model = DDP(model, device_ids=[self.local_rank])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=tc.lr, weight_decay=tc.weight_decay)

    @property
    def is_main(self):
        return self.rank == 0

    def teardown(self):
        dist.destroy_process_group()
