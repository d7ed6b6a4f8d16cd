"""The exact sum of floating-point terms, rounded once, in plain Python (fractions.Fraction): the
CPU reference of cured's exact sums for dist_check.py, tested by test_distributed.py.

    exact_sum_reference([1e30, -1e30, 1e-30], FLOAT32)   # the float32 nearest 1e-30, as a float

IEEE's rules where the exact sum is not a finite number: NaN when a term is NaN or +inf meets
-inf, else the infinity; a zero sum is -0 only when every term is -0 (IEEE addition's rule for a
sum of zeros); a sum beyond the format's range rounds to infinity as round-to-nearest does.
"""

import collections
import math
import struct
from fractions import Fraction

# A binary format: bits of precision (the leading one counted), the least normal exponent, the
# greatest finite value.
Format = collections.namedtuple("Format", "name precision min_exponent max_finite")
FLOAT32 = Format("float32", 24, -126, Fraction((1 << 24) - 1) * 2 ** (127 - 23))
FLOAT64 = Format("float64", 53, -1022, Fraction((1 << 53) - 1) * 2 ** (1023 - 52))


def _floor_log2(q):
    """The e with 2^e <= q < 2^(e + 1), for a Fraction q > 0."""
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if q < Fraction(2) ** e:
        e -= 1
    return e


def round_fraction(q, fmt=FLOAT32):
    """q (a Fraction) rounded once to the nearest value of fmt, ties to even, as a Python float
    (exact: every float32 value is a float64): subnormals where q is below the least normal,
    +-inf beyond the greatest finite value plus half its ulp; a nonzero q that rounds to zero
    keeps its sign."""
    if q == 0:
        return 0.0
    a = abs(q)
    # The ulp's exponent at a, never below the subnormals' (their ulp is the least subnormal's).
    quantum = max(_floor_log2(a), fmt.min_exponent) - (fmt.precision - 1)
    scaled = a / Fraction(2) ** quantum
    n = scaled.numerator // scaled.denominator
    rest = scaled - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    value = Fraction(n) * Fraction(2) ** quantum
    result = math.inf if value > fmt.max_finite else float(value)
    return -result if q < 0 else result


def exact_sum_reference(terms, fmt=FLOAT32):
    """The exact sum of terms (Python floats: every float32 and float64 value is one), rounded
    once to fmt, with IEEE's NaN, infinity and signed-zero rules (see the module's docstring)."""
    terms = list(terms)
    if any(math.isnan(t) for t in terms):
        return math.nan
    positive, negative = math.inf in terms, -math.inf in terms
    if positive and negative:
        return math.nan
    if positive or negative:
        return math.inf if positive else -math.inf
    if terms and all(t == 0 and math.copysign(1.0, t) < 0 for t in terms):
        return -0.0
    total = sum((Fraction(t) for t in terms), Fraction(0))
    return round_fraction(total, fmt)


def float32_bits(value):
    """The float32 bit pattern (an int) of a Python float that is a float32 value, NaN as the
    canonical quiet NaN 0x7fc00000."""
    if math.isnan(value):
        return 0x7FC00000
    return struct.unpack("<I", struct.pack("<f", value))[0]


def float64_bits(value):
    """The float64 bit pattern (an int) of a Python float, NaN as 0x7ff8000000000000."""
    if math.isnan(value):
        return 0x7FF8000000000000
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def to_float32(value):
    """The float32 nearest a Python float (ties to even), as a Python float; inf beyond range."""
    return round_fraction(Fraction(value), FLOAT32) if math.isfinite(value) else value
