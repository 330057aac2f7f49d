"""The checkpoint companion (rules/companion/library/checkpoint.py) against real torch: files torch
writes are read without torch, a Cell takes torch's state_dict by torch's names and gives it back
under them, and what the companion saves it loads again."""

from __future__ import annotations

import builtins
import importlib.util
import pickle

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

ENTRIES = ["save", "load", "state_dict", "load_state_dict"]


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_checkpoint.py"
    path.write_text(assemble(ENTRIES), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_checkpoint", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _torch_model(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv1d(2, 3, 3),
        torch.nn.BatchNorm1d(3),
        torch.nn.Flatten(),
        torch.nn.LayerNorm(6),
        torch.nn.Linear(6, 4),
    )
    with torch.no_grad():
        model[1].running_mean.normal_()
        model[1].running_var.uniform_(1.0, 2.0)
        for p in model.parameters():
            p.normal_()
    return model.eval()


def _ms_model(ms):
    nn = ms.nn
    return nn.SequentialCell(
        nn.Conv1d(2, 3, 3, pad_mode="valid", has_bias=True),
        nn.BatchNorm1d(3),
        nn.Flatten(),
        nn.LayerNorm((6,)),
        nn.Dense(6, 4),
    )


def test_a_torch_file_loads_without_torch_and_computes_the_same(
    fw, aux, tmp_path, monkeypatch
):
    torch, ms = fw
    model = _torch_model(torch)
    x = np.random.default_rng(1).standard_normal((5, 2, 4)).astype(np.float32)
    expected = model(torch.tensor(x)).detach().numpy()
    bundle = {
        "model": model.state_dict(),
        "epoch": 7,
        "strided": torch.arange(6.0).reshape(2, 3).t(),
        "half": torch.ones(3, dtype=torch.bfloat16) / 3,
        "ids": torch.tensor([3, 1], dtype=torch.int64),
    }
    path = tmp_path / "bundle.pth"
    torch.save(bundle, path)
    # Reading needs no torch: any import of it fails while the file is read.
    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("torch is not available")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    loaded = aux.load(str(path), map_location="cpu", weights_only=True)
    monkeypatch.undo()
    assert loaded["epoch"] == 7
    np.testing.assert_array_equal(
        loaded["strided"].asnumpy(), bundle["strided"].numpy()
    )
    assert loaded["half"].dtype == ms.bfloat16
    np.testing.assert_array_equal(
        loaded["half"].astype(ms.float32).asnumpy(), bundle["half"].float().numpy()
    )
    assert loaded["ids"].asnumpy().tolist() == [3, 1]
    cell = _ms_model(ms)
    keys = aux.load_state_dict(cell, loaded["model"])
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    cell.set_train(False)
    got = cell(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_a_cells_state_dict_has_torchs_names_and_loads_back(fw, aux, tmp_path):
    torch, ms = fw
    model = _torch_model(torch)
    cell = _ms_model(ms)
    aux.load_state_dict(
        cell, {k: ms.Tensor(v.numpy()) for k, v in model.state_dict().items()}
    )
    state = aux.state_dict(cell)
    torch_keys = [
        k for k in model.state_dict() if not k.endswith("num_batches_tracked")
    ]
    assert sorted(state) == sorted(torch_keys)
    for key in torch_keys:
        np.testing.assert_allclose(
            state[key].asnumpy().reshape(model.state_dict()[key].shape),
            model.state_dict()[key].numpy(),
        )
    path = tmp_path / "cell.bin"
    aux.save({"state": state, "step": 3, "names": ["a", "b"]}, str(path))
    back = aux.load(str(path))
    assert back["step"] == 3 and back["names"] == ["a", "b"]
    fresh = _ms_model(ms)
    aux.load_state_dict(fresh, back["state"])
    for (name, a), (_, b) in zip(
        cell.parameters_and_names(), fresh.parameters_and_names()
    ):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=name)
    # MindSpore's own names are taken as well.
    assert aux.load_state_dict(fresh, cell.parameters_dict()).unexpected_keys == []


