#!/usr/bin/env python3
"""vexpf_fit.py - the degree-4 polynomial of src/interp/kernels/vexpf.c: exp(r) on
[-a, a], a = ln2/32 (1 + 1e-6) (|r| after the 2^(k/16) reduction), fitted by Remez for
relative error in mpmath (50 digits), the coefficients rounded to double and the rounded
polynomial's relative error measured on 200001 points (2^-38.55; the fit equioscillates, so
the maximum sits at the reference points). Prints the coefficients r^0..r^4 as hex.
`vexpf_fit.py 2 8`: the AVX2 kernel's degree-8 polynomial on [-a, a], a = ln2/2 (1 + 1e-6)
(|r| after the 2^k reduction: no table), 2^-45.5. Needs mpmath; about 15 s each."""
import sys
import mpmath as mp
mp.mp.dps = 50
DIV, DEG = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (32, 4)
a = mp.log(2)/DIV * (1 + mp.mpf('1e-6'))
for deg in (DEG,):
    # Remez for relative error of exp on [-a,a], fixed c0 free
    # start from chebyfit
    poly, err = mp.chebyfit(mp.exp, [-a, a], deg+1, error=True)
    # poly: highest first
    # refine by Remez on relative error
    n = deg + 2
    xs = [a*mp.cos(mp.pi*(n-1-i)/(n-1)) for i in range(n)]
    for it in range(30):
        # solve p(x_i) - exp(x_i) = (-1)^i E exp(x_i)
        A = mp.matrix(n, n); b = mp.matrix(n, 1)
        for i,x in enumerate(xs):
            for j in range(deg+1): A[i,j] = x**j
            A[i,deg+1] = (-1)**i * mp.exp(x)
            b[i] = mp.exp(x)
        s = mp.lu_solve(A, b)
        c = [s[j] for j in range(deg+1)]
        E = s[deg+1]
        f = lambda x: mp.polyval(c[::-1], x)/mp.exp(x) - 1
        # find extrema
        grid = [ -a + 2*a*i/4000 for i in range(4001)]
        vals = [f(x) for x in grid]
        # locate local extrema
        ext = [grid[0]]
        for i in range(1,4000):
            if (vals[i]-vals[i-1])*(vals[i+1]-vals[i]) <= 0: ext.append(grid[i])
        ext.append(grid[-1])
        if len(ext) != n: break
        xs = ext
    print('deg', deg, 'E', mp.nstr(E, 5), 'log2', mp.nstr(mp.log(abs(E),2), 6))
    # round to double
    cd = [float(x) for x in c]
    print('coeffs r^0..r^%d:' % deg, [x.hex() for x in cd])
    fd = lambda x: mp.polyval([mp.mpf(v) for v in cd[::-1]], x)/mp.exp(x) - 1
    N = 200001
    mx = max(abs(fd(-a + 2*a*i/(N-1))) for i in range(N))
    print('rounded coeffs, max rel err on %d pts:' % N, mp.nstr(mx, 5), 'log2', mp.nstr(mp.log(mx,2), 6))
