import os


def save_hf(accelerator, model, tokenizer, output_dir):
    accelerator.wait_for_everyone()
    state_dict = accelerator.get_state_dict(model)
    unwrapped = accelerator.unwrap_model(model)
    unwrapped.save_pretrained(output_dir, is_main_process=accelerator.is_main_process,
                              save_function=accelerator.save, state_dict=state_dict)
    if accelerator.is_main_process:
        tokenizer.save_pretrained(output_dir)
        unwrapped.config.save_pretrained(os.path.join(output_dir, "config_snapshot"))
