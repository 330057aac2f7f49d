# Second and third derivatives with create_graph=True (as in physics-informed losses).
import mindspore
from mindspore import ops


def derivatives(t):
    def u_fn(t):
        u = ops.sin(2.0 * t) * t ** 2
        return u
    (du,) = (mindspore.grad(u_fn, grad_position=0)(t),)
    def du_fn(t):
        (du,) = (mindspore.grad(u_fn, grad_position=0)(t),)
        return du
    (d2u,) = (mindspore.grad(du_fn, grad_position=0)(t),)
    def d2u_fn(t):
        (d2u,) = (mindspore.grad(du_fn, grad_position=0)(t),)
        return d2u
    (d3u,) = (mindspore.grad(d2u_fn, grad_position=0)(t),)
    return du, d2u, d3u


du, d2u, d3u = derivatives(mindspore.tensor(0.7))
print("du", du)
print("d2u", d2u)
print("d3u", d3u)
