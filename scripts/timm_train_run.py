"""Train with timm's own ``train.py`` on torch, and with its conversion on MindSpore.

Usage: python scripts/timm_train_run.py REPO [--timm DIR] [--model NAME] [--epochs N]
       [--clip-mode norm|value|agc] [--work DIR] [--timeout S]

REPO is a checkout of huggingface/pytorch-image-models or a bare git directory of one (its HEAD is
read with ``git``): its ``train.py`` is the script. The timm package is ``--timm`` (a folder holding
``timm/``) or timm 1.0.31, downloaded with ``pip download --no-deps``. Both are converted with
``torch2ms convert`` (timm as a tree, ``train.py`` beside it).

A small image folder (two classes, generated) is laid out, and real torch builds the model with seed
0 and saves its ``state_dict``; both runs start from it (``--initial-checkpoint``). The original
runs on torch; the conversion runs on MindSpore in a process where torch and torchvision cannot be
imported, and reads that checkpoint with the converted timm. Each run trains with the whole data set
in one batch and no augmentation, so the order the loader shuffles to does not change the numbers,
with gradient clipping (``--clip-grad 1.0``). Each side writes ``summary.csv``; the report gives the
train and eval loss of every epoch on both sides. Exit code 0 when the conversion ran and every
loss matches torch's within rtol 1e-4.
"""

from __future__ import annotations

import argparse
import csv
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "benchmarks"))
from timm_models import timm_source

RTOL = 1e-4

# Runs train.py as __main__; "block" first makes torch and torchvision unimportable.
RUNNER = """import runpy, sys
if sys.argv[1] == 'block':
    sys.modules['torch'] = None
    sys.modules['torchvision'] = None
sys.path.insert(0, sys.argv[2])
sys.argv = ['train.py'] + sys.argv[3:]
runpy.run_path('train.py', run_name='__main__')
"""

INIT = """import sys
sys.path.insert(0, sys.argv[1])
import torch, timm
torch.manual_seed(0)
model = timm.create_model(sys.argv[2], pretrained=False, num_classes=2)
torch.save(model.state_dict(), sys.argv[3])
"""


def train_script(repo: str, target: str) -> None:
    """``train.py`` of the repository (a checkout, or a bare git directory's HEAD)."""
    if os.path.isfile(os.path.join(repo, "train.py")):
        shutil.copy(os.path.join(repo, "train.py"), target)
        return
    done = subprocess.run(
        ["git", f"--git-dir={repo}", "show", "HEAD:train.py"],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{repo}: no train.py there ({done.stderr.decode().strip()})")
    with open(target, "wb") as handle:
        handle.write(done.stdout)


def write_images(root: str, per_class: int = 6, size: int = 40) -> None:
    """Two classes of random images; the second has a white left half."""
    from PIL import Image

    rng = np.random.default_rng(0)
    for split in ("train", "validation"):
        for label in ("a", "b"):
            folder = os.path.join(root, split, label)
            os.makedirs(folder, exist_ok=True)
            for i in range(per_class):
                pixels = (rng.random((size, size, 3)) * 255).astype(np.uint8)
                if label == "b":
                    pixels[:, : size // 2] = 255
                Image.fromarray(pixels).save(os.path.join(folder, f"{i}.png"))


def arguments(args, data: str, init: str, output: str) -> list[str]:
    return [
        "--data-dir", data, "--model", args.model, "--num-classes", "2",
        "--epochs", str(args.epochs), "-b", "12", "--input-size", "3", "32", "32",
        "--workers", "0", "--no-prefetcher", "--no-aug", "--log-interval", "1",
        "--lr", "0.01", "--opt", "sgd", "--seed", "0", "--sched", "step",
        "--warmup-epochs", "0", "--device", "cpu", "--clip-grad", "1.0",
        "--clip-mode", args.clip_mode, "--initial-checkpoint", init, "--output", output,
    ]  # fmt: skip


def run_side(
    folder: str, timm_path: str, blocked: bool, argv: list[str], timeout: float
):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    try:
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, "block" if blocked else "open", timm_path, *argv],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s"
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
    return done.returncode, tail[0]


def summary(output: str) -> list[dict]:
    files = sorted(glob.glob(os.path.join(output, "*", "summary.csv")))
    if not files:
        return []
    with open(files[-1], newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def convert(source: str, target: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "torch2ms", "convert", source, "-o", target],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"torch2ms convert {source} failed:\n{done.stderr}")
    lines = (done.stdout + done.stderr).strip().splitlines()
    print(next((line for line in reversed(lines) if "torch2ms:" in line), source))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "repo", help="pytorch-image-models checkout or bare git directory"
    )
    parser.add_argument(
        "--timm", help="folder holding the timm package (default: download)"
    )
    parser.add_argument("--model", default="resnet18")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--clip-mode", default="norm", choices=("norm", "value", "agc"))
    parser.add_argument("--work", help="work folder (default: a temporary one)")
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args(argv)
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="timm-train-"))
    source = timm_source(work, args.timm)
    original = os.path.join(work, "original")
    converted = os.path.join(work, "converted")
    for folder in (original, converted):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    train_script(args.repo, os.path.join(original, "train.py"))
    convert(os.path.join(source, "timm"), os.path.join(converted, "timm"))
    convert(os.path.join(original, "train.py"), os.path.join(converted, "train.py"))
    data = os.path.join(work, "data")
    if not os.path.isdir(data):
        write_images(data)
    init = os.path.join(work, "init.pth")
    subprocess.run(
        [sys.executable, "-c", INIT, source, args.model, init],
        check=True,
        capture_output=True,
    )
    results = {}
    for side, folder, timm_path, blocked in (
        ("torch", original, source, False),
        ("mindspore", converted, converted, True),
    ):
        output = os.path.join(work, f"out-{side}")
        shutil.rmtree(output, ignore_errors=True)
        code, tail = run_side(
            folder,
            timm_path,
            blocked,
            arguments(args, data, init, output),
            args.timeout,
        )
        results[side] = (code, tail, summary(output))
        print(
            f"{side:>9}: {'ran' if code == 0 else 'failed'}{'' if code == 0 else ': ' + tail}"
        )
    torch_rows, ms_rows = results["torch"][2], results["mindspore"][2]
    ok = (
        results["mindspore"][0] == 0
        and bool(ms_rows)
        and len(ms_rows) == len(torch_rows)
    )
    print(
        f"\n{'epoch':>5} {'quantity':>10} {'torch':>12} {'mindspore':>12} {'rel diff':>9}"
    )
    for want, got in zip(torch_rows, ms_rows):
        for key in ("train_loss", "eval_loss", "eval_top1"):
            a, b = float(want[key]), float(got[key])
            rel = abs(a - b) / max(abs(a), 1e-12)
            ok = ok and rel <= RTOL
            print(f"{want['epoch']:>5} {key:>10} {a:>12.7f} {b:>12.7f} {rel:>9.1e}")
    print(f"\n{'match' if ok else 'DIFFERS'} (rtol {RTOL:g}); work folder: {work}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
