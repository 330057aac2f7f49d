"""How many of timm's model families run converted on MindSpore and give torch's logits.

One model per module of ``timm/models`` (the first registered name, in sorted order, whose default
input is at most 224 pixels, unless ``--models`` names them):
- real torch builds it from the original timm source with seed 0 and ``pretrained=False``, in eval
  mode, and saves its ``state_dict`` (``torch.save``) and its logits on one seeded image;
- the converted timm builds the same model on real MindSpore, in a process where torch and
  torchvision cannot be imported, reads that file with the companion's ``load`` (torch's zip
  format, read without torch), loads it with the companion's ``load_state_dict`` (torch's names),
  and computes the logits on the same image.

Each model ends as one of: ``match`` (logits within rtol/atol 1e-4 of torch's, every parameter
loaded), ``rounding`` (not within them, but no farther from torch's float64 logits of the same
model than twice torch's own float32 logits are: rounding that the network amplifies), ``differs``, ``unloaded`` (parameters left unloaded), ``fails`` (the converted model
raises: the message is kept), or ``torch fails`` (timm itself cannot build or run it here).

    python benchmarks/timm_families.py [--timm DIR] [--limit N] [--models a,b] [--json OUT]

Without ``--timm`` it downloads timm 1.0.31 (``pip download --no-deps``) into the work folder.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timm_models import _block_torch, convert_timm, timm_source

RTOL = ATOL = 1e-4


# Words timm puts in the names of its smaller variants, smallest first.
SMALL = (
    "test",
    "atto",
    "femto",
    "pico",
    "nano",
    "tiny",
    "xxs",
    "xs",
    "mini",
    "small",
    "18",
    "b0",
)


def _smallness(name: str) -> tuple[int, str]:
    ranks = [i for i, word in enumerate(SMALL) if word in name]
    return (min(ranks) if ranks else len(SMALL), name)


def pick_models(limit: int | None) -> list[str]:
    """One model per module of timm.models, the smallest-named of those whose default input is at
    most 224 pixels (run on the torch side, where timm imports)."""
    import timm

    chosen = []
    for module in sorted(timm.list_modules()):
        fitting = []
        for name in timm.list_models(module=module):
            cfg = timm.models.get_pretrained_cfg(name, allow_unregistered=True)
            input_size = getattr(cfg, "input_size", None) or (3, 224, 224)
            if max(input_size[1:]) <= 224:
                fitting.append(name)
        if fitting:
            chosen.append(min(fitting, key=_smallness))
    return chosen[:limit] if limit else chosen


def side_torch(names: list[str], folder: str, source: str) -> None:
    sys.path.insert(0, source)
    import numpy as np
    import timm
    import torch

    for name in names:
        record = {"model": name}
        try:
            torch.manual_seed(0)
            model = timm.create_model(name, pretrained=False).eval()
            size = model.pretrained_cfg.get("input_size", (3, 224, 224))
            image = (
                np.random.default_rng(0).standard_normal((1, *size)).astype(np.float32)
            )
            with torch.no_grad():
                logits = model(torch.tensor(image)).numpy()
            torch.save(model.state_dict(), os.path.join(folder, name + ".pth"))
            np.save(os.path.join(folder, name + ".image.npy"), image)
            np.save(os.path.join(folder, name + ".logits.npy"), logits)
            exact = _float64_logits(model, image)
            if exact is not None:
                np.save(os.path.join(folder, name + ".logits64.npy"), exact)
                record["torch_fp64_diff"] = float(np.abs(logits - exact).max())
        except Exception as error:  # noqa: BLE001 - timm's own failure on this machine
            record["torch_error"] = f"{type(error).__name__}: {str(error)[:200]}"
        print(json.dumps(record), flush=True)


def _float64_logits(model, image):
    """The same model's logits in float64 (None where timm's model cannot run in float64): how far
    torch's own float32 logits are from them measures the rounding a float32 run carries."""
    import torch

    try:
        with torch.no_grad():
            return model.double()(torch.tensor(image, dtype=torch.float64)).numpy()
    except Exception:  # noqa: BLE001 - an op without a float64 kernel
        return None


