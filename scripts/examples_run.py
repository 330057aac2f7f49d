"""Run pytorch/examples training scripts on torch and their conversions on MindSpore.

Usage: python scripts/examples_run.py PATH [--only NAME]... [--work DIR] [--timeout S]

PATH is a checkout of pytorch/examples or a bare git directory of one (its HEAD is read with
``git``). The examples below are copied into WORK/original, converted with ``torch2ms convert``
into WORK/converted, and given small generated data where they read it (MNIST idx files under
``../data/MNIST/raw``, a few text files for the word language model). Each original then runs on
real torch, and each conversion on real MindSpore with torch and torchvision unimportable, both
with the script's own short-run flags. The report says which ran, and the first and last loss
each side printed. Exit code 0 when every conversion ran, 1 otherwise.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Example:
    script: str  # path inside the repository
    args: tuple[str, ...] = ()
    data: tuple[str, ...] = ()  # generated data sets: "mnist", "text"
    folders: tuple[str, ...] = ()  # folders the script writes into, made beforehand


EXAMPLES: dict[str, Example] = {
    "mnist": Example("mnist/main.py", ("--epochs", "1", "--dry-run"), ("mnist",)),
    "mnist_rnn": Example(
        "mnist_rnn/main.py", ("--epochs", "1", "--dry-run"), ("mnist",)
    ),
    "vae": Example("vae/main.py", ("--epochs", "1"), ("mnist",), ("results",)),
    "dcgan": Example(
        "dcgan/main.py",
        ("--dataset", "fake", "--niter", "1", "--dry-run", "--outf", "out"),
    ),
    "regression": Example("regression/main.py"),
    "word_language_model": Example(
        "word_language_model/main.py", ("--epochs", "1", "--dry-run"), ("text",)
    ),
}

# Runs a script as __main__ from its own folder; the converted side first makes torch and
# torchvision unimportable, so a conversion that still needs them fails at its import.
RUNNER = """import runpy, sys
if sys.argv[1] == 'block':
    sys.modules['torch'] = None
    sys.modules['torchvision'] = None
script = sys.argv[2]
sys.argv = [script] + sys.argv[3:]
sys.path.insert(0, '.')
runpy.run_path(script, run_name='__main__')
"""
LOSS = re.compile(r"loss[^0-9+\-]*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)", re.IGNORECASE)


@dataclass
class Run:
    returncode: int
    losses: list[float] = field(default_factory=list)
    tail: str = ""

    @property
    def ran(self) -> bool:
        return self.returncode == 0


# -- the repository --------------------------------------------------------------------------
def is_bare_git(path: str) -> bool:
    return os.path.isdir(os.path.join(path, "objects")) and os.path.exists(
        os.path.join(path, "HEAD")
    )


def copy_examples(path: str, folders: list[str], target: str) -> list[str]:
    """Copy the examples' folders from a checkout or a bare git directory; the ones present."""
    os.makedirs(target, exist_ok=True)
    present = []
    for folder in folders:
        if is_bare_git(path):
            archive = subprocess.run(
                ["git", "--git-dir", path, "archive", "--format=tar", "HEAD", folder],
                capture_output=True,
                check=False,
            )
            if archive.returncode != 0:
                continue
            with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
                tar.extractall(target, filter="data")
        else:
            source = os.path.join(path, folder)
            if not os.path.isdir(source):
                continue
            shutil.copytree(source, os.path.join(target, folder), dirs_exist_ok=True)
        present.append(folder)
    return present


# -- generated data --------------------------------------------------------------------------
def write_idx(path: str, array: np.ndarray) -> None:
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim)
    header += b"".join(struct.pack(">I", size) for size in array.shape)
    with open(path, "wb") as handle:
        handle.write(header + array.astype(np.uint8).tobytes())


