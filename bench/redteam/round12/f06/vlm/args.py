from dataclasses import dataclass, field
from typing import Optional

import transformers


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="Qwen/Qwen2-VL-7B-Instruct")
    freeze_vision_tower: bool = field(default=True)


@dataclass
class DataArguments:
    data_path: str = field(default=None, metadata={"help": "Path to the LLaVA-format json."})
    image_folder: Optional[str] = field(default=None)
    max_pixels: int = field(default=1003520)


@dataclass
class TrainingArguments(transformers.TrainingArguments):
    model_max_length: int = field(default=4096)
    optim: str = field(default="adamw_torch")
