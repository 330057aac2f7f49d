"""torch.distributed, DistributedDataParallel, device selection, torch.onnx and torch.equal become
companion entries; the Ascend target keeps the torch-aligned `mint.distributed` calls; converting
again changes nothing."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\nimport torch.distributed as dist\n\n\n"

REWRITES = [
    # In-place collectives, ReduceOp values, the process group.
    (
        HEAD + "def reduce_tensor(tensor, n):\n"
        "    rt = tensor.clone()\n"
        "    dist.all_reduce(rt, op=dist.ReduceOp.SUM)\n"
        "    torch.distributed.broadcast(rt, 0)\n"
        "    dist.all_gather([rt], rt)\n"
        "    return rt / n\n",
        (
            "import ms_aux\n\n\ndef reduce_tensor(tensor, n):\n"
            "    rt = tensor.copy()\n"
            "    ms_aux.all_reduce(rt, op=ms_aux.ReduceOp.SUM)\n"
            "    ms_aux.broadcast(rt, 0)\n"
            "    ms_aux.all_gather([rt], rt)\n"
            "    return rt / n\n"
        ),
        {"all_reduce", "ReduceOp", "broadcast", "all_gather"},
    ),
    (
        HEAD + "def setup(backend, url, size, rank, device):\n"
        "    torch.distributed.init_process_group(\n"
        "        backend=backend, init_method=url, world_size=size, rank=rank)\n"
        "    torch.cuda.set_device(device)\n"
        "    torch.npu.set_device(device)\n"
        "    return dist.get_world_size()\n",
        (
            "import ms_aux\n\n\ndef setup(backend, url, size, rank, device):\n"
            "    ms_aux.init_process_group(\n"
            "        backend=backend, init_method=url, world_size=size, rank=rank)\n"
            "    ms_aux.cuda_set_device(device)\n"
            "    ms_aux.npu_set_device(device)\n"
            "    return ms_aux.dist_get_world_size()\n"
        ),
        {
            "init_process_group",
            "cuda_set_device",
            "npu_set_device",
            "dist_get_world_size",
        },
    ),
    # DDP imported inside a method, with **kwargs, and its no_sync context.
    (
        HEAD + "def wrap(model, device_ids, **ddp_kwargs):\n"
        "    from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "    model = DDP(model, device_ids=device_ids, **ddp_kwargs)\n"
        "    with model.no_sync():\n"
        "        pass\n"
        "    return model\n",
        (
            "import ms_aux\n\n\ndef wrap(model, device_ids, **ddp_kwargs):\n"
            "    model = ms_aux.DistributedDataParallel(model, device_ids=device_ids, **ddp_kwargs)\n"
            "    with model.no_sync():\n"
            "        pass\n"
            "    return model\n"
        ),
        {"DistributedDataParallel"},
    ),
    (
        HEAD + "def same(a, b, c):\n"
        "    return torch.equal(a, b) and torch.equal(b, c)\n",
        (
            "import ms_aux\n\n\ndef same(a, b, c):\n"
            "    return ms_aux.equal(a, b) and ms_aux.equal(b, c)\n"
        ),
        {"equal"},
    ),
    # timm's exporter: enum values, the exporter's signature, a getattr default, dynamo stand-ins.
    (
        HEAD + "def export(model, x, f, training, aten):\n"
        "    mode = torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL\n"
        "    kind = torch.onnx.OperatorExportTypes.ONNX_ATEN_FALLBACK if aten else None\n"
        "    has_dynamo = 'dynamo' in inspect.signature(torch.onnx.export).parameters\n"
        "    dim = getattr(torch.export.Dim, 'DYNAMIC', torch.export.Dim.AUTO)\n"
        "    if has_dynamo:\n"
        "        options = torch.onnx.ExportOptions(dynamic_shapes=True)\n"
        "        return torch.onnx.dynamo_export(model, x, export_options=options)\n"
        "    torch.onnx.export(model, x, f, training=mode, operator_export_type=kind,\n"
        "                      dynamic_axes={'input0': {0: dim}})\n",
        (
            "import ms_aux\n\n\ndef export(model, x, f, training, aten):\n"
            "    mode = ms_aux.TrainingMode.TRAINING if training else ms_aux.TrainingMode.EVAL\n"
            "    kind = ms_aux.OperatorExportTypes.ONNX_ATEN_FALLBACK if aten else None\n"
            "    has_dynamo = 'dynamo' in inspect.signature(ms_aux.onnx_export).parameters\n"
            "    dim = ms_aux.export_dim_auto\n"
            "    if has_dynamo:\n"
            "        options = ms_aux.ExportOptions(dynamic_shapes=True)\n"
            "        return ms_aux.dynamo_export(model, x, export_options=options)\n"
            "    ms_aux.onnx_export(model, x, f, training=mode, operator_export_type=kind,\n"
            "                      dynamic_axes={'input0': {0: dim}})\n"
        ),
        {
            "TrainingMode",
            "OperatorExportTypes",
            "onnx_export",
            "export_dim_auto",
            "ExportOptions",
            "dynamo_export",
        },
    ),
]


@pytest.mark.parametrize(("source", "expected", "used"), REWRITES)
def test_distributed_and_export_plumbing_become_companion_entries(
    source: str, expected: str, used: set[str]
) -> None:
    result = convert_checked(source)
    assert result.code == expected
    assert result.companion == used
    assert not [f for f in result.findings if f.severity == "error"], result.findings


def test_the_dynamo_exporter_check_is_answered_by_the_stand_in() -> None:
    result = convert_checked(
        "import torch\n\n\ndef f():\n    assert hasattr(torch.onnx, 'dynamo_export')\n"
    )
    assert "assert True" in result.code and "torch" not in result.code


def test_the_ascend_target_keeps_mint_distributed_calls() -> None:
    source = HEAD + "def f(t):\n    dist.all_reduce(t)\n    return dist.get_rank()\n"
    result = convert_checked(source, target="ascend")
    assert "    mint.distributed.all_reduce(t)\n" in result.code
    assert "return mint.distributed.get_rank()" in result.code
    assert "ms_aux" not in result.code
