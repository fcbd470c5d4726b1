from datasets import load_from_disk
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

DS = {
    "train_micro_batch_size_per_gpu": "auto",
    "train_batch_size": "auto",
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "fp16": {"enabled": "auto"},
    "bf16": {"enabled": "auto"},
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}},
    "zero_optimization": {
        "stage": 3,
        "overlap_comm": True,
        "reduce_bucket_size": "auto",
        "stage3_prefetch_bucket_size": "auto",
        "stage3_param_persistence_threshold": "auto",
        "stage3_gather_16bit_weights_on_model_save": True,
    },
}


def main():
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=2, gradient_accumulation_steps=8,
                             bf16=True, learning_rate=1e-5, deepspeed=DS)
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")
    trainer = Trainer(model=model, args=args, train_dataset=load_from_disk("data/sft"))
    trainer.train()
    trainer.save_model("out/final")


if __name__ == "__main__":
    main()
