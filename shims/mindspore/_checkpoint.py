"""``save_checkpoint`` / ``load_checkpoint`` / ``load_param_into_net`` in a NumPy ``.npz`` container.

The file holds name -> array; it is the shim's own format, not MindSpore's protobuf ``.ckpt``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from .. import core
from ._tensor import Parameter, Tensor


def _named_arrays(save_obj: Any) -> OrderedDict[str, np.ndarray]:
    from .nn.cell import Cell

    arrays: OrderedDict[str, np.ndarray] = OrderedDict()
    if isinstance(save_obj, Cell):
        for param in save_obj.get_parameters():
            arrays[param.name] = np.array(param._data)
    elif isinstance(save_obj, dict):
        for name, value in save_obj.items():
            arrays[name] = np.array(core.raw(value))
    else:
        for item in save_obj:
            value = item["data"]
            arrays[item["name"]] = np.array(
                value._data if isinstance(value, core.Tensor) else value
            )
    return arrays


def save_checkpoint(
    save_obj: Any,
    ckpt_file_name: str,
    integrated_save: bool = True,
    async_save: bool = False,
    append_dict: Any = None,
    **kwargs: Any,
) -> None:
    if not ckpt_file_name.endswith(".ckpt"):
        ckpt_file_name += ".ckpt"  # as MindSpore does
    arrays = _named_arrays(save_obj)
    for name, value in (append_dict or {}).items():
        arrays[name] = np.array(core.raw(value))
    with open(ckpt_file_name, "wb") as handle:
        np.savez(handle, **arrays)


def load_checkpoint(
    ckpt_file_name: str,
    net: Any = None,
    strict_load: bool = False,
    filter_prefix: Any = None,
    **kwargs: Any,
) -> dict:
    with np.load(ckpt_file_name, allow_pickle=False) as archive:
        params = {
            name: Parameter(Tensor(archive[name]), name=name) for name in archive.files
        }
    if filter_prefix is not None:
        prefixes = (
            (filter_prefix,) if isinstance(filter_prefix, str) else tuple(filter_prefix)
        )
        params = {k: v for k, v in params.items() if not k.startswith(prefixes)}
    if net is not None:
        load_param_into_net(net, params, strict_load)
    return params


def load_param_into_net(
    net: Any, parameter_dict: dict, strict_load: bool = False, **kwargs: Any
) -> tuple[list, list]:
    """Copy matching names into ``net``; returns (params not loaded, checkpoint names not used)."""
    used = set()
    not_loaded = []
    for param in net.get_parameters():
        if param.name in parameter_dict:
            param.set_data(parameter_dict[param.name])
            used.add(param.name)
        else:
            not_loaded.append(param.name)
    unused = [name for name in parameter_dict if name not in used]
    return not_loaded, unused
