"""Which torch API each companion entry stands for, merged from one table per library file."""

from __future__ import annotations

from .table_adaptive_softmax import ENTRIES as ADAPTIVE_SOFTMAX
from .table_attention import ENTRIES as ATTENTION
from .table_conv_transpose import ENTRIES as CONV_TRANSPOSE
from .table_data import ENTRIES as DATA
from .table_distributed import ENTRIES as DISTRIBUTED
from .table_autograd import ENTRIES as AUTOGRAD
from .table_backend_flags import ENTRIES as BACKEND_FLAGS
from .table_device_probes import ENTRIES as DEVICE_PROBES
from .table_distributions import ENTRIES as DISTRIBUTIONS
from .table_export import ENTRIES as EXPORT
from .table_fft import ENTRIES as FFT
from .table_foreach import ENTRIES as FOREACH
from .table_functional import ENTRIES as FUNCTIONAL
from .table_functional import VALUE_ONLY
from .table_layers import ENTRIES as LAYERS
from .table_layers_more import ENTRIES as LAYERS_MORE
from .table_lazy import ENTRIES as LAZY
from .table_linalg import ENTRIES as LINALG
from .table_loading import ENTRIES as LOADING
from .table_losses import ENTRIES as LOSSES
from .table_methods import ENTRIES as METHODS
from .table_nn_extra import ENTRIES as NN_EXTRA
from .table_nn_utils import ENTRIES as NN_UTILS
from .table_sdpa_backends import ENTRIES as SDPA_BACKENDS
from .table_optim import ENTRIES as OPTIM
from .table_parameters import ENTRIES as PARAMETERS
from .table_plumbing import ENTRIES as PLUMBING
from .table_recurrent import ENTRIES as RECURRENT
from .table_resampling import ENTRIES as RESAMPLING
from .table_runtime import CALL_ONLY
from .table_runtime import ENTRIES as RUNTIME
from .table_tensor_ops import ENTRIES as TENSOR_OPS
from .table_torch_functions import ENTRIES as TORCH_FUNCTIONS
from .table_torch_functions import VALUE_ONLY as _TORCH_VALUES
from .table_special import ENTRIES as SPECIAL
from .table_windows import ENTRIES as WINDOWS
from .table_unpooling import ENTRIES as UNPOOLING
from .table_weight_norm import ENTRIES as WEIGHT_NORM

# torch qualified name -> companion entry name.
ENTRIES: dict[str, str] = {}
for _table in (
    PLUMBING,
    BACKEND_FLAGS,
    DISTRIBUTED,
    EXPORT,
    RUNTIME,
    FUNCTIONAL,
    METHODS,
    TENSOR_OPS,
    TORCH_FUNCTIONS,
    LAYERS,
    ATTENTION,
    PARAMETERS,
    RECURRENT,
    NN_UTILS,
    NN_EXTRA,
    SDPA_BACKENDS,
    LAZY,
    CONV_TRANSPOSE,
    RESAMPLING,
    LAYERS_MORE,
    ADAPTIVE_SOFTMAX,
    LOSSES,
    UNPOOLING,
    OPTIM,
    FOREACH,
    LOADING,
    DATA,
    DISTRIBUTIONS,
    AUTOGRAD,
    WINDOWS,
    FFT,
    SPECIAL,
    LINALG,
    WEIGHT_NORM,
    DEVICE_PROBES,
):
    for _torch, _entry in _table.items():
        if _torch in ENTRIES and ENTRIES[_torch] != _entry:
            raise ValueError(f"two companion entries for {_torch}")
        ENTRIES[_torch] = _entry

VALUE_ONLY = VALUE_ONLY | _TORCH_VALUES

__all__ = ["CALL_ONLY", "ENTRIES", "ENTRY_TARGETS", "VALUE_ONLY"]

# Entries needed only on some targets (a torch-aligned `mint` form exists elsewhere).
ENTRY_TARGETS: dict[str, tuple[str, ...]] = {}
