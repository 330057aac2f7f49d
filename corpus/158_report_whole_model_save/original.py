# A whole Module pickled with torch.save: reported (TM937); its parameters would be saved instead.
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 3)

    def forward(self, tokens):
        return self.head(self.embed(tokens).mean(dim=1))


model = Tagger()
torch.save(model, "tagger.pt")
