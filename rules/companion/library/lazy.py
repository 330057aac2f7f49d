"""torch's lazy layers: the layer takes its input width from the first input it sees.

As torch's `LazyModuleMixin` does, the first call builds the layer it stands for with that width
(`cls_to_become`) and the object becomes an instance of that class; the mode set before the first
call (`set_train()`) is kept. Until then it holds no Parameters.
"""

from mindspore import nn

from .layers import BatchNorm1d, BatchNorm2d, Linear
from .unpooling import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d


class _LazyLayer(nn.Cell):
    cls_to_become = None

    def __init__(self, **arguments):
        super().__init__()
        self._lazy_arguments = arguments

    def has_uninitialized_params(self):
        return True

    def construct(self, input, *args):
        training = self.training
        arguments = self._lazy_arguments
        width = input.shape[self._width_axis(input)]
        self.__class__ = self.cls_to_become
        self.__init__(width, **arguments)
        self.set_train(training)
        return self.construct(input, *args)

    @staticmethod
    def _width_axis(input):
        return 1


class _LazyNorm(_LazyLayer):
    def __init__(
        self,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
    ):
        super().__init__(
            eps=eps,
            momentum=momentum,
            affine=affine,
            track_running_stats=track_running_stats,
        )


class LazyBatchNorm1d(_LazyNorm):
    """`torch.nn.LazyBatchNorm1d`: a `BatchNorm1d` over the channels of the first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNorm):
    """`torch.nn.LazyBatchNorm2d`: a `BatchNorm2d` over the channels of the first input."""

    cls_to_become = BatchNorm2d


class LazyInstanceNorm1d(_LazyNorm):
    """`torch.nn.LazyInstanceNorm1d`: an `InstanceNorm1d` over the channels of the first input
    (torch's lazy form learns a scale and tracks statistics by default)."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNorm):
    """`torch.nn.LazyInstanceNorm2d`: an `InstanceNorm2d` over the first input's channels."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNorm):
    """`torch.nn.LazyInstanceNorm3d`: an `InstanceNorm3d` over the first input's channels."""

    cls_to_become = InstanceNorm3d


class LazyLinear(_LazyLayer):
    """`torch.nn.LazyLinear`: a `Linear` from the last axis of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(out_features=out_features, bias=bias)

    @staticmethod
    def _width_axis(input):
        return -1
