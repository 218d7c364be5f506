/* winograd16_tx.h — the Winograd F(4x4, 3x3) transforms of the fast path, written once
 * over a vector of VW channels and included by winograd16_fast.c once per instruction
 * set. The includer defines:
 *   TX(name)          the instance's function names
 *   TXFN              their attributes (static, target)
 *   VEC, MASK         the vector and lane-mask types
 *   V_ZERO, V_SET1(c), V_LOAD(p, k), V_STORE(p, v, k), V_R16(v) (rounding to half),
 *   V_MADD(acc, c, v) = r(acc + r(c v)) (one half multiply-add, gc_f16_madd_n's step),
 *   V_CLAMP(v, lo, hi) = v < lo ? lo : v > hi ? hi : v
 * The formulas and orders are winograd16.c's (see its top), step for step, on the lanes of
 * VW channels at once; only the loop nest differs (a column of the tile at a time).
 */

/* d -> V for one tile (b fixed: xb is its image), channels [c0, c0 + VW) under k; V of
 * point p at vp + p * pstride (+ c0) */
TXFN void TX(tx_in)(const gc_wino16 *w, const float *xb, int32_t ty, int32_t tx, int32_t c0, MASK k, float *vp,
                    size_t pstride) {
    const float *bt = w->bt;
    const size_t C = (size_t)w->C;
    VEC I[36];                                            /* I[a * 6 + x] = sum_y bt[a][y] d[y][x] */
    for (int xx = 0; xx < 6; xx++) {
        const int32_t ix = tx * 4 + xx - w->pl;
        VEC d[6];
        for (int yy = 0; yy < 6; yy++) {
            const int32_t iy = ty * 4 + yy - w->pt;
            d[yy] = iy >= 0 && iy < w->H && ix >= 0 && ix < w->W
                        ? V_LOAD(xb + ((size_t)iy * (size_t)w->W + (size_t)ix) * C + (size_t)c0, k) : V_ZERO;
        }
        for (int a = 0; a < 6; a++) {
            VEC s = V_ZERO;
            for (int yy = 0; yy < 6; yy++) s = V_MADD(s, bt[a * 6 + yy], d[yy]);
            I[a * 6 + xx] = s;
        }
    }
    for (int a = 0; a < 6; a++) {                         /* V = I B, row a */
        const VEC *r = I + a * 6;
        float *v = vp + (size_t)c0 + (size_t)(a * 6) * pstride;
        VEC s = r[0];
        s = V_MADD(s, bt[2], r[2]);
        s = V_MADD(s, bt[4], r[4]);
        V_STORE(v, s, k);
        for (int bb = 1; bb < 5; bb++) {
            s = V_ZERO;
            for (int kk = 1; kk < 5; kk++) s = V_MADD(s, bt[bb * 6 + kk], r[kk]);
            V_STORE(v + (size_t)bb * pstride, s, k);
        }
        s = V_ZERO;
        s = V_MADD(s, bt[31], r[1]);
        s = V_MADD(s, bt[33], r[3]);
        s = V_MADD(s, 1.0f, r[5]);
        V_STORE(v + 5 * pstride, s, k);
    }
}

/* M -> output for one tile, output channels [o0, o0 + VW) under k; M of point p at
 * mp + p * pstride (+ o0), stored rounded to half here (r is idempotent on halves) */
TXFN void TX(tx_out)(const gc_wino16 *w, const float *mp, size_t pstride, const float *bias, float *yb,
                     int32_t ty, int32_t tx, int32_t o0, MASK k) {
    const float *at = w->at;
    const size_t OC = (size_t)w->OC;
    VEC J[24];                                            /* J[k * 6 + x] = sum_y at[k][y] M[6y + x] */
    for (int xx = 0; xx < 6; xx++) {
        VEC m[6];
        for (int yy = 0; yy < 6; yy++) m[yy] = V_R16(V_LOAD(mp + (size_t)(yy * 6 + xx) * pstride + (size_t)o0, k));
        for (int kk = 0; kk < 4; kk++) {
            VEC s = V_ZERO;
            for (int yy = 0; yy < 6; yy++) s = V_MADD(s, at[kk * 6 + yy], m[yy]);
            J[kk * 6 + xx] = s;
        }
    }
    const VEC bv = bias ? V_LOAD(bias + o0, k) : V_ZERO;
    for (int kk = 0; kk < 4; kk++) {
        const int32_t oy = ty * 4 + kk;
        if (oy >= w->OH) break;
        const VEC *j = J + kk * 6;
        const VEC t0 = V_MADD(j[1], 1.0f, j[2]), t1 = V_MADD(j[3], 1.0f, j[4]);
        const VEC t2 = V_MADD(j[1], -1.0f, j[2]), t3 = V_MADD(j[3], -1.0f, j[4]);
        for (int col = 0; col < 4; col++) {
            const int32_t ox = tx * 4 + col;
            if (ox >= w->OW) break;
            VEC o;
            if (col == 0) {
                o = V_MADD(j[0], 1.0f, t0);
                o = V_MADD(o, 1.0f, t1);
            } else if (col == 1) {
                o = V_MADD(V_ZERO, at[7], t2);
                o = V_MADD(o, at[9], t3);
            } else if (col == 2) {
                o = V_MADD(V_ZERO, at[13], t0);
                o = V_MADD(o, at[15], t1);
            } else {
                o = V_MADD(V_ZERO, at[19], t2);
                o = V_MADD(o, at[21], t3);
                o = V_MADD(o, 1.0f, j[5]);
            }
            o = V_MADD(o, 1.0f, bv);
            V_STORE(yb + ((size_t)oy * (size_t)w->OW + (size_t)ox) * OC + (size_t)o0, V_CLAMP(o, w->lo, w->hi), k);
        }
    }
}

/* the instantiation's macros are consumed: the next one defines its own */
#undef TX
#undef TXFN
#undef VEC
#undef MASK
#undef V_ZERO
#undef V_SET1
#undef V_LOAD
#undef V_STORE
#undef V_R16
#undef V_MADD
#undef V_CLAMP
