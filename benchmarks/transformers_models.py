"""Converted Hugging Face transformers on MindSpore, where torch is not installed, against torch.

For each model of the panel (BERT, GPT-2, Llama, ViT, T5 from small configs):
- torch builds it from the original transformers source with seed 0, in eval mode with eager
  attention, saves its ``state_dict`` and its first output (hidden states or logits) on one seeded
  batch;
- ``torch2ms weights`` converts the ``state_dict`` to a checkpoint;
- the converted transformers builds the same model in another Python (``--ms-python``, one where
  torch is not installed; by default this one, with torch blocked), loads the checkpoint (no
  parameter may stay unloaded) and computes the same output.

Forward times are the best of ``--repeat`` runs after one warm-up, on both sides.

    python benchmarks/transformers_models.py --ms-python /path/to/venv-without-torch/bin/python

Without ``--transformers`` the wheel is downloaded (``pip download --no-deps``) into ``--cache``
and unpacked there. By default only the modules the panel imports are converted (the closure of
their module-level imports); ``--whole`` converts the whole library.
"""

from __future__ import annotations

import argparse
import ast
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

VERSION = "5.23.0"
RTOL, ATOL = 1e-4, 1e-5
BLOCKED = ("torch", "torchvision", "torchaudio")
_TEXT = {"batch": 2, "length": 7}
# name -> (config class, model class, config arguments, input kind)
MODELS: dict[str, tuple[str, str, dict, str]] = {
    "bert": (
        "BertConfig",
        "BertModel",
        {"vocab_size": 99, "hidden_size": 32, "num_hidden_layers": 2,
         "num_attention_heads": 4, "intermediate_size": 37, "max_position_embeddings": 64},
        "text",
    ),
    "gpt2": (
        "GPT2Config",
        "GPT2LMHeadModel",
        {"vocab_size": 99, "n_embd": 32, "n_layer": 2, "n_head": 4, "n_positions": 64},
        "text",
    ),
    "llama": (
        "LlamaConfig",
        "LlamaForCausalLM",
        {"vocab_size": 99, "hidden_size": 32, "intermediate_size": 37,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
         "max_position_embeddings": 64},
        "text",
    ),
    "vit": (
        "ViTConfig",
        "ViTModel",
        {"image_size": 32, "patch_size": 8, "num_channels": 3, "hidden_size": 32,
         "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 37},
        "image",
    ),
    "t5": (
        "T5Config",
        "T5Model",
        {"vocab_size": 99, "d_model": 32, "d_kv": 8, "d_ff": 37, "num_layers": 2,
         "num_heads": 4},
        "seq2seq",
    ),
}  # fmt: skip
# The modules each model needs beyond the package itself.
MODULES = {
    name: [
        f"transformers.models.{model}.modeling_{model}",
        f"transformers.models.{model}.configuration_{model}",
    ]
    for name, model in (
        ("bert", "bert"),
        ("gpt2", "gpt2"),
        ("llama", "llama"),
        ("vit", "vit"),
        ("t5", "t5"),
    )
}


# -- preparing the trees --------------------------------------------------------------------
def transformers_source(cache: str, given: str | None) -> str:
    """The folder that holds the ``transformers`` package (given, or downloaded and unpacked)."""
    if given:
        given = os.path.abspath(given)
        if os.path.isfile(os.path.join(given, "transformers", "__init__.py")):
            return given
        if os.path.isfile(os.path.join(given, "__init__.py")):
            return os.path.dirname(given)
        raise SystemExit(f"--transformers {given}: no transformers package there")
    folder = os.path.join(cache, f"transformers-{VERSION}")
    if not os.path.isdir(os.path.join(folder, "transformers")):
        wheels = os.path.join(cache, "wheels")
        found = glob.glob(os.path.join(wheels, f"transformers-{VERSION}-*.whl"))
        if not found:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                 wheels, f"transformers=={VERSION}"],
                check=True,
            )  # fmt: skip
            found = glob.glob(os.path.join(wheels, f"transformers-{VERSION}-*.whl"))
        with zipfile.ZipFile(found[0]) as archive:
            archive.extractall(folder)
    return folder


def _imports(body):
    """The import statements of a module, in functions too (they run when called), without the
    bodies of `if TYPE_CHECKING:`."""
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            yield from _imports(node.orelse)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from _imports(inner)


