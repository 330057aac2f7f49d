"""torch's adaptive softmax (Grave et al.): a head over the frequent classes and one cluster
token per tail, each tail a two-layer projection, with torch's constructor, parameter names
(`head`, `tail.<i>.0`, `tail.<i>.1`) and forward; composed from Dense layers, log-softmax,
gathers and masks."""

import collections

from mindspore import nn, ops

from .layers import Linear

_ASMoutput = collections.namedtuple("_ASMoutput", ["output", "loss"])


def _log_softmax(x):
    shifted = x - x.max(axis=1, keepdims=True)
    return shifted - ops.log(ops.exp(shifted).sum(axis=1, keepdims=True))


class AdaptiveLogSoftmaxWithLoss(nn.Cell):
    """`torch.nn.AdaptiveLogSoftmaxWithLoss`: `construct(input, target)` returns
    `(output, loss)` (each target's log-probability and their negated mean); `log_prob` and
    `predict` as torch's."""

    def __init__(
        self,
        in_features,
        n_classes,
        cutoffs,
        div_value=4.0,
        head_bias=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > (n_classes - 1)
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias)
        self.tail = nn.CellList(
            [
                nn.SequentialCell(
                    Linear(
                        in_features,
                        int(in_features // (div_value ** (i + 1))),
                        bias=False,
                    ),
                    Linear(
                        int(in_features // (div_value ** (i + 1))),
                        self.cutoffs[i + 1] - self.cutoffs[i],
                        bias=False,
                    ),
                )
                for i in range(self.n_clusters)
            ]
        )

    def construct(self, input, target):
        if target.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError("1D target tensor expects 1D input tensors")
            output, loss = self.construct(input.expand_dims(0), target.expand_dims(0))
            return _ASMoutput(output.squeeze(0), loss)
        if target.ndim != 1 or input.ndim != 2 or input.shape[0] != target.shape[0]:
            raise RuntimeError(
                "Input and target should have the same size in the batch dimension."
            )
        if int(target.min()) < 0 or int(target.max()) >= self.n_classes:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{int(target.min())}, {int(target.max())}] were found. "
            )
        head_logprob = _log_softmax(self.head(input))
        gather = target
        output = ops.zeros(target.shape, input.dtype)
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            inside = (target >= low) & (target < high)
            gather = ops.where(inside, self.shortlist_size + i, gather)
            cluster = _log_softmax(self.tail[i](input))
            relative = ops.clip(target - low, 0, high - low - 1).astype("int32")
            local = ops.gather_elements(cluster, 1, relative.expand_dims(1)).squeeze(1)
            output = ops.where(inside, local, output)
        head = ops.gather_elements(
            head_logprob, 1, gather.astype("int32").expand_dims(1)
        )
        output = output + head.squeeze(1)
        return _ASMoutput(output, (-output).mean())

    def _full_log_prob(self, input, head_output):
        head_logprob = _log_softmax(head_output)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = _log_softmax(self.tail[i](input))
            parts.append(
                cluster
                + head_logprob[:, self.shortlist_size + i : self.shortlist_size + i + 1]
            )
        return ops.cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class, (N, n_classes) or (n_classes,)."""
        if input.ndim == 1:
            return self.log_prob(input.expand_dims(0)).squeeze(0)
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row."""
        return ops.argmax(self.log_prob(input), dim=-1)