def side_mindspore(names: list[str], folder: str, converted: str) -> None:
    _block_torch()
    sys.path.insert(0, converted)
    import importlib.util

    import numpy as np
    from torch2ms.rules.companion import assemble

    path = os.path.join(folder, "ms_aux_checkpoint.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(assemble(["load", "load_state_dict"]))
    spec = importlib.util.spec_from_file_location("ms_aux_checkpoint", path)
    aux = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(aux)
    import mindspore
    import timm

    for name in names:
        record = {"model": name}
        try:
            model = timm.create_model(name, pretrained=False)
            model.set_train(False)
            state = aux.load(os.path.join(folder, name + ".pth"))
            keys = aux.load_state_dict(model, state, strict=False)
            record["unloaded"] = len(keys.missing_keys)
            record["unused"] = len(keys.unexpected_keys)
            image = np.load(os.path.join(folder, name + ".image.npy"))
            logits = model(mindspore.Tensor(image)).asnumpy()
            expected = np.load(os.path.join(folder, name + ".logits.npy"))
            record["max_diff"] = float(np.abs(logits - expected).max())
            exact_path = os.path.join(folder, name + ".logits64.npy")
            if os.path.exists(exact_path) and logits.shape == expected.shape:
                record["fp64_diff"] = float(np.abs(logits - np.load(exact_path)).max())
            record["match"] = bool(
                logits.shape == expected.shape
                and np.allclose(logits, expected, rtol=RTOL, atol=ATOL)
            )
        except Exception as error:  # noqa: BLE001 - reported per model
            record["error"] = f"{type(error).__name__}: {str(error)[:300]}"
        print(json.dumps(record), flush=True)


def _run(args: list[str], names: list[str], timeout: float) -> dict[str, dict]:
    """Run a side over ``names``; a process that dies is restarted after the model it died on."""
    found: dict[str, dict] = {}
    left = list(names)
    while left:
        process = subprocess.run(
            [sys.executable, __file__, *args, "--models", ",".join(left)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        for line in process.stdout.splitlines():
            if line.startswith('{"model"'):
                record = json.loads(line)
                found[record["model"]] = record
        done = [n for n in left if n in found]
        if len(done) == len(left):
            break
        crashed = left[len(done)]
        found[crashed] = {
            "model": crashed,
            "error": f"the process ended (exit {process.returncode}): "
            + process.stderr.strip().splitlines()[-1][:200]
            if process.stderr.strip()
            else f"the process ended (exit {process.returncode})",
        }
        left = left[len(done) + 1 :]
    return found


def outcome(torch_side: dict, ms_side: dict) -> str:
    if "torch_error" in torch_side:
        return "torch fails"
    if "error" in ms_side:
        return "fails"
    if ms_side.get("unloaded"):
        return "unloaded"
    if ms_side.get("match"):
        return "match"
    # Within float32 rounding: no farther from torch's float64 logits than twice torch's own
    # float32 logits are (deep or unnormalised random-init models amplify rounding).
    own, converted = torch_side.get("torch_fp64_diff"), ms_side.get("fp64_diff")
    if own is not None and converted is not None and converted <= 2 * own:
        return "rounding"
    return "differs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--timm", help="an unpacked timm 1.0.31 (the folder holding timm/)"
    )
    parser.add_argument("--work", help="work folder (default: a temporary one)")
    parser.add_argument(
        "--models", help="comma-separated model names (default: one per module)"
    )
    parser.add_argument("--limit", type=int, help="only the first N modules' models")
    parser.add_argument("--json", help="write the records here")
    parser.add_argument("--timeout", type=float, default=7200.0)
    parser.add_argument(
        "--side", choices=("torch", "mindspore"), help=argparse.SUPPRESS
    )
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = args.models.split(",") if args.models else None
    if args.side == "torch":
        side_torch(names, args.folder, args.source)
        return 0
    if args.side == "mindspore":
        side_mindspore(names, args.folder, args.source)
        return 0
    work = args.work or tempfile.mkdtemp(prefix="timm_families_")
    source = timm_source(work, args.timm)
    converted, _ = convert_timm(source, work)
    if names is None:
        here = os.path.dirname(os.path.abspath(__file__))
        program = (
            f"import sys; sys.path.insert(0, {source!r}); sys.path.insert(0, {here!r}); "
            "from timm_families import pick_models; "
            f"print(','.join(pick_models({args.limit})))"
        )
        listing = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, check=True
        )
        names = listing.stdout.strip().split(",")
    folder = os.path.join(work, "families")
    os.makedirs(folder, exist_ok=True)
    print(f"{len(names)} models, one per timm module", flush=True)
    torch_side = _run(
        ["--side", "torch", "--folder", folder, "--source", source], names, args.timeout
    )
    runnable = [
        n for n in names if "torch_error" not in torch_side.get(n, {"torch_error": ""})
    ]
    ms_side = _run(
        ["--side", "mindspore", "--folder", folder, "--source", converted],
        runnable,
        args.timeout,
    )
    records = []
    for name in names:
        t, m = torch_side.get(name, {"torch_error": "not run"}), ms_side.get(name, {})
        records.append({"model": name, "outcome": outcome(t, m), **t, **m})
    counts = collections.Counter(r["outcome"] for r in records)
    for record in records:
        detail = (
            record.get("error")
            or record.get("torch_error")
            or (f"max diff {record['max_diff']:.1e}" if "max_diff" in record else "")
        )
        if record["outcome"] in ("rounding", "differs") and "fp64_diff" in record:
            detail += (
                f" (float64 logits: {record['fp64_diff']:.1e} off; "
                f"torch float32 {record.get('torch_fp64_diff', float('nan')):.1e})"
            )
        print(f"{record['model']:<40} {record['outcome']:<12} {detail}")
    tried = len(records) - counts["torch fails"]
    print(
        f"\n{counts['match']} of {tried} models give torch's logits "
        f"({counts['rounding']} more within float32 rounding of them, "
        f"{counts['differs']} differ, {counts['unloaded']} leave parameters unloaded, "
        f"{counts['fails']} fail; {counts['torch fails']} not built by timm on torch here)"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(records, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
