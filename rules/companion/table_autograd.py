"""Companion entries in library/autograd_functional.py and library/grad_mode.py: torch qualified
name -> entry name."""

ENTRIES: dict[str, str] = {
    f"torch.autograd.functional.{name}": name
    for name in ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp")
}
ENTRIES.update(
    {
        f"{prefix}.{name}": name
        for prefix in ("torch", "torch.autograd", "torch.autograd.grad_mode")
        for name in ("set_grad_enabled", "is_grad_enabled", "no_grad", "enable_grad")
    }
)
