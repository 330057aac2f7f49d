"""Where a conversion spends its time: per stage, per rule handler, and the whole-module work.

    python benchmarks/bench_convert.py --profile [--timm DIR] [--top 25]

``instrumented()`` times every rule handler and stage, and counts what multiplies the cost of
every file: LibCST parses (one per converted file is the engine's own), walks of a whole module
made outside the stage walk (``module.visit(...)`` or ``engine.visit(module, ...)`` from a rule),
and prints of a whole module (``module.code``; one per changed file is the engine's own).
``profile_tree`` converts a tree in this process (one job, as ``torch2ms convert -j 1``) under it
and prints the tables. The hooks are patched in for the duration of the block only: a normal run
carries none of them.
"""

from __future__ import annotations

import collections
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Profile:
    """Seconds and calls per stage and per ``(rule id, handler)``; counts of module-wide work."""

    stages: collections.Counter = field(default_factory=collections.Counter)
    stage_runs: collections.Counter = field(default_factory=collections.Counter)
    handlers: collections.Counter = field(default_factory=collections.Counter)
    handler_calls: collections.Counter = field(default_factory=collections.Counter)
    parses: int = 0
    module_walks: collections.Counter = field(default_factory=collections.Counter)
    module_prints: collections.Counter = field(default_factory=collections.Counter)


def _rule_id(handler) -> str:
    owner = getattr(handler, "__self__", None)
    meta = getattr(owner, "meta", None)
    return getattr(meta, "id", type(owner).__name__)


# The package's folder: callers are named by their path inside it (``rules/api/plumbing.py``).
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _caller() -> str:
    """The rule or migrator function (outside the engine) that asked for a module-wide walk."""
    import sys

    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        inner = name[len(_PACKAGE) :] if name.startswith(_PACKAGE) else ""
        if inner.startswith("rules" + os.sep) or (
            inner.startswith("migrator" + os.sep)
            and not inner.endswith(("engine.py", "profiling.py"))
        ):
            return f"{inner.replace(os.sep, '/')}:{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


@contextmanager
def instrumented(profile: Profile) -> Iterator[None]:
    """Patch timing and counting into the engine for the duration of the block."""
    import libcst as cst

    from . import convert, engine

    clock = time.perf_counter
    saved_init = engine.StageWalker.__init__
    saved_stage = convert.run_stage
    saved_parse = cst.parse_module
    saved_module_visit = cst.Module.visit
    saved_walker = engine.VisitorWalker.walk
    saved_code = cst.Module.code

    def timed(handler: Callable, key: tuple[str, str]) -> Callable:
        def call(*args):
            start = clock()
            try:
                return handler(*args)
            finally:
                profile.handlers[key] += clock() - start
                profile.handler_calls[key] += 1

        # The engine reads the handler's marks (``rule.torch_names_only``).
        call.__dict__.update(getattr(handler, "__dict__", {}))
        return call

    def init(self, ctx, rules) -> None:
        saved_init(self, ctx, rules)
        for table, prefix in (
            (self.visits_by_name, "visit_"),
            (self.leaves_by_name, "leave_"),
        ):
            for node_type, handlers in table.items():
                table[node_type] = [
                    timed(h, (_rule_id(h), prefix + node_type)) for h in handlers
                ]

    def run_stage(module, ctx, rules):
        stage = rules[0].stage if rules else "?"
        start = clock()
        try:
            return saved_stage(module, ctx, rules)
        finally:
            profile.stages[stage] += clock() - start
            profile.stage_runs[stage] += 1

    def parse_module(*args, **kwargs):
        profile.parses += 1
        return saved_parse(*args, **kwargs)

    def module_visit(self, visitor):
        profile.module_walks[_caller()] += 1
        return saved_module_visit(self, visitor)

    def walker(self, node):
        if isinstance(node, cst.Module):
            profile.module_walks[_caller()] += 1
        return saved_walker(self, node)

    def code(self):
        profile.module_prints[_caller()] += 1
        return saved_code.fget(self)

    engine.StageWalker.__init__ = init
    convert.run_stage = run_stage
    cst.parse_module = parse_module
    cst.Module.visit = module_visit
    engine.VisitorWalker.walk = walker
    cst.Module.code = property(code)
    try:
        yield
    finally:
        engine.StageWalker.__init__ = saved_init
        convert.run_stage = saved_stage
        cst.parse_module = saved_parse
        cst.Module.visit = saved_module_visit
        engine.VisitorWalker.walk = saved_walker
        cst.Module.code = saved_code


def profile_tree(root: str, top: int = 25) -> Profile:
    """Convert ``root`` in this process with the instrumentation on, and print the tables."""
    import libcst as cst

    from .context import Options
    from .rule import rule_classes
    from .runner import plan, run

    rule_classes()
    texts = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    texts.append(handle.read())
    start = time.perf_counter()
    for text in texts:
        _ = cst.parse_module(text).code
    bare = time.perf_counter() - start
    profile = Profile()
    with tempfile.TemporaryDirectory(prefix="torch2ms-profile-") as out:
        work = plan([root], os.path.join(out, "out"))
        with instrumented(profile):
            start = time.perf_counter()
            result = run(work, Options(), 1)
            total = time.perf_counter() - start
    converted = sum(1 for o in result.outcomes if not o.failed)
    print(
        f"{len(texts)} files; bare LibCST parse+codegen {bare:.2f} s; conversion "
        f"{total:.2f} s with the handlers timed ({total / bare:.2f}x)"
    )
    print(
        f"LibCST parses: {profile.parses} for {converted} files; module-wide walks "
        f"outside the stage walk: {sum(profile.module_walks.values())}; whole-module "
        f"prints: {sum(profile.module_prints.values())}"
    )
    print("\nstage          runs   seconds")
    for stage, seconds in profile.stages.most_common():
        print(f"{stage:<14} {profile.stage_runs[stage]:>4} {seconds:>9.2f}")
    print(
        f"\nslowest rule handlers (top {top})\nrule    handler                            calls   seconds"
    )
    for (rule, handler), seconds in profile.handlers.most_common(top):
        calls = profile.handler_calls[(rule, handler)]
        print(f"{rule:<7} {handler:<34} {calls:>6} {seconds:>9.2f}")
    by_rule: collections.Counter = collections.Counter()
    for (rule, _), seconds in profile.handlers.items():
        by_rule[rule] += seconds
    print(f"\nslowest rules, all handlers (top {top})\nrule      seconds")
    for rule, seconds in by_rule.most_common(top):
        print(f"{rule:<7} {seconds:>9.2f}")
    for title, counts in (
        ("module-wide walks by caller", profile.module_walks),
        ("whole-module prints by caller", profile.module_prints),
    ):
        if counts:
            print(f"\n{title}")
            for caller, count in counts.most_common(top):
                print(f"{count:>6}  {caller}")
    return profile
