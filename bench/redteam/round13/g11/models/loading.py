import torch
from transformers import AutoModelForSequenceClassification


def load_teacher(name_or_path: str):
    """A fine-tuned classifier that only provides soft targets: eval mode, weights frozen."""
    teacher = AutoModelForSequenceClassification.from_pretrained(name_or_path, torch_dtype=torch.bfloat16)
    teacher.eval()
    teacher.requires_grad_(False)
    return teacher


def load_student(name_or_path: str, num_labels: int = 2):
    return AutoModelForSequenceClassification.from_pretrained(name_or_path, num_labels=num_labels)


def same_vocabulary(teacher_config, student_config) -> bool:
    """Teacher and student must read the same token ids (both BERT uncased WordPiece here)."""
    return (teacher_config.vocab_size == student_config.vocab_size
            and teacher_config.pad_token_id == student_config.pad_token_id)
