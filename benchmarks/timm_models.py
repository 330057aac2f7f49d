"""Converted timm models on MindSpore against torch (logits) and against mindcv (speed).

For each model of the panel:
- real torch builds it from the original timm source with seed 0 and ``pretrained=False``, in eval
  mode, saves its ``state_dict`` and its logits on one seeded batch of 2;
- ``torch2ms weights`` converts the ``state_dict`` to a checkpoint;
- the converted timm builds the same model on real MindSpore, in a process where torch and
  torchvision cannot be imported, loads the checkpoint (no parameter may stay unloaded) and computes
  the logits on the same batch;
- mindcv 0.3.0's hand-written MindSpore model of the same architecture runs on the same batch in
  the same process as the converted model, the two forward passes taken in turns, for speed.

torch and MindSpore run in fresh processes. Forward times are the best of ``--repeat`` runs after
one warm-up.

    python benchmarks/timm_models.py [--timm DIR] [--models resnet18,vit_tiny_patch16_224]

Without ``--timm`` it downloads timm 1.0.31 (``pip download --no-deps``) into the work folder.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

TIMM_VERSION = "1.0.31"
PANEL = (
    "resnet18",
    "resnet50",
    "vit_tiny_patch16_224",
    "convnext_atto",
    "efficientnet_b0",
    "mobilenetv3_small_100",
    "deit_tiny_patch16_224",
    "regnetx_002",
    "densenet121",
    "swin_tiny_patch4_window7_224",
)
_VIT_TINY = (
    "mindcv.models.vit:VisionTransformer",
    {
        "image_size": 224,
        "patch_size": 16,
        "embed_dim": 192,
        "depth": 12,
        "num_heads": 3,
    },
)
# mindcv's hand-written model of the same architecture: a registered name, or "module:Class" and
# the constructor arguments.
MINDCV = {
    "resnet18": ("resnet18", {}),
    "resnet50": ("resnet50", {}),
    "vit_tiny_patch16_224": _VIT_TINY,
    "deit_tiny_patch16_224": _VIT_TINY,
    "convnext_atto": (
        "mindcv.models.convnext:ConvNeXt",
        {
            "in_channels": 3,
            "num_classes": 1000,
            "depths": [2, 2, 6, 2],
            "dims": [40, 80, 160, 320],
        },
    ),
    "efficientnet_b0": ("efficientnet_b0", {}),
    "mobilenetv3_small_100": ("mobilenet_v3_small_100", {}),
    "regnetx_002": ("regnet_x_200mf", {}),
    "densenet121": ("densenet121", {}),
    "swin_tiny_patch4_window7_224": ("swin_tiny", {}),
}
RTOL = ATOL = 1e-4
BATCH = (2, 3, 224, 224)
BLOCKED = ("torch", "torchvision")


# -- preparing the trees --------------------------------------------------------------------
def timm_source(work: str, given: str | None) -> str:
    """The folder that holds the ``timm`` package (given, or downloaded and unpacked)."""
    if given:
        given = os.path.abspath(given)
        if os.path.isfile(os.path.join(given, "timm", "__init__.py")):
            return given
        if os.path.isfile(os.path.join(given, "__init__.py")):
            return os.path.dirname(given)
        raise SystemExit(f"--timm {given}: no timm package there")
    folder = os.path.join(work, "timm-src")
    if not os.path.isdir(os.path.join(folder, "timm")):
        wheels = os.path.join(work, "wheels")
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", wheels,
             f"timm=={TIMM_VERSION}"],
            check=True,
        )  # fmt: skip
        wheel = glob.glob(os.path.join(wheels, f"timm-{TIMM_VERSION}-*.whl"))[0]
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(folder)
    return folder


def convert_timm(source: str, work: str) -> tuple[str, dict]:
    """Convert the timm package with the torch2ms CLI; returns the folder holding the converted
    package and the report's summary."""
    out = os.path.join(work, "converted")
    shutil.rmtree(out, ignore_errors=True)
    report = os.path.join(work, "convert.json")
    subprocess.run(
        [sys.executable, "-m", "torch2ms", "convert", os.path.join(source, "timm"),
         "-o", os.path.join(out, "timm"), "--report", report, "-q"],
        check=True,
    )  # fmt: skip
    with open(report, encoding="utf-8") as handle:
        return out, json.load(handle)["summary"]


# -- the three sides, each in its own process -----------------------------------------------
def _batch():
    import numpy as np

    return np.random.RandomState(0).standard_normal(BATCH).astype("float32")


def _timed(forward, repeat: int):
    out = forward()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = forward()
        best = min(best, time.perf_counter() - start)
    return out, best


