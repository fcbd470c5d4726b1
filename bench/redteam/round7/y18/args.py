from dataclasses import dataclass, field

from transformers import TrainingArguments


@dataclass
class MyTrainingArguments(TrainingArguments):
    deepspeed: str = field(default="ds/zero2_sched.json")
    lr_scheduler_type: str = field(default="cosine")
    model_name: str = field(default="gpt2")
