#!/usr/bin/env python3
"""verf_fit.py - the erf table of src/interp/kernels/vgelu.c: erf(a), 0 <= a < 4, on the
two intervals [0, 2) and [2, 4) (two, so that one blend picks a lane's coefficient, and
a vector whose lanes all lie in one interval needs none). Interval 0 holds
erf(a) / a as a polynomial of degree DEG in u = a^2 (relative accuracy down to the
smallest a); the others erf(a) as a polynomial of degree DEG in t = a - MID[i] (exact in
double for a float a). Least-squares fits for relative error in mpmath (40 digits) on 500
Chebyshev nodes per interval; the coefficients rounded to double; the rounded polynomials'
relative error measured on 4001 points per interval with Horner in double, each step one
fma rounding (emulated: exact product and sum, then rounded to double), as vgelu.c
computes them. Prints the C arrays and the largest error. Needs mpmath (torch's sympy
brings it: .venv/bin/python tools/verf_fit.py); about 20 s."""
import mpmath as mp

mp.mp.dps = 40
DEG = 16
CUTS = [0.0, 2.0, 4.0]


def f0(x):
    return mp.erf(x) / x if x != 0 else 2 / mp.sqrt(mp.pi)


def lsq(f, lo, hi, var, npts=500):
    """coefficients c[0..DEG] of sum c_j var(x)^j ~ f(x), relative error least squares"""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + mp.mpf(0.5)) / npts) for k in range(npts)]
    A = mp.matrix(npts, DEG + 1)
    b = mp.matrix(npts, 1)
    for r, x in enumerate(xs):
        w, v = 1 / f(x), var(x)
        for j in range(DEG + 1):
            A[r, j] = v ** j * w
        b[r] = 1
    c = mp.qr_solve(A, b)[0]
    return [float(c[j]) for j in range(DEG + 1)]


def horner(cd, v):
    """Horner in double, one rounding per step (fma)"""
    q = cd[DEG]
    for k in range(DEG - 1, -1, -1):
        q = float(mp.mpf(q) * mp.mpf(v) + mp.mpf(cd[k]))
    return q


def main():
    mids, coefs, worst = [], [], 0.0
    n = len(CUTS) - 1
    for i in range(n):
        lo, hi = CUTS[i], CUTS[i + 1]
        if i == 0:
            mid, f, var = 0.0, f0, (lambda x: x * x)
        else:
            mid, f, var = (lo + hi) / 2, mp.erf, None
            var = (lambda m: (lambda x: x - m))(mid)
        cd = lsq(f, lo, hi, var)
        err = 0.0
        for k in range(4001):
            x = lo + (hi - lo) * k / 4000
            if x == 0 or x >= hi:
                continue
            xf = float(x)
            v = xf * xf if i == 0 else xf - mid          # exact in double for a float x
            q = horner(cd, v)
            if i == 0:
                q = float(mp.mpf(q) * xf)
            e = abs(mp.mpf(q) - mp.erf(xf)) / mp.erf(xf)
            err = max(err, float(e))
        print('/* [%g, %g): largest relative error %.2e */' % (lo, hi, err))
        worst = max(worst, err)
        mids.append(mid)
        coefs.append(cd)
    print('/* largest: %.2e */' % worst)
    print('static const double ERF_CUT = %s, ERF_MID = %s;' % (float(CUTS[1]).hex(), float(mids[1]).hex()))
    print('static const double ERF_COEF[2][DEG + 1] = {')
    for i in range(n):
        print('    { %s },' % ', '.join(c.hex() for c in coefs[i]))
    print('};')


if __name__ == '__main__':
    main()
