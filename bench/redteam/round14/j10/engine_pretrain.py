import math
import sys

import util.misc as misc


def train_one_epoch(model_engine, data_loader, epoch, log_writer=None, print_freq=20):
    model_engine.train()
    for data_iter_step, (samples, _) in enumerate(data_loader):
        samples = samples.to(model_engine.device, non_blocking=True).to(next(model_engine.parameters()).dtype)
        loss = model_engine(samples)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)
        model_engine.backward(loss)
        model_engine.step()
        loss_value_reduce = misc.all_reduce_mean(loss_value)
        if log_writer is not None and model_engine.is_gradient_accumulation_boundary():
            epoch_1000x = int((data_iter_step / len(data_loader) + epoch) * 1000)
            log_writer.add_scalar("train_loss", loss_value_reduce, epoch_1000x)
            log_writer.add_scalar("lr", model_engine.get_lr()[0], epoch_1000x)
        if data_iter_step % print_freq == 0:
            print(f"Epoch [{epoch}] [{data_iter_step}/{len(data_loader)}] loss {loss_value_reduce:.4f}")
    return {"loss": loss_value_reduce}
