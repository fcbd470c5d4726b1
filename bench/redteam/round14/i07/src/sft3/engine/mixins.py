from sft3 import export


class ExportMixin:
    def export(self) -> None:
        export.export_fp16(self.engine, self.args.output_dir, self.tokenizer)


class EpochLoopMixin:
    def train(self) -> None:
        self.engine.train()
        for epoch in range(self.args.epochs):
            self.loader.sampler.set_epoch(epoch)
            for step, batch in enumerate(self.loader):
                batch = {k: v.to(self.engine.device) for k, v in batch.items()}
                loss = self.engine(**batch).loss
                self.engine.backward(loss)
                self.engine.step()
                if self.engine.global_rank == 0 and step % 20 == 0:
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        self.export()
