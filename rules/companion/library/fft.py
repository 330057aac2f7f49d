"""`torch.fft` calls that write into `out=` or pass factory arguments: MindSpore's `ops`
transforms (CPU kernels, torch's arguments and dtypes), with the result written into `out`."""

import mindspore
from mindspore import ops

from .outputs import _result_into


def _fft_with_out(transform):
    """`transform` taking torch's keyword-only `out=` as well."""

    def call(*args, out=None, **kwargs):
        return _result_into(out, transform(*args, **kwargs))

    call.__doc__ = f"`torch.fft.{transform.__name__}`, with `out=`."
    return call


fft_fft = _fft_with_out(ops.fft)
fft_ifft = _fft_with_out(ops.ifft)
fft_rfft = _fft_with_out(ops.rfft)
fft_irfft = _fft_with_out(ops.irfft)
fft_fft2 = _fft_with_out(ops.fft2)
fft_ifft2 = _fft_with_out(ops.ifft2)
fft_rfft2 = _fft_with_out(ops.rfft2)
fft_irfft2 = _fft_with_out(ops.irfft2)
fft_fftn = _fft_with_out(ops.fftn)
fft_ifftn = _fft_with_out(ops.ifftn)
fft_rfftn = _fft_with_out(ops.rfftn)
fft_irfftn = _fft_with_out(ops.irfftn)


# The Hermitian transforms are the real ones of the conjugate, with the normalisation swapped.
# (MindSpore 2.10's CPU hfft/ihfft kernels alternate between two results on repeated calls.)
_HERMITIAN_NORM = {
    None: "forward",
    "backward": "forward",
    "forward": "backward",
    "ortho": "ortho",
}


def _hermitian(input):
    return ops.conj(input) if input.is_complex() else input


def fft_hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """`torch.fft.hfft`: the real FFT of a Hermitian-symmetric signal's one-sided half."""
    result = ops.irfft(_hermitian(input), n, dim, _HERMITIAN_NORM[norm])
    return _result_into(out, result)


def fft_hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """`torch.fft.hfft2` (see `fft_hfft`)."""
    result = ops.irfft2(_hermitian(input), s, dim, _HERMITIAN_NORM[norm])
    return _result_into(out, result)


def fft_hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """`torch.fft.hfftn` (see `fft_hfft`)."""
    result = ops.irfftn(_hermitian(input), s, dim, _HERMITIAN_NORM[norm])
    return _result_into(out, result)


def fft_ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """`torch.fft.ihfft`: the one-sided inverse FFT of a real signal."""
    result = ops.conj(ops.rfft(input, n, dim, _HERMITIAN_NORM[norm]))
    return _result_into(out, result)


def fft_ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """`torch.fft.ihfft2` (see `fft_ihfft`)."""
    result = ops.conj(ops.rfft2(input, s, dim, _HERMITIAN_NORM[norm]))
    return _result_into(out, result)


def fft_ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """`torch.fft.ihfftn` (see `fft_ihfft`)."""
    result = ops.conj(ops.rfftn(input, s, dim, _HERMITIAN_NORM[norm]))
    return _result_into(out, result)


def fft_fftfreq(
    n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.fft.fftfreq`. A MindSpore tensor has no tape: gradients are taken with respect to
    function inputs, so `requires_grad` selects nothing."""
    return _result_into(out, ops.fftfreq(n, float(d), dtype=dtype or mindspore.float32))


def fft_rfftfreq(
    n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.fft.rfftfreq` (see `fft_fftfreq` on `requires_grad`)."""
    return _result_into(
        out, ops.rfftfreq(n, float(d), dtype=dtype or mindspore.float32)
    )


# Complex tensors from real parts (the inputs and `out=` tensors of the transforms).
def complex_tensor(real, imag, *, out=None):
    """`torch.complex`: real + i imag, complex64 from float32 parts, complex128 from float64."""
    return _result_into(out, ops.Complex()(real, imag))


def view_as_complex(input):
    """`torch.view_as_complex`: a (..., 2) real tensor read as complex (a copy in MindSpore,
    which has no complex views of real storage)."""
    return ops.Complex()(input[..., 0], input[..., 1])
