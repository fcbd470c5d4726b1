import json
import re

from torch.utils.data import Dataset

PROMPT = "Question: {question}\nAnswer: Let's think step by step."
ANSWER = re.compile(r"####\s*(-?[\d,\.]+)")


class GSM8K(Dataset):
    def __init__(self, path):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        return PROMPT.format(question=row["question"]), extract(row["answer"])


def extract(text):
    match = ANSWER.search(text)
    if match:
        return match.group(1).replace(",", "")
    numbers = re.findall(r"-?\d+(?:\.\d+)?", text)
    return numbers[-1] if numbers else None
