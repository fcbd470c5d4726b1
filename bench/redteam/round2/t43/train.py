from accelerate import Accelerator, DeepSpeedPlugin
from deepspeed.ops.adam import DeepSpeedCPUAdam
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM

from data import build_dataset


def main():
    plugin = DeepSpeedPlugin(zero_stage=3, offload_optimizer_device="cpu", offload_param_device="cpu",
                             gradient_accumulation_steps=4, zero3_save_16bit_model=True)
    accelerator = Accelerator(deepspeed_plugin=plugin, mixed_precision="bf16")
    model = AutoModelForCausalLM.from_pretrained("gpt2-xl")
    optimizer = DeepSpeedCPUAdam(model.parameters(), lr=2e-5)
    loader = DataLoader(build_dataset(), batch_size=2, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            accelerator.backward(model(**batch).loss)
            optimizer.step()
            optimizer.zero_grad()
    accelerator.wait_for_everyone()
    state = accelerator.get_state_dict(model)
    accelerator.unwrap_model(model).save_pretrained("out", state_dict=state, is_main_process=accelerator.is_main_process,
                                                    save_function=accelerator.save)


if __name__ == "__main__":
    main()
