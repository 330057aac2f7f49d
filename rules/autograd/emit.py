"""The gradient calls that replace a backward or an autograd.grad."""

from __future__ import annotations

import libcst as cst

from .nodes import (
    _assign,
    _call,
    _target,
    _tuple,
)


class GradientEmitter:
    """Methods of GradientSitesRule (a mixin)."""

    def _emit_backward(
        self, site, fname, params, aux, later, moved, block, ctx
    ) -> list:
        statements: list = []
        output = site.outputs[0]
        out_name = output.value if isinstance(output, cst.Name) else None
        new_names, accumulate = [], []
        for p in params:
            leaf = block.leaves[p]
            if leaf.state == "var":
                fresh = self._fresh(f"{leaf.var}_new", ctx)
                new_names.append(fresh)
                accumulate.append((leaf.var, fresh))
            else:
                var = leaf.var or self._fresh(f"{p}_grad", ctx)
                leaf.var, leaf.state = var, "var"
                new_names.append(var)
        call_args = [cst.Name(p) for p in params]
        position = (
            cst.Integer("0")
            if len(params) == 1
            else _tuple([cst.Integer(str(i)) for i in range(len(params))])
        )
        value_names = (
            ([out_name or "_"] + aux)
            if aux
            else ([out_name] if out_name and moved and out_name in later else [])
        )
        if site.sens is not None:
            vjp_name = self._fresh(f"{out_name or 'forward'}_vjp", ctx)
            kwargs = {"has_aux": cst.Name("True")} if aux else {}
            head = [
                cst.Name(value_names[0] if value_names else "_"),
                cst.Name(vjp_name),
            ]
            if aux:
                head.append(_target(aux))
            statements.append(
                _assign(
                    _tuple(head, parens=False),
                    _call(ctx, "mindspore.vjp", [cst.Name(fname), *call_args], kwargs),
                )
            )
            statements.append(
                _assign(
                    _tuple([cst.Name(n) for n in new_names]),
                    cst.Call(cst.Name(vjp_name), [cst.Arg(site.sens)]),
                )
            )
        elif value_names:
            kwargs = {"grad_position": position}
            if aux:
                kwargs["has_aux"] = cst.Name("True")
            grad_call = cst.Call(
                _call(ctx, "mindspore.value_and_grad", [cst.Name(fname)], kwargs),
                [cst.Arg(a) for a in call_args],
            )
            target = _tuple([_target(value_names), _target(new_names)], parens=False)
            statements.append(_assign(target, grad_call))
        else:
            grad_call = cst.Call(
                _call(
                    ctx,
                    "mindspore.grad",
                    [cst.Name(fname)],
                    {"grad_position": position},
                ),
                [cst.Arg(a) for a in call_args],
            )
            statements.append(_assign(_target(new_names, parens=False), grad_call))
        if accumulate:
            targets = [cst.Name(a) for a, _ in accumulate]
            sums = [
                cst.BinaryOperation(cst.Name(a), cst.Add(), cst.Name(b))
                for a, b in accumulate
            ]
            statements.append(
                _assign(
                    targets[0] if len(targets) == 1 else _tuple(targets, parens=False),
                    sums[0] if len(sums) == 1 else _tuple(sums, parens=False),
                )
            )
        return statements

    def _emit_grad(
        self,
        site,
        fname,
        params,
        block,
        ctx,
        statement,
        emitted,
        value_names=(),
        aux=(),
    ) -> cst.BaseExpression | None:
        """The expression that replaces ``torch.autograd.grad(...)``: torch's tuple, one entry per
        input. When the output or intermediates are read later, a statement before it binds them
        with ``value_and_grad`` (or ``vjp``) so the forward computation runs once."""
        if site.weights is not None:
            return self._emit_weights(
                site, fname, params, ctx, emitted, value_names, aux
            )
        inputs = site.inputs or []
        used = [i for i in inputs if i in params]
        unused = [i for i in inputs if i not in params]
        if unused and not site.allow_unused:
            self._fail(
                ctx,
                statement,
                f"the output does not depend on `{unused[0]}` (torch raises unless allow_unused=True)",
            )
            return None
        if not used:
            return _tuple([cst.Name("None") for _ in inputs])
        args = [cst.Name(p) for p in params]
        base = (
            site.outputs[0].value
            if isinstance(site.outputs[0], cst.Name)
            else "forward"
        )
        aux_kwargs = {"has_aux": cst.Name("True")} if aux else {}
        value_target = _target(list(value_names)) if value_names else None
        if site.sens is not None:
            # The pullback returns one gradient per function input, in order.
            if params != used:
                self._fail(
                    ctx, statement, "grad_outputs with leaves that are not inputs"
                )
                return None
            vjp_call = _call(ctx, "mindspore.vjp", [cst.Name(fname), *args], aux_kwargs)
            if value_target is not None:
                pullback = self._fresh(f"{base}_vjp", ctx)
                head = [
                    value_target if not aux else cst.Name(value_names[0]),
                    cst.Name(pullback),
                ]
                if aux:
                    head.append(_target(list(aux)))
                emitted.append(_assign(_tuple(head, parens=False), vjp_call))
                per_input = cst.Call(cst.Name(pullback), [cst.Arg(site.sens)])
            else:
                per_input = cst.Call(
                    cst.Subscript(
                        vjp_call, [cst.SubscriptElement(cst.Index(cst.Integer("1")))]
                    ),
                    [cst.Arg(site.sens)],
                )
            single = False
        else:
            positions = [params.index(i) for i in used]
            position = (
                cst.Integer(str(positions[0]))
                if len(positions) == 1
                else _tuple([cst.Integer(str(p)) for p in positions])
            )
            if value_target is not None:
                temp = self._fresh(
                    f"{base}_grads" if len(used) > 1 else f"{base}_grad", ctx
                )
                function = _call(
                    ctx,
                    "mindspore.value_and_grad",
                    [cst.Name(fname)],
                    {"grad_position": position, **aux_kwargs},
                )
                emitted.append(
                    _assign(
                        _tuple([value_target, cst.Name(temp)], parens=False),
                        cst.Call(function, [cst.Arg(a) for a in args]),
                    )
                )
                per_input = cst.Name(temp)
            else:
                function = _call(
                    ctx,
                    "mindspore.grad",
                    [cst.Name(fname)],
                    {"grad_position": position},
                )
                per_input = cst.Call(function, [cst.Arg(a) for a in args])
            single = len(used) == 1
        if single:
            return _tuple(
                [per_input if i in used else cst.Name("None") for i in inputs]
            )
        if not unused:
            return per_input
        if not isinstance(per_input, cst.Name):
            temp = self._fresh("grads", ctx)
            emitted.append(_assign(cst.Name(temp), per_input))
            per_input = cst.Name(temp)
        return _tuple(
            [
                cst.Subscript(
                    per_input,
                    [cst.SubscriptElement(cst.Index(cst.Integer(str(used.index(i)))))],
                )
                if i in used
                else cst.Name("None")
                for i in inputs
            ]
        )

    def _emit_weights(
        self, site, fname, params, ctx, emitted, value_names, aux
    ) -> cst.BaseExpression:
        """``autograd.grad(out, model.parameters())``: one gradient per parameter, as a tuple
        (seed: grad_position=None with weights gives the weights' gradients)."""
        args = [cst.Arg(cst.Name(p)) for p in params]
        kwargs = {"grad_position": cst.Name("None"), "weights": site.weights}
        if aux:
            kwargs["has_aux"] = cst.Name("True")
        if value_names:
            base = (
                site.outputs[0].value
                if isinstance(site.outputs[0], cst.Name)
                else "forward"
            )
            temp = self._fresh(f"{base}_grads", ctx)
            function = _call(ctx, "mindspore.value_and_grad", [cst.Name(fname)], kwargs)
            emitted.append(
                _assign(
                    _tuple([_target(list(value_names)), cst.Name(temp)], parens=False),
                    cst.Call(function, args),
                )
            )
            return cst.Name(temp)
        return cst.Call(_call(ctx, "mindspore.grad", [cst.Name(fname)], kwargs), args)
