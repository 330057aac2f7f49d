# Control flow on the tape (grad_fn): reported (TM912).
import mindspore


# torch2ms: TM912 `.grad_fn` has no MindSpore form: tensors carry no tape
def describe(t):
    if t.grad_fn is not None:
        return "computed"
    return "leaf"


x = mindspore.tensor([1.0, 2.0])
print(describe(x * 2), describe(x))