def module_closure(source: str, modules: list[str], package: str = "transformers"):
    """The files of ``package`` that ``modules`` import, at module level or in their functions,
    followed transitively (with every parent package)."""

    def file_of(module: str) -> str | None:
        path = os.path.join(source, *module.split("."))
        if os.path.isfile(os.path.join(path, "__init__.py")):
            return os.path.join(path, "__init__.py")
        return path + ".py" if os.path.isfile(path + ".py") else None

    seen: dict[str, str] = {}
    stack = list(modules)
    while stack:
        module = stack.pop()
        if module in seen:
            continue
        path = file_of(module)
        if path is None:
            continue
        seen[module] = path
        parts = module.split(".")
        stack.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        here = parts if path.endswith("__init__.py") else parts[:-1]
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        for node in _imports(tree.body):
            if isinstance(node, ast.ImportFrom):
                base = here[: len(here) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                if target.split(".")[0] == package:
                    stack.append(target)
                    stack.extend(f"{target}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                stack.extend(
                    a.name for a in node.names if a.name.split(".")[0] == package
                )
    # A package's `__init__` may import its modules lazily (by name, in a table): every module
    # of a package the closure enters comes along, but for the model folders themselves.
    files = set(seen.values())
    for path in list(files):
        folder = os.path.dirname(path)
        if not path.endswith("__init__.py") or os.path.basename(folder) == "models":
            continue
        if os.path.basename(os.path.dirname(folder)) == "models":
            continue
        files.update(glob.glob(os.path.join(folder, "*.py")))
    if len(files) > len(seen):
        extra = [
            ".".join(os.path.relpath(f, source)[:-3].split(os.sep)).removesuffix(".__init__")
            for f in files - set(seen.values())
        ]
        return module_closure(source, sorted(set(seen) | set(extra)), package)
    return sorted(files)


def convert(source: str, work: str, modules: list[str] | None) -> tuple[str, dict]:
    """Convert transformers (the closure of ``modules``, or all of it) with the torch2ms CLI;
    returns the folder holding the converted package and the report's summary."""
    tree = os.path.join(source, "transformers")
    if modules is not None:
        subset = os.path.join(work, "subset")
        shutil.rmtree(subset, ignore_errors=True)
        for path in module_closure(source, modules):
            target = os.path.join(subset, os.path.relpath(path, source))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(path, target)
        tree = os.path.join(subset, "transformers")
    out = os.path.join(work, "converted")
    shutil.rmtree(out, ignore_errors=True)
    report = os.path.join(work, "convert.json")
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "torch2ms", "convert", tree,
         "-o", os.path.join(out, "transformers"), "--report", report, "-q"],
        check=False,
    )  # fmt: skip
    with open(report, encoding="utf-8") as handle:
        summary = json.load(handle)["summary"]
    summary["seconds"] = time.perf_counter() - start
    return out, summary


# -- the two sides, each in its own process -------------------------------------------------
def _inputs(kind: str, vocab: int):
    import numpy as np

    random = np.random.RandomState(0)
    if kind == "image":
        return {"pixel_values": random.standard_normal((2, 3, 32, 32)).astype("float32")}
    shape = (_TEXT["batch"], _TEXT["length"])
    ids = random.randint(1, vocab, size=shape).astype("int64")
    if kind == "seq2seq":
        decoder = random.randint(1, vocab, size=(shape[0], 5)).astype("int64")
        return {"input_ids": ids, "decoder_input_ids": decoder}
    mask = np.ones(shape, dtype="int64")
    mask[1, -2:] = 0  # a padded row exercises the attention mask
    return {"input_ids": ids, "attention_mask": mask}


def _build(transformers, name: str):
    config_class, model_class, kwargs, kind = MODELS[name]
    config = getattr(transformers, config_class)(**kwargs, attn_implementation="eager")
    return getattr(transformers, model_class)(config), kind, kwargs.get("vocab_size", 0)


def built(name: str):
    """The model ``name`` from its small config, built by the ``transformers`` importable here:
    on the MindSpore side, the converted one. `torch2ms weights --model` builds it with this."""
    import transformers

    return _build(transformers, name)[0]


def _best(forward, repeat: int):
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
    import torch
    import transformers

    torch.manual_seed(0)
    model, kind, vocab = _build(transformers, name)
    model.eval()
    torch.save(model.state_dict(), os.path.join(folder, "model.pth"))
    inputs = {k: torch.from_numpy(v) for k, v in _inputs(kind, vocab).items()}
    with torch.no_grad():
        out, seconds = _best(lambda: model(**inputs)[0], repeat)
    np.save(os.path.join(folder, "torch.npy"), out.numpy())
    return {"seconds": seconds}


def _block_torch() -> None:
    class Blocker:
        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"{fullname} is blocked: torch is absent here")

    sys.meta_path.insert(0, Blocker())
    for module in list(sys.modules):
        if module.split(".")[0] in BLOCKED:
            del sys.modules[module]


def side_mindspore(name: str, folder: str, converted: str, repeat: int) -> dict:
    _block_torch()
    sys.path.insert(0, converted)
    import mindspore
    import numpy as np
    import transformers

    model, kind, vocab = _build(transformers, name)
    params = mindspore.load_checkpoint(os.path.join(folder, "model.ckpt"))
    unloaded, unused = mindspore.load_param_into_net(model, params)
    model.set_train(False)
    inputs = {k: mindspore.Tensor(v) for k, v in _inputs(kind, vocab).items()}
    out, seconds = _best(lambda: model(**inputs)[0].asnumpy(), repeat)
    np.save(os.path.join(folder, "mindspore.npy"), out)
    return {
        "seconds": seconds,
        "unloaded": list(unloaded),
        "unused": list(unused),
    }


