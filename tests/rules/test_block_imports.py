"""A torch use left inside a branch, loop, `with` or `try` of a function imports torch in that
block, before the statement: a path that never reaches it (a CUDA-only branch) runs without torch.
A use in the function's own body imports torch at the top of the body, as before."""

from __future__ import annotations

from conftest import convert_checked

SOURCE = (
    "import torch\n\n\n"
    "def run(model, device, args):\n"
    "    x = torch.ones(3)\n"
    "    if args.sync:\n"
    "        if device.type == 'cuda':\n"
    "            torch.cuda.synchronize()\n"
    "        elif torch.npu.is_available():\n"
    "            torch.npu.synchronize()\n"
    "    for i in range(2):\n"
    "        y = model(x)\n"
    "        try:\n"
    "            torch.cuda.empty_cache()\n"
    "        except RuntimeError:\n"
    "            torch.cuda.ipc_collect()\n"
    "    return y\n\n\n"
    "def top(args):\n"
    "    torch.cuda.synchronize()\n"
    "    if args.x:\n"
    "        torch.cuda.ipc_collect()\n"
)


def test_imports_go_to_the_blocks_that_use_torch() -> None:
    code = convert_checked(SOURCE).code
    run = code.split("def top")[0]
    lines = [line.strip() for line in run.splitlines()]
    # never at the top of `run`, once before each block's first use
    assert lines[lines.index("def run(model, device, args):") + 1] == "x = ops.ones(3)"
    assert run.count("import torch") == 4
    assert (
        "            import torch\n            # torch2ms: TM940 `torch.cuda.synchronize`"
        in run
    )
    assert "        try:\n            import torch\n" in run
    assert "        except RuntimeError:\n            import torch\n" in run
    # `top` uses torch in its own body: one import at its top, none in its branch
    top = code.split("def top")[1]
    assert top.count("import torch") == 1
    assert top.startswith("(args):\n    import torch\n")
    assert convert_checked(code).code == code


def test_a_converted_function_runs_where_torch_is_absent(monkeypatch) -> None:
    source = (
        "import torch\n\n\n"
        "def scaled(x, device):\n"
        "    y = torch.mul(x, 2.0)\n"
        "    if device == 'cuda':\n"
        "        torch.cuda.synchronize()\n"
        "    return y\n"
    )
    code = convert_checked(source).code
    assert "import torch" in code
    namespace: dict = {}
    exec(compile(code, "converted.py", "exec"), namespace)  # noqa: S102 -- the converted code under test
    # torch cannot be imported here; the CUDA branch is not taken, so the call never imports it
    monkeypatch.setitem(__import__("sys").modules, "torch", None)
    assert namespace["scaled"](3.0, "cpu") == 6.0
