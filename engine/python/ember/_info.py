"""The standard's inspection namespace (2023.12): __array_namespace_info__() says what this
library has, so portable code (array-api-compat, SciPy) asks instead of guessing.

ember's answers: boolean indexing and data-dependent shapes are there (t[mask] and nonzero read
the mask on the host, a sync point: docs/API.md, "Python"); the devices are "cpu" and every
"cuda:N" ember can use; the dtypes are ember's six; the defaults are float32 (ember has no
float64) and int64. ember has no complex dtype, so "complex floating" has none (None)."""

from . import _dtypes, _ember

# More GPUs than one machine holds: the device scan stops at the first unusable ordinal.
_MAX_CUDA_DEVICES = 64


class Info:
    """What __array_namespace_info__() returns (the standard's methods, nothing else)."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True}

    def default_device(self):
        return "cpu"

    def devices(self):
        """"cpu", then "cuda:0", "cuda:1", ... as far as ember can use them (each one is
        checked as device= would check it, so a GPU listed here is one ember runs on)."""
        out = ["cpu"]
        for ordinal in range(_MAX_CUDA_DEVICES):
            try:
                out.append(_ember.check_device(f"cuda:{ordinal}"))
            except RuntimeError:
                break
        return out

    def default_dtypes(self, *, device=None):
        self._check(device)
        return {"real floating": _dtypes.default_float, "complex floating": None,
                "integral": _dtypes.default_int, "indexing": _dtypes.int64}

    def dtypes(self, *, device=None, kind=None):
        """ember's dtypes by name, those of `kind` (a kind name, a dtype or a tuple, as
        isdtype takes) when it is given; every device has all of them."""
        self._check(device)
        return {d.name: d for d in _dtypes.ALL if kind is None or _dtypes.isdtype(d, kind)}

    @staticmethod
    def _check(device):
        if device is not None:
            _ember.check_device(device)


def __array_namespace_info__():
    return Info()
