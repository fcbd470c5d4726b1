from sft3 import data, engine_utils

from .mixins import EpochLoopMixin, ExportMixin


class Zero3Trainer(EpochLoopMixin, ExportMixin):
    def __init__(self, model, tokenizer, examples, args):
        self.args = args
        self.tokenizer = tokenizer
        self.engine = engine_utils.build_engine(model, args)
        self.loader = data.build_loader(examples, self.engine.train_micro_batch_size_per_gpu(),
                                        tokenizer.pad_token_id)
