"""The modules of `torch.nn.modules` that define each public `torch.nn` class.

torch re-exports every public class of `torch.nn.modules.<file>` as `torch.nn.<Class>` and as
`torch.nn.modules.<Class>`; code reaches a class by any of the three names, and the API tables
map it once, under `torch.nn.<Class>`.
"""

from __future__ import annotations

DEFINED_IN: dict[str, tuple[str, ...]] = {
    "activation": tuple(
        "CELU ELU GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU "
        "LogSigmoid LogSoftmax Mish MultiheadAttention PReLU RReLU ReLU ReLU6 SELU "
        "SiLU Sigmoid Softmax Softmax2d Softmin Softplus Softshrink Softsign Tanh "
        "Tanhshrink Threshold".split()
    ),
    "adaptive": tuple("AdaptiveLogSoftmaxWithLoss".split()),
    "batchnorm": tuple(
        "BatchNorm1d BatchNorm2d BatchNorm3d LazyBatchNorm1d LazyBatchNorm2d "
        "LazyBatchNorm3d SyncBatchNorm".split()
    ),
    "channelshuffle": tuple("ChannelShuffle".split()),
    "container": tuple(
        "ModuleDict ModuleList ParameterDict ParameterList Sequential".split()
    ),
    "conv": tuple(
        "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d "
        "LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d "
        "LazyConvTranspose3d".split()
    ),
    "distance": tuple("CosineSimilarity PairwiseDistance".split()),
    "dropout": tuple(
        "AlphaDropout Dropout Dropout1d Dropout2d Dropout3d FeatureAlphaDropout".split()
    ),
    "flatten": tuple("Flatten Unflatten".split()),
    "fold": tuple("Fold Unfold".split()),
    "instancenorm": tuple(
        "InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d "
        "LazyInstanceNorm2d LazyInstanceNorm3d".split()
    ),
    "linear": tuple("Bilinear Identity LazyLinear Linear".split()),
    "loss": tuple(
        "BCELoss BCEWithLogitsLoss CTCLoss CosineEmbeddingLoss CrossEntropyLoss "
        "GaussianNLLLoss HingeEmbeddingLoss HuberLoss KLDivLoss L1Loss MSELoss "
        "MarginRankingLoss MultiLabelMarginLoss MultiLabelSoftMarginLoss "
        "MultiMarginLoss NLLLoss PoissonNLLLoss SmoothL1Loss SoftMarginLoss "
        "TripletMarginLoss TripletMarginWithDistanceLoss".split()
    ),
    "normalization": tuple(
        "CrossMapLRN2d GroupNorm LayerNorm LocalResponseNorm RMSNorm".split()
    ),
    "padding": tuple(
        "CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d "
        "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d "
        "ReplicationPad1d ReplicationPad2d ReplicationPad3d ZeroPad1d ZeroPad2d "
        "ZeroPad3d".split()
    ),
    "pixelshuffle": tuple("PixelShuffle PixelUnshuffle".split()),
    "pooling": tuple(
        "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d "
        "AdaptiveMaxPool2d AdaptiveMaxPool3d AvgPool1d AvgPool2d AvgPool3d "
        "FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d LPPool3d MaxPool1d "
        "MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d".split()
    ),
    "rnn": tuple("GRU GRUCell LSTM LSTMCell RNN RNNCell".split()),
    "sparse": tuple("Embedding EmbeddingBag".split()),
    "transformer": tuple(
        "Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder "
        "TransformerEncoderLayer".split()
    ),
    "upsampling": tuple("Upsample UpsamplingBilinear2d UpsamplingNearest2d".split()),
}


def module_names(torch_name: str) -> tuple[str, ...]:
    """The other names of the `torch.nn.<Class>` ``torch_name``: `torch.nn.modules.<Class>` and
    `torch.nn.modules.<file>.<Class>`; none for anything else."""
    prefix, _, leaf = torch_name.rpartition(".")
    if prefix != "torch.nn":
        return ()
    for module, classes in DEFINED_IN.items():
        if leaf in classes:
            return (f"torch.nn.modules.{leaf}", f"torch.nn.modules.{module}.{leaf}")
    return ()
