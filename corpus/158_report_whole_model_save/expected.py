# A whole Module saved with torch.save: the companion writes its parameter values and keeps the Cell for the run (TM937 says what differs from torch).
import mindspore
from mindspore import nn
import ms_aux


class Tagger(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4, embedding_table=mindspore.common.initializer.Normal(1.0))
        self.head = nn.Dense(4, 3)

    def construct(self, tokens):
        return self.head(self.embed(tokens).mean(dim=1))


model = Tagger()
# torch2ms: TM937 `torch.save` of a whole Module: the companion writes the Cell's parameter values and keeps the Cell for this run, so `torch.load` of the file in the same run gives back a copy holding them, as torch does; unlike torch, another process cannot rebuild the Cell from the file
ms_aux.save(model, "tagger.pt")
