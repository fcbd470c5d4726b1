import torch
import transformers
from transformers import AutoProcessor, Qwen2VLForConditionalGeneration, Trainer

from vlm.args import DataArguments, ModelArguments, TrainingArguments
from vlm.dataset import LazyConversationDataset, collate


def train():
    parser = transformers.HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()

    processor = AutoProcessor.from_pretrained(model_args.model_name_or_path, max_pixels=data_args.max_pixels)
    model = Qwen2VLForConditionalGeneration.from_pretrained(model_args.model_name_or_path,
                                                            torch_dtype=torch.bfloat16,
                                                            attn_implementation="flash_attention_2")
    if model_args.freeze_vision_tower:
        model.visual.requires_grad_(False)

    dataset = LazyConversationDataset(data_args.data_path, data_args.image_folder, processor,
                                      training_args.model_max_length)
    trainer = Trainer(model=model, args=training_args, train_dataset=dataset, data_collator=collate)
    trainer.train()
    trainer.save_state()
    trainer.save_model(training_args.output_dir)


if __name__ == "__main__":
    train()
