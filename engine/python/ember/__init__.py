"""ember for Python: the Array API standard over ember's lazy tensors.

    import ember
    a = ember.asarray([[0.5, -1.0, 2.0], [0.0, 1.5, -0.25]])
    y = ember.exp(a * a + a * 2.0)   # queued: nothing has run yet
    print(y.tolist())                # runs, fused into one kernel

Operations queue on the calling thread's stream and run when a value is read or at sync();
fusion decisions go to the plan database (EMBER_PLAN_DB, default ./.ember/plans.db), so a later
process starts warm. docs/API.md lists every name beside its C++ op, and what is missing.
"""

from ._arrangements import meshgrid, repeat, roll, tensordot, tile, tril, triu
from ._array import Tensor
from ._bitwise import (bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_or,
                       bitwise_right_shift, bitwise_xor)
from ._creation import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like,
                        linspace, ones, ones_like, random_normal, random_uniform, zeros,
                        zeros_like)
from ._dtypes import (DType, bfloat16, bool, float16, float32, int32, int64,  # noqa: A004
                      isdtype)
from ._elementwise import (abs, add, clip, cos, divide, equal, erf, exp, floor_divide,  # noqa
                           greater, greater_equal, isfinite, isinf, isnan, less, less_equal, log,
                           log1p, logical_and, logical_not, logical_or, logical_xor, maximum,
                           minimum, multiply, negative, not_equal, positive, pow, reciprocal,
                           remainder, sign, sin, sqrt, square, subtract, tan, tanh, where)
from ._composites import (all, any, can_cast, exp2, finfo, iinfo, log2, log10,  # noqa
                          result_type, std, var, vecdot)
from ._engine import flush_plans, recent_misses, seed, stats, sync
from ._hyperbolic import acosh, asinh, atanh, cosh, expm1, hypot, logaddexp, sinh
from ._indexing import nonzero
from ._info import __array_namespace_info__
from ._inverse_trig import acos, asin, atan, atan2
from ._manipulation import (astype, broadcast_arrays, broadcast_to, concat, expand_dims, flip,
                            matmul, matrix_transpose, moveaxis, permute_dims, reshape, squeeze,
                            stack, take, unstack)
from ._reductions import argmax, argmin, max, mean, min, prod, sum  # noqa: A004
from ._rounding import ceil, floor, round, trunc  # noqa: A004
from ._scans import cumulative_sum, searchsorted
from ._signs import copysign, signbit

__array_api_version__ = "2023.12"

e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None
