from transformers import Seq2SeqTrainer


class SummaryTrainer(Seq2SeqTrainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        loss = outputs.loss * inputs.get("weight", 1.0) if "weight" in inputs else outputs.loss
        return (loss, outputs) if return_outputs else loss
