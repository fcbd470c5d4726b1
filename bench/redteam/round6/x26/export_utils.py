import os


def export_fp16(engine, out_dir, tag="final"):
    os.makedirs(out_dir, exist_ok=True)
    engine.save_16bit_model(out_dir, save_filename=f"{tag}.bin")
