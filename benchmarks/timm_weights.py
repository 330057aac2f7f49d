"""Checkpoints made for converted timm models: how many place every tensor of torch's state_dict.

One model per module of ``timm/models`` (as ``timm_families.py`` picks them), or ``--models``:
- real torch builds it from the original timm source (seed 0, ``pretrained=False``) and saves its
  ``state_dict``;
- the converted timm builds the same model on MindSpore, torch blocked (``--mindspore-python``
  may name a Python without torch), describes its Parameters, places torch's tensors by the
  model's own names (what ``torch2ms weights --model`` does), and loads them with
  ``load_param_into_net``, counting what stays unloaded or unused.

    python benchmarks/timm_weights.py --timm DIR --converted DIR [--models a,b] [--limit N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SIDE = os.path.join(os.path.dirname(HERE), "migrator", "model_side.py")


def side_torch(names: list[str], folder: str, source: str) -> None:
    sys.path.insert(0, source)
    import numpy as np
    import timm
    import torch

    for name in names:
        try:
            torch.manual_seed(0)
            state = timm.create_model(name, pretrained=False).state_dict()
            arrays = {
                k: (v.float() if v.dtype == torch.bfloat16 else v).numpy()
                for k, v in state.items()
            }
            np.savez(os.path.join(folder, name + ".npz"), **arrays)
            print(json.dumps({"model": name, "tensors": len(arrays)}), flush=True)
        except Exception as error:  # noqa: BLE001 - timm's own failure here
            print(
                json.dumps(
                    {
                        "model": name,
                        "torch_error": f"{type(error).__name__}: {error}"[:300],
                    }
                ),
                flush=True,
            )


def side_mindspore(names: list[str], folder: str, converted: str) -> None:
    spec = importlib.util.spec_from_file_location("model_side", SIDE)
    side = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(side)
    side._block_torch()
    sys.path.insert(0, converted)
    import mindspore
    import numpy as np
    import timm

    placement = side._placement()
    for name in names:
        record: dict = {"model": name}
        path = os.path.join(folder, name + ".npz")
        if not os.path.exists(path):
            continue
        try:
            mindspore.set_seed(0)
            net = timm.create_model(name, pretrained=False)
            slots = [placement.Slot.from_dict(s) for s in side.describe(net, mindspore)]
            with np.load(path) as data:
                state = {k: data[k] for k in data.files}
            placed = placement.place(state, slots)
            record["parameters"] = len(slots)
            record["problems"] = [list(p) for p in placed.problems]
            if placed.ok:
                params = {
                    n: mindspore.Parameter(mindspore.Tensor(a), name=n)
                    for n, a, _ in placed.entries
                }
                unloaded, unused = mindspore.load_param_into_net(net, params)
                record["unloaded"], record["unused"] = list(unloaded), list(unused)
        except Exception as error:  # noqa: BLE001 - reported per model
            record["error"] = f"{type(error).__name__}: {error}"[:300]
        print(json.dumps(record), flush=True)


def _run(python: str, args: list[str]) -> dict[str, dict]:
    done = subprocess.run(
        [python, os.path.abspath(__file__), "--side", *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    records = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            records[record["model"]] = record
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
    return records


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--side":
        side, folder, tree, names = argv[1], argv[2], argv[3], argv[4].split(",")
        (side_torch if side == "torch" else side_mindspore)(names, folder, tree)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--timm", required=True, help="the folder holding the original timm"
    )
    parser.add_argument(
        "--converted", required=True, help="the folder holding converted timm"
    )
    parser.add_argument(
        "--models", help="comma-separated (default: one per timm module)"
    )
    parser.add_argument("--limit", type=int)
    parser.add_argument("--mindspore-python", default=sys.executable)
    parser.add_argument("--work")
    parser.add_argument("--json", help="also write the records here")
    args = parser.parse_args(argv)
    work = args.work or tempfile.mkdtemp(prefix="timm-weights-")
    os.makedirs(work, exist_ok=True)
    if args.models:
        names = args.models.split(",")
    else:
        sys.path.insert(0, os.path.abspath(args.timm))
        sys.path.insert(0, HERE)
        from timm_families import pick_models

        names = pick_models(args.limit)
    torch_side = _run(
        sys.executable, ["torch", work, os.path.abspath(args.timm), ",".join(names)]
    )
    built = [n for n in names if "tensors" in torch_side.get(n, {})]
    ms_side = _run(
        args.mindspore_python,
        ["mindspore", work, os.path.abspath(args.converted), ",".join(built)],
    )
    full = 0
    for name in names:
        record = {**torch_side.get(name, {}), **ms_side.get(name, {})}
        if "torch_error" in record:
            status = "torch fails: " + record["torch_error"][:80]
        elif "error" in record or name not in ms_side:
            status = "converted model fails: " + record.get("error", "no answer")[:100]
        elif record["problems"]:
            first = record["problems"][0]
            status = f"{len(record['problems'])} problem(s), first {first[0]}: {first[1][:80]}"
        elif record.get("unloaded") or record.get("unused"):
            status = (
                f"{len(record['unloaded'])} unloaded, {len(record['unused'])} unused"
            )
        else:
            status = (
                f"all {record['parameters']} parameters placed, 0 unloaded, 0 unused"
            )
            full += 1
        print(f"{name}: {status}")
        ms_side.setdefault(name, record)
    print(f"\nplaced completely: {full}/{len(names)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(
                {n: {**torch_side.get(n, {}), **ms_side.get(n, {})} for n in names},
                handle,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