def _run_side(python: str, args: list[str], timeout: float) -> dict:
    """Run one side in a fresh process; its last stdout line is its JSON result."""
    done = subprocess.run(
        [python, os.path.abspath(__file__), "--side", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = "\n".join(done.stderr.strip().splitlines()[-12:])
        return {"error": tail or f"exit {done.returncode}"}
    return json.loads(lines[-1])


def compare(name, source, converted, work, ms_python, repeat, timeout=1800) -> dict:
    """Run the whole path for one model; returns a record for the table."""
    import numpy as np

    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    record: dict = {"model": name}
    side = _run_side(sys.executable, ["torch", name, folder, source, str(repeat)], timeout)
    if "error" in side:
        return {**record, "error": "torch: " + side["error"]}
    record["torch_s"] = side["seconds"]
    # The checkpoint is placed by the converted model's own parameter names.
    weights = subprocess.run(
        [sys.executable, "-m", "torch2ms", "weights", os.path.join(folder, "model.pth"),
         os.path.join(folder, "model.ckpt"), "--format", "json",
         "--converted", converted, "--converted", os.path.dirname(os.path.abspath(__file__)),
         "--model", f"transformers_models:built({name!r})", "--mindspore-python", ms_python],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if weights.returncode != 0:
        return {**record, "error": "weights: " + weights.stderr.strip()[-400:]}
    side = _run_side(
        ms_python, ["mindspore", name, folder, converted, str(repeat)], timeout
    )
    if "error" in side:
        return {**record, "error": "mindspore: " + side["error"]}
    record.update(
        converted_s=side["seconds"],
        unloaded=side["unloaded"],
        unused=side["unused"],
    )
    expected = np.load(os.path.join(folder, "torch.npy"))
    got = np.load(os.path.join(folder, "mindspore.npy"))
    same_shape = expected.shape == got.shape
    record["max_diff"] = (
        float(np.max(np.abs(expected - got))) if same_shape else float("inf")
    )
    record["match"] = bool(
        same_shape
        and np.allclose(got, expected, rtol=RTOL, atol=ATOL)
        and not side["unloaded"]
        and not side["unused"]
    )
    return record


def table(records: list[dict]) -> str:
    rows = [
        "| model | output | max diff | unloaded | unused | torch ms | converted ms |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in records:
        if "error" in r:
            rows.append(f"| {r['model']} | error | {r['error'].splitlines()[-1][:120]} | | | | |")
            continue
        rows.append(
            f"| {r['model']} | {'match' if r['match'] else 'DIFFER'} | {r['max_diff']:.2e} | "
            f"{len(r['unloaded'])} | {len(r['unused'])} | {r['torch_s'] * 1e3:,.1f} | "
            f"{r['converted_s'] * 1e3:,.1f} |"
        )  # fmt: skip
    matched = sum(1 for r in records if r.get("match"))
    rows.append("")
    rows.append(f"outputs match torch (rtol {RTOL}, atol {ATOL}): {matched}/{len(records)}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--side":
        side, name, folder, tree, repeat = argv[1:6]
        if side == "torch":
            result = side_torch(name, folder, tree, int(repeat))
        else:
            result = side_mindspore(name, folder, tree, int(repeat))
        print(json.dumps(result))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transformers", help="unpacked transformers (the package or its parent)")
    parser.add_argument(
        "--cache",
        default=os.path.join(os.path.expanduser("~"), ".cache", "torch2ms-benchmarks"),
        help="where the downloaded wheel is kept and unpacked",
    )
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated")
    parser.add_argument(
        "--ms-python",
        default=sys.executable,
        help="the Python that runs the converted models (one without torch)",
    )
    parser.add_argument("--whole", action="store_true", help="convert the whole library")
    parser.add_argument("--converted", help="an already converted tree (skips converting)")
    parser.add_argument("--work", help="work folder (default: a temporary one)")
    parser.add_argument("--repeat", type=int, default=3, help="timed forward runs")
    parser.add_argument("--json", help="also write the records here")
    args = parser.parse_args(argv)  # fmt: skip
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="transformers-models-"))
    os.makedirs(work, exist_ok=True)
    names = [m for m in args.models.split(",") if m]
    source = transformers_source(args.cache, args.transformers)
    summary: dict = {}
    if args.converted:
        converted = os.path.abspath(args.converted)
    else:
        modules = None if args.whole else [m for n in names for m in MODULES[n]]
        converted, summary = convert(source, work, modules)
        print(
            f"converted transformers ({'whole' if args.whole else 'modules the panel imports'}) "
            f"in {summary['seconds']:.0f} s: {summary['files_python']} files, "
            f"{summary['api_calls_converted']:,}/{summary['api_calls_total']:,} API uses "
            f"({summary['conversion_rate']:.1%}), {summary['files_need_torch']} still need torch",
            flush=True,
        )  # fmt: skip
    records = []
    for name in names:
        record = compare(name, source, converted, work, args.ms_python, args.repeat)
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
