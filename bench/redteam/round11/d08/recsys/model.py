import torch
import torch.nn as nn
from transformers import AutoModel


class CrossEncoderRanker(nn.Module):
    """Query/item cross-encoder scoring click probability (1.5B text encoder + linear head)."""

    def __init__(self, backbone="Alibaba-NLP/gte-Qwen2-1.5B-instruct"):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(backbone, trust_remote_code=True)
        self.head = nn.Linear(self.encoder.config.hidden_size, 1)

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        last = attention_mask.sum(1) - 1
        pooled = hidden[torch.arange(hidden.size(0), device=hidden.device), last]
        return self.head(pooled).squeeze(-1)