def test_strict_loading_raises_as_torch_does(fw, aux):
    torch, ms = fw
    state = {
        k: ms.Tensor(v.numpy()) for k, v in _torch_model(torch).state_dict().items()
    }
    state.pop("4.bias")
    state["extra.weight"] = ms.Tensor(np.zeros(2, np.float32))
    with pytest.raises(RuntimeError, match="missing keys"):
        aux.load_state_dict(_ms_model(ms), state)
    keys = aux.load_state_dict(_ms_model(ms), state, strict=False)
    assert keys.missing_keys == ["4.bias"] and keys.unexpected_keys == ["extra.weight"]
    # torch answers the same for its own module.
    module = _torch_model(torch)
    t_state = {k: torch.tensor(v.asnumpy()) for k, v in state.items()}
    t_keys = module.load_state_dict(t_state, strict=False)
    assert t_keys.missing_keys == keys.missing_keys
    assert t_keys.unexpected_keys == keys.unexpected_keys


def test_an_optimizers_state_has_torchs_layout_not_a_cells(fw, aux):
    """An optimizer is a Cell in MindSpore; its state is still torch's `state` and
    `param_groups` (tests/companion/test_optim_state_real.py resumes it)."""
    torch, ms = fw
    from mindspore.experimental import optim

    cell = _ms_model(ms)
    optimizer = optim.SGD(cell.trainable_params(), lr=0.1)
    state = aux.state_dict(optimizer)
    expected = torch.optim.SGD(_torch_model(torch).parameters(), lr=0.1).state_dict()
    assert state.keys() == expected.keys()
    assert state["param_groups"][0]["params"] == expected["param_groups"][0]["params"]
    aux.load_state_dict(optimizer, state)


def test_objects_other_than_tensors_in_a_torch_file_are_refused(fw, aux, tmp_path):
    torch, _ = fw
    path = tmp_path / "module.pth"
    torch.save(torch.nn.Linear(2, 2), path)
    with pytest.raises(
        pickle.UnpicklingError, match="only tensors and plain containers"
    ):
        aux.load(str(path))


def test_a_whole_cell_saved_loads_back_as_a_copy_holding_the_values_written(fw, aux):
    """`torch.save(model, f)` then `torch.load(f)`: torch unpickles a new module with the values
    saved, whatever training did to the original since; so does the companion within a run."""
    import io

    torch, ms = fw
    tmodel, cell = _torch_model(torch), _ms_model(ms)
    state = {k: ms.Tensor(v.numpy()) for k, v in tmodel.state_dict().items()}
    aux.load_state_dict(cell, state)
    x = np.random.default_rng(2).standard_normal((2, 2, 4)).astype(np.float32)
    tfile, mfile = io.BytesIO(), io.BytesIO()
    torch.save(tmodel, tfile)
    aux.save(cell, mfile)
    with torch.no_grad():
        for p in tmodel.parameters():
            p.zero_()
    for p in cell.trainable_params():
        p.set_data(ms.ops.zeros_like(p))
    tfile.seek(0)
    mfile.seek(0)
    treloaded = torch.load(tfile, weights_only=False)
    mreloaded = aux.load(mfile)
    assert mreloaded is not cell
    mreloaded.set_train(False)
    np.testing.assert_allclose(
        mreloaded(ms.Tensor(x)).asnumpy(),
        treloaded(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    assert float(cell.trainable_params()[0].sum().asnumpy()) == 0.0
    other_run = io.BytesIO()
    aux.save(_ms_model(ms), other_run)
    aux._CKPT_CELLS.clear()
    other_run.seek(0)
    with pytest.raises(RuntimeError, match="saved whole by another run"):
        aux.load(other_run)


def test_a_mindspore_checkpoint_is_read_under_the_name_the_program_gives(
    fw, aux, tmp_path
):
    """`load` reads a `.ckpt` that `mindspore.save_checkpoint` wrote, and the `name + '.ckpt'`
    that `torch2ms weights net.pth net.pth` (or an earlier conversion) wrote for `name`."""
    torch, ms = fw
    model = _torch_model(torch)
    cell = _ms_model(ms)
    aux.load_state_dict(
        cell, {k: ms.Tensor(v.numpy()) for k, v in model.state_dict().items()}
    )
    ms.save_checkpoint(cell, str(tmp_path / "net.pth"))  # writes net.pth.ckpt
    ms.save_checkpoint(cell, str(tmp_path / "named.ckpt"))
    for name in ("net.pth", "named.ckpt"):
        state = aux.load(str(tmp_path / name))
        fresh = _ms_model(ms)
        keys = aux.load_state_dict(fresh, state)
        assert keys.missing_keys == [] and keys.unexpected_keys == [], name
        for (key, a), (_, b) in zip(
            cell.parameters_and_names(), fresh.parameters_and_names()
        ):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=key)
