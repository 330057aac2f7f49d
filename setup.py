"""Packages live at the top level of the repository and install as ``torch2ms.<folder>``."""

from setuptools import find_packages, setup

SUBPACKAGES = ["cli", "migrator", "rules", "shims"]
found = find_packages(include=[f"{name}*" for name in SUBPACKAGES])

setup(
    packages=["torch2ms"] + [f"torch2ms.{name}" for name in found],
    package_dir={"torch2ms": "."},
)
