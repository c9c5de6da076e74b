#!/usr/bin/env python3
"""math_coeffs.py: the polynomial coefficients of compiler/math_ir.c.

Prints them as C99 hex-float initialisers, rounded to f32.  Taylor
coefficients are exact expressions; the erf fits are Chebyshev
interpolants (near-minimax) computed with mpmath at 40 digits:
  TANH_SMALL: tanh(x)/x - 1 as a polynomial in u = x^2 on [0, 0.55^2]
  ERF_SMALL: erf(x)/x - 1 as a polynomial in u = x^2 on [0, 1]
  ERF_LARGE: log(erfc(x)) as a polynomial in t = x - 2.5 on [1, 4]
Needs python3-mpmath.  The measured errors are tests/math/test_math_ulp.c's.
"""
import struct

import mpmath as mp

mp.mp.dps = 40


def f32(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def hexf(x):  # 0x1.62e43p-1f: C99 hex float, trailing zeros dropped
    mant, exp = f32(x).hex().split("p")
    return mant.rstrip("0").rstrip(".") + "p" + exp + "f"


def emit(name, coeffs):  # highest degree first, as Horner's rule takes them
    body = ", ".join(hexf(c) for c in coeffs)
    print(f"static const float {name}[] = {{{body}}};")


ln2 = mp.log(2)
emit("EXP_TAYLOR", [1 / mp.factorial(k) for k in range(7, -1, -1)])  # e^f, |f| <= ln2/2
emit("EXP2_TAYLOR", [ln2**k / mp.factorial(k) for k in range(7, -1, -1)])  # 2^f, |f| <= 1/2
emit("LOG_ATANH", [mp.mpf(2) / k for k in (9, 7, 5, 3)])  # 2 atanh(s) = 2s + s (2s^2/3 + 2s^4/5 + ...)


def tanh_small(u):
    return mp.tanh(mp.sqrt(u)) / mp.sqrt(u) - 1 if u > 0 else mp.mpf(0)


emit("TANH_SMALL", mp.chebyfit(tanh_small, [0, mp.mpf("0.55") ** 2], 6))


def small(u):
    if u == 0:
        return 2 / mp.sqrt(mp.pi) - 1
    return mp.erf(mp.sqrt(u)) / mp.sqrt(u) - 1


emit("ERF_SMALL", mp.chebyfit(small, [0, 1], 7))
emit("ERF_LARGE", mp.chebyfit(lambda t: mp.log(mp.erfc(t + 2.5)), [1 - 2.5, 4 - 2.5], 10))
