#!/usr/bin/env python3
"""Fits the rational tanh that the rnn plugin's float32 cell units use.

tanh(x) ~ x * P(x^2) / Q(x^2) on [0, 9], P and Q of degree 4 in x^2, Q(0) = 1,
by Sanathanan-Koerner iterations (a linear least-squares solve weighted by
1 / Q of the previous step) with Lawson reweighting towards the smallest
largest relative error. Beyond |x| = 9 tanh is within 3e-8 of +-1 (half an
ulp of 1 is 6e-8), so callers clamp x there.

Prints the coefficients as float32 literals, lowest degree first, and the
largest error of the float64 fit; plugins/rnn/cell_unit_common.h holds them
and cell_unit_common_test.cc checks the float32 function against std::tanh.

  /usr/bin/python3 tools/numerics/fit_tanh.py   (numpy)
"""
import numpy as np

DEG_P, DEG_Q, LIMIT = 4, 4, 9.0


def fit(x, y, iters=60):
    s = x * x
    w = np.ones_like(x)
    q_prev = np.ones_like(x)
    for _ in range(iters):
        # x P(s) - y (Q(s) - 1) = y: unknowns P0..P4, Q1..Q4.
        a = np.concatenate([np.stack([x * s**k for k in range(DEG_P + 1)], 1),
                            np.stack([-y * s**k for k in range(1, DEG_Q + 1)], 1)], 1)
        scale = w / q_prev
        c, *_ = np.linalg.lstsq(a * scale[:, None], y * scale, rcond=None)
        p, q = c[:DEG_P + 1], np.concatenate([[1.0], c[DEG_P + 1:]])
        q_prev = np.polyval(q[::-1], s)
        rel = np.abs(x * np.polyval(p[::-1], s) / q_prev - y) / y
        w = w * np.sqrt(rel / rel.max()) + 1e-12
    return p, q, rel.max(), q_prev.min()


def main():
    x = np.linspace(0.0, LIMIT, 200001)[1:]
    p, q, err, q_min = fit(x, np.tanh(x))
    print(f"largest relative error (float64): {err:.3g}; smallest Q on [0, {LIMIT}]: {q_min:.3g}")
    for name, cs in (("P", p), ("Q", q)):
        print(name + ": " + ", ".join(f"{np.float32(c):.9g}f" for c in cs))


if __name__ == "__main__":
    main()