def write_mnist(root: str, train: int = 640, test: int = 128) -> None:
    """MNIST-shaped idx files (digits drawn as bright blocks, so a model can learn something)
    in ``root/MNIST/raw``, where torchvision looks after a download."""
    rng = np.random.default_rng(0)
    raw = os.path.join(root, "MNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    for prefix, count in (("train", train), ("t10k", test)):
        labels = rng.integers(0, 10, count)
        images = rng.integers(0, 40, (count, 28, 28))
        for i, label in enumerate(labels):
            top, left = 2 + 2 * (label // 5) * 5, 2 + 5 * (label % 5)
            images[i, top : top + 10, left : left + 4] = 255
        write_idx(os.path.join(raw, f"{prefix}-images-idx3-ubyte"), images)
        write_idx(os.path.join(raw, f"{prefix}-labels-idx1-ubyte"), labels)


def write_text(root: str) -> None:
    """train/valid/test.txt of a small word corpus in ``root/wikitext-2``."""
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(50)]
    folder = os.path.join(root, "wikitext-2")
    os.makedirs(folder, exist_ok=True)
    for name, lines in (("train", 200), ("valid", 40), ("test", 40)):
        with open(os.path.join(folder, f"{name}.txt"), "w", encoding="utf-8") as handle:
            handle.writelines(
                " ".join(rng.choice(words, 12)) + "\n" for _ in range(lines)
            )


def lay_out(tree: str, name: str, example: Example) -> None:
    folder = os.path.join(tree, os.path.dirname(example.script))
    for data in example.data:
        if data == "mnist":
            write_mnist(os.path.join(tree, "data"))
        elif data == "text":
            write_text(os.path.join(folder, "data"))
    for made in example.folders:
        os.makedirs(os.path.join(folder, made), exist_ok=True)


# -- running ---------------------------------------------------------------------------------
def losses(output: str) -> list[float]:
    return [float(m.group(1)) for m in LOSS.finditer(output)]


def run(tree: str, example: Example, blocked: bool, timeout: float) -> Run:
    folder = os.path.join(tree, os.path.dirname(example.script))
    command = [
        sys.executable,
        "-c",
        RUNNER,
        "block" if blocked else "open",
        os.path.basename(example.script),
        *example.args,
    ]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    try:
        done = subprocess.run(
            command,
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout or ""
        out = out.decode() if isinstance(out, bytes) else out
        return Run(-1, losses(out), f"timed out after {timeout:.0f} s")
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
    return Run(done.returncode, losses(done.stdout), tail[0])


def convert(original: str, converted: str) -> int:
    return subprocess.run(
        [sys.executable, "-m", "torch2ms", "convert", original, "-o", converted],
        capture_output=True,
        check=False,
    ).returncode


def describe(side: str, result: Run) -> str:
    state = "ran" if result.ran else f"FAILED (exit {result.returncode})"
    if result.losses:
        loss = f"loss first {result.losses[0]:.6g} last {result.losses[-1]:.6g}"
    else:
        loss = "no loss printed"
    text = f"{side}: {state}, {loss}"
    return text if result.ran else f"{text}: {result.tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--only", action="append", choices=sorted(EXAMPLES))
    parser.add_argument(
        "--work", help="where to copy, convert and run (default: a temp dir)"
    )
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args(argv)
    if not os.path.isdir(args.path):
        parser.error(f"{args.path}: not a folder (a checkout, or a bare git directory)")
    names = args.only or list(EXAMPLES)
    work = args.work or tempfile.mkdtemp(prefix="examples_run_")
    original, converted = (
        os.path.join(work, "original"),
        os.path.join(work, "converted"),
    )
    folders = sorted({os.path.dirname(EXAMPLES[n].script) for n in names})
    present = copy_examples(args.path, folders, original)
    names = [n for n in names if os.path.dirname(EXAMPLES[n].script) in present]
    if not names:
        print(f"error: none of the examples is under {args.path}", file=sys.stderr)
        return 2
    code = convert(original, converted)
    print(f"converted {len(present)} example folders into {converted} (exit {code})")
    failed = 0
    for name in names:
        example = EXAMPLES[name]
        for tree in (original, converted):
            lay_out(tree, name, example)
        torch_run = run(original, example, blocked=False, timeout=args.timeout)
        ms_run = run(converted, example, blocked=True, timeout=args.timeout)
        failed += not ms_run.ran
        print(f"{name}:")
        print("  " + describe("torch    ", torch_run))
        print("  " + describe("mindspore", ms_run))
    print(f"{len(names) - failed} of {len(names)} conversions ran")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
