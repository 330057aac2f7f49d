"""What companion functions with torch's `out=` share."""


def _result_into(out, result):
    """torch's `out=`: the result replaces the contents (and shape) of `out`, which is returned."""
    if out is None:
        return result
    out.assign_value(result.astype(out.dtype) if out.dtype != result.dtype else result)
    return out
