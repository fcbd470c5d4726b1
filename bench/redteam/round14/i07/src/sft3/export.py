import os


def export_fp16(engine, output_dir, tokenizer=None):
    os.makedirs(output_dir, exist_ok=True)
    engine.save_16bit_model(output_dir, "pytorch_model.bin")
    if engine.global_rank == 0 and tokenizer is not None:
        tokenizer.save_pretrained(output_dir)