def side_torch(name: str, folder: str, source: str, repeat: int) -> dict:
    sys.path.insert(0, source)
    import numpy as np
    import timm
    import torch

    torch.manual_seed(0)
    model = timm.create_model(name, pretrained=False).eval()
    torch.save(model.state_dict(), os.path.join(folder, "model.pth"))
    x = torch.from_numpy(_batch())
    with torch.no_grad():
        logits, seconds = _timed(lambda: model(x), repeat)
    np.save(os.path.join(folder, "torch.npy"), logits.numpy())
    return {"seconds": seconds}


def _block_torch() -> None:
    class Blocker:
        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(
                    f"{fullname} is blocked: torch is absent here"
                )

    sys.meta_path.insert(0, Blocker())
    for module in list(sys.modules):
        if module.split(".")[0] in BLOCKED:
            del sys.modules[module]


def side_mindspore(
    name: str, folder: str, converted: str, repeat: int, with_mindcv: bool
) -> dict:
    """The converted model; with ``with_mindcv``, mindcv's model of the same architecture is timed
    in the same process, the two forward passes taken in turns, so both see the same machine."""
    _block_torch()
    sys.path.insert(0, converted)
    import mindspore
    import numpy as np
    import timm

    model = timm.create_model(name, pretrained=False)
    params = mindspore.load_checkpoint(os.path.join(folder, "model.ckpt"))
    unloaded, unused = mindspore.load_param_into_net(model, params)
    model.set_train(False)
    x = mindspore.Tensor(_batch())
    forwards = {"seconds": lambda: model(x).asnumpy()}
    result = {"unloaded": list(unloaded), "unused": list(unused)}
    if with_mindcv:
        try:
            reference = _mindcv_model(name)
            forwards["mindcv_seconds"] = lambda: reference(x).asnumpy()
        except Exception as error:  # noqa: BLE001 -- reported in the table
            result["mindcv_error"] = f"{type(error).__name__}: {error}"
    outputs = {key: forward() for key, forward in forwards.items()}  # warm-up
    best = dict.fromkeys(forwards, float("inf"))
    for _ in range(repeat):
        for key, forward in forwards.items():
            start = time.perf_counter()
            forward()
            best[key] = min(best[key], time.perf_counter() - start)
    np.save(os.path.join(folder, "mindspore.npy"), outputs["seconds"])
    return {**result, **best}


def _mindcv_model(name: str):
    import importlib

    spec, kwargs = MINDCV[name]
    if ":" in spec:
        module, cls = spec.split(":")
        model = getattr(importlib.import_module(module), cls)(**kwargs)
    else:
        import mindcv

        model = mindcv.create_model(spec, pretrained=False, **kwargs)
    model.set_train(False)
    return model


