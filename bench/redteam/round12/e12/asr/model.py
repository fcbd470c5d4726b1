import torch.nn as nn


class CTCBiLSTM(nn.Module):
    def __init__(self, n_mels=80, hidden=512, layers=5, vocab_size=29):
        super().__init__()
        self.subsample = nn.Sequential(nn.Conv1d(n_mels, hidden, 3, stride=2, padding=1), nn.GELU(),
                                       nn.Conv1d(hidden, hidden, 3, stride=2, padding=1), nn.GELU())
        self.rnn = nn.LSTM(hidden, hidden, layers, batch_first=True, bidirectional=True, dropout=0.1)
        self.out = nn.Linear(2 * hidden, vocab_size + 1)

    def forward(self, feats, lengths):
        x = self.subsample(feats.transpose(1, 2)).transpose(1, 2)
        out_lengths = ((lengths + 1) // 2 + 1) // 2
        x, _ = self.rnn(x)
        return self.out(x).log_softmax(-1), out_lengths
