from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

from hf import ZERO3


class MyTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        out = model(**inputs)
        return (out.loss, out) if return_outputs else out.loss


def main():
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    args = TrainingArguments(
        output_dir="out", per_device_train_batch_size=4, lr_scheduler_type="linear", bf16=True, deepspeed=ZERO3
    )
    MyTrainer(model=model, args=args, train_dataset=None).train()


if __name__ == "__main__":
    main()
