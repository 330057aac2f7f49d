# A whole Module pickled with torch.save: reported (TM937); its parameters would be saved instead.
import mindspore
from mindspore import nn
import torch


class Tagger(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4, embedding_table=mindspore.common.initializer.Normal(1.0))
        self.head = nn.Dense(4, 3)

    def construct(self, tokens):
        return self.head(self.embed(tokens).mean(dim=1))


model = Tagger()
# torch2ms: TM937 `torch.save` of a whole Module: MindSpore saves a Cell's Parameters, not the pickled object
# torch2ms: TM940 `torch.save` has no certain MindSpore mapping
torch.save(model, "tagger.pt")
