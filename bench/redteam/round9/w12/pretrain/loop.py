import torch.distributed as dist


class Loop:
    def __init__(self, engine, batches, callbacks, max_steps):
        self.engine = engine
        self.batches = batches
        self.callbacks = callbacks
        self.max_steps = max_steps
        self.global_rank = dist.get_rank()
        self.step = 0

    def run(self):
        for tokens in self.batches:
            tokens = tokens.to(self.engine.device)
            loss = self.engine(tokens[:, :-1], labels=tokens[:, 1:]).loss
            self.engine.backward(loss)
            self.engine.step()
            if self.engine.is_gradient_accumulation_boundary():
                self.step += 1
                for cb in self.callbacks:
                    cb.on_step_end(self)
            if self.step >= self.max_steps:
                break
