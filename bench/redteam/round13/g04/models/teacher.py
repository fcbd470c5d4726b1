"""Teacher loading: a fine-tuned classifier used only to produce soft targets."""
import torch
from transformers import AutoModelForSequenceClassification


def load_teacher(path: str, device: torch.device):
    teacher = AutoModelForSequenceClassification.from_pretrained(path, torch_dtype=torch.bfloat16)
    teacher.to(device)
    teacher.eval()  # dropout off: the soft targets must be deterministic
    return teacher


def load_student(name: str, num_labels: int):
    return AutoModelForSequenceClassification.from_pretrained(name, num_labels=num_labels)


def check_compatible(teacher_config, student_config):
    """Distillation on logits needs the same label space and the same tokenizer vocabulary."""
    if teacher_config.num_labels != student_config.num_labels:
        raise ValueError(f"teacher has {teacher_config.num_labels} labels, student {student_config.num_labels}")
    if teacher_config.vocab_size != student_config.vocab_size:
        raise ValueError("teacher and student use different vocabularies")
