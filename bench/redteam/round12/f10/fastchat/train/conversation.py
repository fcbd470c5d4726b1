SYSTEM = ("A chat between a curious user and an artificial intelligence assistant. "
          "The assistant gives helpful, detailed, and polite answers to the user's questions.")
ROLES = {"human": "USER", "gpt": "ASSISTANT"}


def render(turns):
    text = SYSTEM + " "
    for t in turns:
        text += f"{ROLES[t['from']]}: {t['value']}" + (" " if t["from"] == "human" else "</s>")
    return text
