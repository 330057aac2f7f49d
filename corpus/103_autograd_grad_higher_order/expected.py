# Second and third derivatives with create_graph=True (as in physics-informed losses).
import mindspore
from mindspore import ops


def derivatives(t):
    def u_fn(t):
        u = ops.sin(2.0 * t) * t ** 2
        return u
    def du_fn(t):
        (du,) = (mindspore.grad(u_fn, grad_position=0)(t),)
        return du
    def d2u_fn(t):
        du, du_grad = mindspore.value_and_grad(du_fn, grad_position=0)(t)
        (d2u,) = (du_grad,)
        return d2u, du
    (d2u, du), d2u_grad = mindspore.value_and_grad(d2u_fn, grad_position=0, has_aux=True)(t)
    (d3u,) = (d2u_grad,)
    return du, d2u, d3u


du, d2u, d3u = derivatives(mindspore.tensor(0.7))
print("du", du)
print("d2u", d2u)
print("d3u", d3u)
