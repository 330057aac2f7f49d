"""Companion entries in library/autograd_functional.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {
    f"torch.autograd.functional.{name}": name
    for name in ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp")
}