def _run_side(args: list[str], timeout: float, python: str | None = None) -> dict:
    """Run one side in a fresh process; its last stdout line is its JSON result."""
    done = subprocess.run(
        [python or sys.executable, os.path.abspath(__file__), "--side", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = "\n".join(done.stderr.strip().splitlines()[-8:])
        return {"error": tail or f"exit {done.returncode}"}
    return json.loads(lines[-1])


# -- one model ------------------------------------------------------------------------------
def compare(
    name: str,
    source: str,
    converted: str,
    work: str,
    repeat: int,
    mindcv: bool = True,
    timeout: float = 1800,
    mindspore_python: str | None = None,
) -> dict:
    """Run the whole path for one model; returns a record for the table. The checkpoint is made
    by ``torch2ms weights`` for the converted model itself (``--model``/``--converted``); the
    MindSpore side runs under ``mindspore_python`` (default: this interpreter, torch blocked)."""
    mindspore_python = mindspore_python or sys.executable
    import numpy as np

    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    record: dict = {"model": name}
    torch_side = _run_side(["torch", name, folder, source, str(repeat)], timeout)
    if "error" in torch_side:
        return {**record, "error": "torch: " + torch_side["error"]}
    record["torch_s"] = torch_side["seconds"]
    weights = subprocess.run(
        [sys.executable, "-m", "torch2ms", "weights", os.path.join(folder, "model.pth"),
         os.path.join(folder, "model.ckpt"), "--converted", converted,
         "--model", f"timm:create_model({name!r})", "--mindspore-python", mindspore_python,
         "--format", "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if weights.returncode != 0:
        return {**record, "error": "weights: " + weights.stderr.strip()[-400:]}
    record["weights"] = json.loads(weights.stdout)
    with_mindcv = "1" if mindcv and name in MINDCV else "0"
    ms_side = _run_side(
        ["mindspore", name, folder, converted, str(repeat), with_mindcv],
        timeout,
        mindspore_python,
    )
    if "error" in ms_side:
        return {**record, "error": "mindspore: " + ms_side["error"]}
    record["converted_s"] = ms_side["seconds"]
    record["unloaded"] = ms_side["unloaded"]
    record["unused"] = ms_side["unused"]
    expected = np.load(os.path.join(folder, "torch.npy"))
    got = np.load(os.path.join(folder, "mindspore.npy"))
    record["max_diff"] = float(np.max(np.abs(expected - got)))
    record["match"] = bool(
        expected.shape == got.shape
        and np.allclose(got, expected, rtol=RTOL, atol=ATOL)
        and not ms_side["unloaded"]
        and not ms_side["unused"]
    )
    if "mindcv_error" in ms_side:
        record["mindcv_error"] = ms_side["mindcv_error"]
    elif "mindcv_seconds" in ms_side:
        record["mindcv_s"] = ms_side["mindcv_seconds"]
        record["ratio"] = record["converted_s"] / ms_side["mindcv_seconds"]
    return record


def table(records: list[dict]) -> str:
    rows = [
        "| model | logits | max diff | unloaded | unused | torch ms | converted ms | mindcv ms | converted / mindcv |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in records:
        if "error" in r:
            rows.append(
                f"| {r['model']} | error | {r['error'].splitlines()[-1][:100]} | | | | | | |"
            )
            continue
        mindcv = (
            f"{r['mindcv_s'] * 1e3:,.0f}"
            if "mindcv_s" in r
            else r.get("mindcv_error", "-")[-60:]
        )
        ratio = f"{r['ratio']:.2f}x" if "ratio" in r else "-"
        rows.append(
            f"| {r['model']} | {'match' if r['match'] else 'DIFFER'} | {r['max_diff']:.2e} | "
            f"{len(r['unloaded'])} | {len(r['unused'])} | {r['torch_s'] * 1e3:,.0f} | {r['converted_s'] * 1e3:,.0f} | "
            f"{mindcv} | {ratio} |"
        )  # fmt: skip
    matched = sum(1 for r in records if r.get("match"))
    ratios = [r["ratio"] for r in records if "ratio" in r]
    rows.append("")
    rows.append(
        f"logits match torch (rtol {RTOL}, atol {ATOL}): {matched}/{len(records)}"
    )
    if ratios:
        rows.append(
            f"median converted / mindcv forward time: {statistics.median(ratios):.2f}x"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--side":
        side, name, folder, *rest = argv[1:]
        if side == "torch":
            result = side_torch(name, folder, rest[0], int(rest[1]))
        else:
            result = side_mindspore(name, folder, rest[0], int(rest[1]), rest[2] == "1")
        print(json.dumps(result))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--timm", help="unpacked timm 1.0.31 (the package or its parent)"
    )
    parser.add_argument("--models", default=",".join(PANEL), help="comma-separated")
    parser.add_argument("--work", help="work folder (default: a temporary one)")
    parser.add_argument("--repeat", type=int, default=3, help="timed forward runs")
    parser.add_argument("--no-mindcv", action="store_true")
    parser.add_argument("--json", help="also write the records here")
    parser.add_argument(
        "--converted", help="a folder holding timm already converted (skips converting)"
    )
    parser.add_argument(
        "--mindspore-python",
        help="the Python of the MindSpore side (it needs no torch; default: this one)",
    )
    args = parser.parse_args(argv)
    work = args.work or tempfile.mkdtemp(prefix="timm-models-")
    os.makedirs(work, exist_ok=True)
    source = timm_source(work, args.timm)
    if args.converted:
        converted = os.path.abspath(args.converted)
        summary = {"api_calls_converted": 0, "api_calls_total": 0, "conversion_rate": 0.0,
                   "files_need_torch": "?", "files_python": "?"}  # fmt: skip
    else:
        converted, summary = convert_timm(source, work)
    print(
        f"converted timm: {summary['api_calls_converted']:,}/{summary['api_calls_total']:,} "
        f"API uses ({summary['conversion_rate']:.1%}), "
        f"{summary['files_need_torch']} of {summary['files_python']} files still need torch",
        flush=True,
    )
    records = []
    for name in [m for m in args.models.split(",") if m]:
        record = compare(
            name, source, converted, work, args.repeat, not args.no_mindcv,
            mindspore_python=args.mindspore_python,
        )  # fmt: skip
        records.append(record)
        status = record.get("error", "").splitlines()[-1:] or [
            f"max diff {record['max_diff']:.2e}"
        ]
        print(f"{name}: {status[0]}", flush=True)
    print(table(records))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"summary": summary, "models": records}, handle, indent=1)
    return 0 if all(r.get("match") for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
