/* test_layout_props.c: the defining property of each operation, checked
 * over the whole domain on hundreds of generated layouts (deterministic
 * PRNG, ranks 1-3, depth up to 2, small sizes).  Operations are reached
 * through lay_call so the dispatcher is exercised too.  Inputs an operation
 * legitimately rejects (CuTe's divisibility preconditions) are skipped, and
 * each property also asserts that enough cases were actually checked, so a
 * generator that only produced rejected inputs would fail the test. */
#include "lt_util.h"
#include "layout_internal.h" /* flatten/congruent helpers */

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static Arena A;

static LayValue vlayout(LayLayout l)
{
    LayValue v;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_LAYOUT;
    v.layout = l;
    return v;
}

static LayValue vint(int64_t x)
{
    LayValue v;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_INT;
    v.i = lay_int_static(x);
    return v;
}

static LayTuple *leaf(int64_t v) { return lay_tuple_leaf(&A, lay_int_static(v)); }

static const int64_t STRIDES[] = {0, 1, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32};

/* random shape of rank 1-3, depth <= 2, and a stride congruent to it */
static void gen_pair(LayTuple **s, LayTuple **d, int depth, bool compactish)
{
    if (depth == 2 || rnd(3) != 0) {
        *s = leaf(1 + rnd(4));
        *d = leaf(compactish ? 1 << rnd(5) : STRIDES[rnd(sizeof STRIDES / sizeof STRIDES[0])]);
        return;
    }
    int n = 1 + (int)rnd(3);
    LayTuple *ss[3], *dd[3];
    for (int i = 0; i < n; i++) gen_pair(&ss[i], &dd[i], depth + 1, compactish);
    *s = lay_tuple_make(&A, n, ss);
    *d = lay_tuple_make(&A, n, dd);
}

static LayLayout gen(bool compactish)
{
    LayTuple *s, *d;
    if (rnd(4) == 0) {
        gen_pair(&s, &d, 1, compactish);
    } else {
        int n = 1 + (int)rnd(3);
        LayTuple *ss[3], *dd[3];
        for (int i = 0; i < n; i++) gen_pair(&ss[i], &dd[i], 1, compactish);
        s = lay_tuple_make(&A, n, ss);
        d = lay_tuple_make(&A, n, dd);
    }
    LayLayout l = {s, d};
    return l;
}

/* a random permutation-of-modes compact layout: injective, "nice" */
static LayLayout gen_injective_g(bool gaps)
{
    int n = 1 + (int)rnd(3);
    int64_t sh[3] = {0}, st[3] = {0};
    int ord[3] = {0, 1, 2};
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd((uint32_t)i + 1);
        int t = ord[i];
        ord[i] = ord[j];
        ord[j] = t;
    }
    for (int i = 0; i < n; i++) sh[i] = 1 + rnd(4);
    int64_t cur = gaps ? 1 + rnd(2) : 1;
    for (int k = 0; k < n; k++) {
        int i = ord[k];
        if (ord[k] >= n) continue;
        st[i] = cur;
        cur *= sh[i] * (gaps ? 1 + (int64_t)rnd(2) : 1); /* sometimes leave a gap */
    }
    LayTuple *ss[3], *dd[3];
    for (int i = 0; i < n; i++) {
        ss[i] = leaf(sh[i]);
        dd[i] = leaf(st[i]);
    }
    LayLayout l = {n == 1 ? ss[0] : lay_tuple_make(&A, n, ss), n == 1 ? dd[0] : lay_tuple_make(&A, n, dd)};
    return l;
}

static LayLayout gen_injective(void) { return gen_injective_g(true); }

static int64_t size_of(const LayLayout *l)
{
    LayInt s = lay_size(&A, l);
    return s.is_static ? s.value : -1;
}

/* evaluation scratch: recycled so that millions of evaluations stay small */
static Arena S;
static bool ev(const LayLayout *l, int64_t i, int64_t *out)
{
    LayInt r;
    LayError e;
    if (S.total > (1u << 20)) {
        arena_free(&S);
        arena_init(&S);
    }
    if (!lay_crd2idx(&S, lay_tuple_leaf(&S, lay_int_static(i)), l, &r, &e) || !r.is_static) return false;
    *out = r.value;
    return true;
}

static int64_t at(const LayLayout *l, int64_t i)
{
    int64_t r = -999999;
    ev(l, i, &r);
    return r;
}

static bool call1(const char *fn, LayValue x, LayValue *out, LayError *e)
{
    return lay_call(&A, fn, NULL, 0, &x, 1, out, e);
}

static bool call2(const char *fn, LayValue x, LayValue y, LayValue *out, LayError *e)
{
    LayValue args[2] = {x, y};
    return lay_call(&A, fn, NULL, 0, args, 2, out, e);
}

static const char *P(const LayLayout *l) { return lay_print_layout(&A, l); }

static bool injective(const LayLayout *l)
{
    int64_t n = size_of(l);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++)
            if (at(l, i) == at(l, j)) return false;
    return true;
}

static int64_t cosize_of(const LayLayout *l)
{
    int64_t m = 0, n = size_of(l);
    for (int64_t i = 0; i < n; i++)
        if (at(l, i) + 1 > m) m = at(l, i) + 1;
    return m;
}

#define MIN_CASES(n, what) LT_CHECK((n) >= 100, "only %d %s cases were checked", (n), what)

static void prop_coalesce_filter(void)
{
    int cases = 0;
    for (int it = 0; it < 600; it++) {
        LayLayout l = gen(false);
        LayValue r;
        LayError e;
        bool ok = call1("coalesce", vlayout(l), &r, &e);
        LT_CHECK(ok, "coalesce(%s) failed: %s", P(&l), e.msg);
        if (!ok) continue;
        cases++;
        LayLayout c = r.layout;
        LT_CHECK(size_of(&c) == size_of(&l), "coalesce(%s) = %s changes the size", P(&l), P(&c));
        for (int64_t i = 0; i < size_of(&l); i++)
            LT_CHECK(at(&c, i) == at(&l, i), "coalesce(%s) = %s differs at %lld", P(&l), P(&c), (long long)i);
        /* minimal: flat, no size-1 modes (unless it is 1:0), no mergeable neighbours */
        int n = c.shape->is_leaf ? 1 : c.shape->n;
        for (int k = 0; k < n; k++) {
            const LayTuple *s = c.shape->is_leaf ? c.shape : c.shape->elems[k];
            const LayTuple *d = c.stride->is_leaf ? c.stride : c.stride->elems[k];
            LT_CHECK(s->is_leaf, "coalesce(%s) = %s is not flat", P(&l), P(&c));
            if (!s->is_leaf) break;
            LT_CHECK(s->leaf.value != 1 || (n == 1 && d->leaf.value == 0), "coalesce(%s) = %s keeps a size-1 mode",
                     P(&l), P(&c));
            if (k + 1 < n) {
                const LayTuple *d2 = c.stride->elems[k + 1];
                LT_CHECK(s->leaf.value * d->leaf.value != d2->leaf.value, "coalesce(%s) = %s is not minimal", P(&l),
                         P(&c));
            }
        }
        /* filter: same image set, no stride-0 modes, size = size / zero-stride sizes */
        ok = call1("filter", vlayout(l), &r, &e);
        LT_CHECK(ok, "filter(%s) failed: %s", P(&l), e.msg);
        if (!ok) continue;
        LayLayout f = r.layout;
        int64_t fn = size_of(&f), ln = size_of(&l);
        for (int64_t i = 0; i < fn; i++) {
            bool found = false;
            for (int64_t j = 0; j < ln && !found; j++) found = at(&l, j) == at(&f, i);
            LT_CHECK(found, "filter(%s) = %s: %lld not in the image", P(&l), P(&f), (long long)at(&f, i));
        }
        for (int64_t j = 0; j < ln; j++) {
            bool found = false;
            for (int64_t i = 0; i < fn && !found; i++) found = at(&l, j) == at(&f, i);
            LT_CHECK(found, "filter(%s) = %s misses %lld", P(&l), P(&f), (long long)at(&l, j));
        }
        int nl;
        int64_t zeros = 1;
        LayTuple *fs = lay_tuple_flatten(&A, l.shape), *fd = lay_tuple_flatten(&A, l.stride);
        nl = fs->is_leaf ? 1 : fs->n;
        for (int k = 0; k < nl; k++) {
            const LayTuple *s = fs->is_leaf ? fs : fs->elems[k], *d = fd->is_leaf ? fd : fd->elems[k];
            if (d->leaf.value == 0) zeros *= s->leaf.value;
        }
        LT_CHECK(fn * zeros == ln, "filter(%s) = %s has the wrong size", P(&l), P(&f));
    }
    MIN_CASES(cases, "coalesce");
}

static int64_t tsize(const LayTuple *t)
{
    if (t->is_leaf) return t->leaf.value;
    int64_t p = 1;
    for (int i = 0; i < t->n; i++) p *= tsize(t->elems[i]);
    return p;
}

/* every leaf of b matches a sub-tuple of r of the same size */
static bool compatible(const LayTuple *b, const LayTuple *r)
{
    if (b->is_leaf) return tsize(r) == b->leaf.value;
    if (r->is_leaf || r->n != b->n) return false;
    for (int i = 0; i < b->n; i++)
        if (!compatible(b->elems[i], r->elems[i])) return false;
    return true;
}

/* an admissible right operand for A: each mode picks a factor of one of
 * A's (flattened) modes, either its low or its high part, so the modes of
 * B occupy disjoint digits of A's coordinate and A o B distributes */
static LayLayout gen_sub(const LayLayout *a)
{
    LayTuple *fs = lay_tuple_flatten(&A, a->shape);
    int n = fs->is_leaf ? 1 : fs->n;
    LayTuple *ss[8], *dd[8];
    int k = 0;
    int64_t pre = 1;
    for (int i = 0; i < n && k < 8; i++) {
        int64_t s = (fs->is_leaf ? fs : fs->elems[i])->leaf.value;
        int64_t f = s;
        for (int64_t c = s; c >= 1; c--)
            if (s % c == 0 && rnd(2)) {
                f = c;
                break;
            }
        if (rnd(4) != 0) {
            ss[k] = leaf(f);
            dd[k] = leaf(rnd(2) ? pre : pre * (s / f));
            k++;
        }
        pre *= s;
    }
    if (k == 0) {
        ss[0] = leaf(1);
        dd[0] = leaf(0);
        k = 1;
    }
    for (int i = k - 1; i > 0; i--) {
        int j = (int)rnd((uint32_t)i + 1);
        LayTuple *t = ss[i];
        ss[i] = ss[j];
        ss[j] = t;
        t = dd[i];
        dd[i] = dd[j];
        dd[j] = t;
    }
    LayLayout b = {k == 1 ? ss[0] : lay_tuple_make(&A, k, ss), k == 1 ? dd[0] : lay_tuple_make(&A, k, dd)};
    if (k >= 3 && rnd(2)) { /* nest the first two modes */
        LayTuple *g[2] = {ss[0], ss[1]}, *h[2] = {dd[0], dd[1]};
        LayTuple *s3[8], *d3[8];
        s3[0] = lay_tuple_make(&A, 2, g);
        d3[0] = lay_tuple_make(&A, 2, h);
        for (int i = 2; i < k; i++) {
            s3[i - 1] = ss[i];
            d3[i - 1] = dd[i];
        }
        b.shape = lay_tuple_make(&A, k - 1, s3);
        b.stride = lay_tuple_make(&A, k - 1, d3);
    }
    return b;
}

static void prop_composition(void)
{
    int cases = 0, tcases = 0;
    for (int it = 0; it < 1500; it++) {
        LayLayout a = gen(false), b = gen_sub(&a);
        LayValue r;
        LayError e;
        if (!call2("composition", vlayout(a), vlayout(b), &r, &e)) {
            LT_CHECK(strstr(e.msg, "divisibility") != NULL, "composition(%s, %s): unexpected error %s", P(&a), P(&b),
                     e.msg);
            continue;
        }
        cases++;
        LayLayout c = r.layout;
        LT_CHECK(size_of(&c) == size_of(&b), "composition(%s, %s) = %s: size differs from B", P(&a), P(&b), P(&c));
        for (int64_t i = 0; i < size_of(&b); i++)
            LT_CHECK(at(&c, i) == at(&a, at(&b, i)), "composition(%s, %s) = %s: R(%lld)=%lld but A(B(i))=%lld", P(&a),
                     P(&b), P(&c), (long long)i, (long long)at(&c, i), (long long)at(&a, at(&b, i)));
        /* R is compatible with B (CuTe's post-condition): B's coordinates work on R */
        LT_CHECK(compatible(b.shape, c.shape), "composition(%s, %s) = %s is not compatible with B", P(&a), P(&b),
                 P(&c));
    }
    MIN_CASES(cases, "composition");
    /* by-mode composition with a tiler: each mode is A_i o T_i */
    for (int it = 0; it < 600; it++) {
        LayLayout a = gen(false);
        int ra = a.shape->is_leaf ? 1 : a.shape->n;
        int nt = 1 + (int)rnd((uint32_t)ra);
        LayValue *ts = arena_alloc(&A, sizeof(LayValue) * (size_t)nt);
        for (int i = 0; i < nt; i++) {
            LayLayout ai = {(LayTuple *)(a.shape->is_leaf ? a.shape : a.shape->elems[i]),
                            (LayTuple *)(a.stride->is_leaf ? a.stride : a.stride->elems[i])};
            ts[i] = vlayout(gen_sub(&ai));
        }
        LayValue tiler;
        memset(&tiler, 0, sizeof tiler);
        tiler.kind = LAY_V_TILER;
        tiler.ntiler = nt;
        tiler.tiler = ts;
        LayValue r;
        LayError e;
        if (!call2("composition", vlayout(a), tiler, &r, &e)) continue;
        tcases++;
        for (int i = 0; i < nt; i++) {
            LayLayout ai = {(LayTuple *)(a.shape->is_leaf ? a.shape : a.shape->elems[i]),
                            (LayTuple *)(a.stride->is_leaf ? a.stride : a.stride->elems[i])};
            LayLayout ri = {r.layout.shape->elems[i], r.layout.stride->elems[i]};
            for (int64_t k = 0; k < size_of(&ts[i].layout); k++)
                LT_CHECK(at(&ri, k) == at(&ai, at(&ts[i].layout, k)), "composition(%s, %s) mode %d differs at %lld",
                         P(&a), lay_print_value(&A, &tiler), i, (long long)k);
        }
    }
    MIN_CASES(tcases, "tiler composition");
}

static void prop_complement(void)
{
    int cases = 0;
    for (int it = 0; it < 800; it++) {
        LayLayout a = gen_injective();
        int64_t co = cosize_of(&a), m = co * (1 + rnd(3)) + rnd(3);
        LayValue r;
        LayError e;
        bool ok = call2("complement", vlayout(a), vint(m), &r, &e);
        LT_CHECK(ok, "complement(%s, %lld) failed: %s", P(&a), (long long)m, e.msg);
        if (!ok) continue;
        cases++;
        LayLayout c = r.layout;
        int64_t nc = size_of(&c), na = size_of(&a);
        /* ordered */
        for (int64_t i = 1; i < nc; i++)
            LT_CHECK(at(&c, i - 1) < at(&c, i), "complement(%s, %lld) = %s is not ordered", P(&a), (long long)m, P(&c));
        /* disjoint: C(i) for i >= 1 never hits A's image */
        for (int64_t i = 1; i < nc; i++)
            for (int64_t j = 0; j < na; j++)
                LT_CHECK(at(&c, i) != at(&a, j), "complement(%s, %lld) = %s meets A at %lld", P(&a), (long long)m,
                         P(&c), (long long)at(&c, i));
        /* fills the cotarget: size(C) >= M / size(filter(A)) */
        LT_CHECK(nc * na >= m, "complement(%s, %lld) = %s is too small", P(&a), (long long)m, P(&c));
        /* (A, C) is injective: the repetitions do not overlap */
        LayLayout both[2] = {a, c};
        LayTuple *s2[2] = {a.shape, c.shape}, *d2[2] = {a.stride, c.stride};
        LayLayout ac = {lay_tuple_make(&A, 2, s2), lay_tuple_make(&A, 2, d2)};
        (void)both;
        LT_CHECK(injective(&ac), "(A, complement) = %s is not injective", P(&ac));
    }
    MIN_CASES(cases, "complement");
}

static void prop_inverses(void)
{
    int rc = 0, lc = 0;
    for (int it = 0; it < 800; it++) {
        LayLayout a = (it % 2) ? gen(false) : gen_injective();
        LayValue r;
        LayError e;
        bool ok = call1("right_inverse", vlayout(a), &r, &e);
        LT_CHECK(ok, "right_inverse(%s) failed: %s", P(&a), e.msg);
        if (ok) {
            rc++;
            for (int64_t i = 0; i < size_of(&r.layout); i++)
                LT_CHECK(at(&a, at(&r.layout, i)) == i, "right_inverse(%s) = %s: A(R(%lld)) = %lld", P(&a),
                         P(&r.layout), (long long)i, (long long)at(&a, at(&r.layout, i)));
        }
        if (!injective(&a)) continue;
        if (!call1("left_inverse", vlayout(a), &r, &e)) {
            LT_CHECK(strstr(e.msg, "not a multiple") != NULL, "left_inverse(%s): %s", P(&a), e.msg);
            continue;
        }
        lc++;
        for (int64_t i = 0; i < size_of(&a); i++)
            LT_CHECK(at(&r.layout, at(&a, i)) == i, "left_inverse(%s) = %s: L(A(%lld)) = %lld", P(&a), P(&r.layout),
                     (long long)i, (long long)at(&r.layout, at(&a, i)));
    }
    MIN_CASES(rc, "right_inverse");
    MIN_CASES(lc, "left_inverse");
}

static void prop_divide_product(void)
{
    int dc = 0, pc = 0, bc = 0;
    for (int it = 0; it < 800; it++) {
        LayLayout a = gen(false), t = gen_injective();
        LayValue r, cv;
        LayError e;
        if (call2("logical_divide", vlayout(a), vlayout(t), &r, &e)) {
            /* R(k) == A(B(k)) with B = (T, complement(T, size(A))), and B
             * reaches every coordinate of A */
            LayInt sa = lay_size(&A, &a);
            LayTuple *sat = lay_tuple_leaf(&A, sa);
            LayValue sav;
            memset(&sav, 0, sizeof sav);
            sav.kind = LAY_V_INT;
            sav.i = sat->leaf;
            bool ok = call2("complement", vlayout(t), sav, &cv, &e);
            LT_CHECK(ok, "complement(%s) failed inside a successful divide: %s", P(&t), e.msg);
            if (!ok) continue;
            LayTuple *s2[2] = {t.shape, cv.layout.shape}, *d2[2] = {t.stride, cv.layout.stride};
            LayLayout b = {lay_tuple_make(&A, 2, s2), lay_tuple_make(&A, 2, d2)};
            int64_t nr = size_of(&r.layout);
            /* exactness needs the tiler to divide A (CuTe's precondition,
             * checked only weakly by composition) */
            if (nr != size_of(&a)) continue;
            dc++;
            LT_CHECK(nr == size_of(&b), "logical_divide(%s, %s) = %s has the wrong size", P(&a), P(&t), P(&r.layout));
            /* composition is A's function on A's domain: compare where B lands inside it */
            for (int64_t k = 0; k < nr; k++)
                if (at(&b, k) < size_of(&a))
                    LT_CHECK(at(&r.layout, k) == at(&a, at(&b, k)), "logical_divide(%s, %s) = %s differs at %lld",
                             P(&a), P(&t), P(&r.layout), (long long)k);
            for (int64_t i = 0; i < size_of(&a); i++) {
                bool found = false;
                for (int64_t k = 0; k < size_of(&b) && !found; k++) found = at(&b, k) == i;
                LT_CHECK(found, "logical_divide(%s, %s): coordinate %lld of A is not reached", P(&a), P(&t),
                         (long long)i);
            }
        }
        LayLayout blk = gen_injective();
        if (call2("logical_product", vlayout(blk), vlayout(t), &r, &e)) {
            pc++;
            LayLayout m0 = {r.layout.shape->elems[0], r.layout.stride->elems[0]};
            LayLayout m1 = {r.layout.shape->elems[1], r.layout.stride->elems[1]};
            LT_CHECK(strcmp(P(&m0), P(&blk)) == 0, "logical_product(%s, %s): mode 0 %s is not A", P(&blk), P(&t),
                     P(&m0));
            LayValue comp, rep;
            int64_t m = size_of(&blk) * cosize_of(&t);
            bool ok = call2("complement", vlayout(blk), vint(m), &comp, &e) &&
                      call2("composition", comp, vlayout(t), &rep, &e);
            LT_CHECK(ok && strcmp(P(&m1), P(&rep.layout)) == 0, "logical_product(%s, %s): mode 1 %s vs %s", P(&blk),
                     P(&t), P(&m1), ok ? P(&rep.layout) : e.msg);
            LT_CHECK(injective(&r.layout), "logical_product(%s, %s) = %s is not injective", P(&blk), P(&t),
                     P(&r.layout));
            /* blocked and raked products: same image set, per-mode sizes */
            LayValue bp, rp;
            if (call2("blocked_product", vlayout(blk), vlayout(t), &bp, &e) &&
                call2("raked_product", vlayout(blk), vlayout(t), &rp, &e)) {
                bc++;
                int64_t n = size_of(&r.layout);
                LT_CHECK(size_of(&bp.layout) == n && size_of(&rp.layout) == n, "blocked/raked product sizes");
                int64_t *img = arena_alloc(&A, sizeof(int64_t) * (size_t)n);
                for (int64_t k = 0; k < n; k++) img[k] = at(&r.layout, k);
                for (int64_t k = 0; k < n; k++) {
                    bool fb = false, fr = false;
                    for (int64_t j = 0; j < n; j++) {
                        fb |= at(&bp.layout, k) == img[j];
                        fr |= at(&rp.layout, k) == img[j];
                    }
                    LT_CHECK(fb && fr, "blocked/raked_product(%s, %s) leave the product's image at %lld", P(&blk),
                             P(&t), (long long)k);
                }
                int rb = blk.shape->is_leaf ? 1 : blk.shape->n, rt = t.shape->is_leaf ? 1 : t.shape->n;
                int R = rb > rt ? rb : rt;
                for (int i = 0; i < R && R > 1; i++) {
                    LayLayout bi = {bp.layout.shape->elems[i], bp.layout.stride->elems[i]};
                    LayLayout xi = {
                        (LayTuple *)(i < rb ? (blk.shape->is_leaf ? blk.shape : blk.shape->elems[i]) : leaf(1)),
                        (LayTuple *)(i < rb ? (blk.stride->is_leaf ? blk.stride : blk.stride->elems[i]) : leaf(0))};
                    LayLayout ti = {
                        (LayTuple *)(i < rt ? (t.shape->is_leaf ? t.shape : t.shape->elems[i]) : leaf(1)),
                        (LayTuple *)(i < rt ? (t.stride->is_leaf ? t.stride : t.stride->elems[i]) : leaf(0))};
                    LT_CHECK(size_of(&bi) == size_of(&xi) * size_of(&ti), "blocked_product(%s, %s) = %s: mode %d size",
                             P(&blk), P(&t), P(&bp.layout), i);
                    /* the block sits at the start of each mode */
                    LayLayout bi0 = {bi.shape->elems[0], bi.stride->elems[0]};
                    LT_CHECK(strcmp(P(&bi0), P(&xi)) == 0, "blocked_product mode %d starts with %s, not %s", i, P(&bi0),
                             P(&xi));
                }
            }
        }
    }
    MIN_CASES(dc, "logical_divide");
    MIN_CASES(pc, "logical_product");
    MIN_CASES(bc, "blocked/raked_product");
}

static void prop_idx2crd(void)
{
    int cases = 0;
    for (int it = 0; it < 400; it++) {
        LayLayout g = gen(true);
        LayValue r;
        LayError e;
        LayValue sv;
        memset(&sv, 0, sizeof sv);
        if (g.shape->is_leaf) {
            sv.kind = LAY_V_INT;
            sv.i = g.shape->leaf;
        } else {
            sv.kind = LAY_V_TUPLE;
            sv.tuple = g.shape;
        }
        bool ok = call1("make_layout", sv, &r, &e);
        LT_CHECK(ok, "make_layout failed: %s", e.msg);
        if (!ok) continue;
        cases++;
        LayLayout l = r.layout;
        for (int64_t i = 0; i < size_of(&l); i++) {
            LayTuple *crd;
            LayInt back;
            ok = lay_idx2crd(&A, lay_int_static(i), l.shape, &crd, &e) && lay_crd2idx(&A, crd, &l, &back, &e);
            LT_CHECK(ok && lay_tuple_congruent(crd, l.shape) && back.is_static && back.value == i,
                     "idx2crd/crd2idx on %s at %lld: %s -> %s", P(&l), (long long)i,
                     ok ? lay_print_tuple(&A, crd) : e.msg, ok ? lay_print_int(&A, back) : "");
        }
    }
    MIN_CASES(cases, "idx2crd");
}

static void prop_swizzle(void)
{
    int cases = 0;
    for (int b = 0; b <= 3; b++)
        for (int m = 0; m <= 4; m++)
            for (int s = -5; s <= 5; s++) {
                int as = s < 0 ? -s : s;
                if (as < b) continue;
                LayValue sw;
                memset(&sw, 0, sizeof sw);
                sw.kind = LAY_V_SWIZZLE;
                sw.sw.b = b;
                sw.sw.m = m;
                sw.sw.s = s;
                LayTuple *sh = leaf((int64_t)1 << (b + m + as));
                LayLayout id = {sh, leaf(1)};
                LayValue c, c2;
                LayError e;
                bool ok = call2("composition", sw, vlayout(id), &c, &e);
                LT_CHECK(ok, "Sw<%d,%d,%d> o layout failed: %s", b, m, s, e.msg);
                if (!ok) continue;
                cases++;
                int64_t n = sh->leaf.value;
                char *seen = arena_alloc(&A, (size_t)n);
                for (int64_t x = 0; x < n; x++) {
                    LayInt y, z;
                    ok = lay_composed_crd2idx(&A, leaf(x), &c.composed, &y, &e) &&
                         lay_composed_crd2idx(&A, lay_tuple_leaf(&A, y), &c.composed, &z, &e);
                    LT_CHECK(ok && z.value == x && y.value >= 0 && y.value < n, "Sw<%d,%d,%d>: %lld -> %lld -> %lld", b,
                             m, s, (long long)x, (long long)y.value, (long long)z.value);
                    if (ok && y.value >= 0 && y.value < n) seen[y.value] = 1;
                }
                for (int64_t x = 0; x < n; x++) LT_CHECK(seen[x], "Sw<%d,%d,%d> misses %lld", b, m, s, (long long)x);
                (void)c2;
            }
    MIN_CASES(cases, "swizzle");
}

static void prop_cast(void)
{
    int cases = 0;
    for (int it = 0; it < 400; it++) {
        LayLayout l = gen(false);
        int64_t n = 1 + rnd(4);
        LayValue d, u;
        LayError e;
        if (!lay_call(&A, "downcast", &n, 1, (LayValue[]){vlayout(l)}, 1, &d, &e)) {
            LT_CHECK(strstr(e.msg, "no stride-1 mode") != NULL, "downcast<%lld>(%s): %s", (long long)n, P(&l), e.msg);
            continue;
        }
        bool ok = lay_call(&A, "upcast", &n, 1, &d, 1, &u, &e);
        LT_CHECK(ok && strcmp(P(&u.layout), P(&l)) == 0, "upcast<%lld>(downcast<%lld>(%s)) = %s", (long long)n,
                 (long long)n, P(&l), ok ? P(&u.layout) : e.msg);
        cases++;
    }
    MIN_CASES(cases, "upcast/downcast");
}

static void prop_tile_to_shape_tv(void)
{
    int cases = 0;
    for (int it = 0; it < 200; it++) {
        LayLayout blk = gen_injective_g(false);
        int rb = blk.shape->is_leaf ? 1 : blk.shape->n;
        LayTuple *ts[3];
        for (int i = 0; i < 3; i++) {
            int64_t bs = i < rb ? (blk.shape->is_leaf ? blk.shape->leaf.value : blk.shape->elems[i]->leaf.value) : 1;
            ts[i] = leaf(bs * (1 + rnd(3)));
        }
        LayValue trg;
        memset(&trg, 0, sizeof trg);
        trg.kind = LAY_V_TUPLE;
        trg.tuple = lay_tuple_make(&A, 3, ts);
        LayValue r;
        LayError e;
        bool ok = call2("tile_to_shape", vlayout(blk), trg, &r, &e);
        LT_CHECK(ok, "tile_to_shape(%s, %s): %s", P(&blk), lay_print_value(&A, &trg), e.msg);
        if (!ok) continue;
        cases++;
        for (int i = 0; i < 3; i++) {
            LayLayout mi = {r.layout.shape->elems[i], r.layout.stride->elems[i]};
            LT_CHECK(size_of(&mi) == ts[i]->leaf.value, "tile_to_shape(%s, %s) = %s: mode %d", P(&blk),
                     lay_print_value(&A, &trg), P(&r.layout), i);
        }
        LT_CHECK(injective(&r.layout), "tile_to_shape result %s is not injective", P(&r.layout));
    }
    MIN_CASES(cases, "tile_to_shape");
    /* make_layout_tv: every (thread, value) lands on a distinct cell of the tile */
    int tv = 0;
    for (int it = 0; it < 200; it++) {
        int64_t tm = 1 + rnd(4), tn = 1 + rnd(4), vm = 1 + rnd(3), vn = 1 + rnd(3);
        bool trow = rnd(2), vrow = rnd(2);
        LayTuple *s1[2] = {leaf(tm), leaf(tn)}, *d1[2] = {leaf(trow ? tn : 1), leaf(trow ? 1 : tm)};
        LayTuple *s2[2] = {leaf(vm), leaf(vn)}, *d2[2] = {leaf(vrow ? vn : 1), leaf(vrow ? 1 : vm)};
        LayLayout thr = {lay_tuple_make(&A, 2, s1), lay_tuple_make(&A, 2, d1)};
        LayLayout val = {lay_tuple_make(&A, 2, s2), lay_tuple_make(&A, 2, d2)};
        LayValue r;
        LayError e;
        bool ok = call2("make_layout_tv", vlayout(thr), vlayout(val), &r, &e);
        LT_CHECK(ok && r.kind == LAY_V_LIST && r.nlist == 2, "make_layout_tv(%s, %s): %s", P(&thr), P(&val),
                 ok ? "bad kind" : e.msg);
        if (!ok || r.kind != LAY_V_LIST) continue;
        tv++;
        LayLayout l = r.list[1].layout;
        int64_t n = tm * tn * vm * vn;
        LT_CHECK(size_of(&l) == n, "layout_tv %s has size %lld, want %lld", P(&l), (long long)size_of(&l),
                 (long long)n);
        char *seen = arena_alloc(&A, (size_t)n);
        for (int64_t i = 0; i < n; i++) {
            int64_t x = at(&l, i);
            LT_CHECK(x >= 0 && x < n && !seen[x], "layout_tv %s: %lld -> %lld repeats or leaves the tile", P(&l),
                     (long long)i, (long long)x);
            if (x >= 0 && x < n) seen[x] = 1;
        }
    }
    MIN_CASES(tv, "make_layout_tv");
}

int main(void)
{
    arena_init(&A);
    arena_init(&S);
    prop_coalesce_filter();
    prop_composition();
    prop_complement();
    prop_inverses();
    prop_divide_product();
    prop_idx2crd();
    prop_swizzle();
    prop_cast();
    prop_tile_to_shape_tv();
    arena_free(&A);
    return lt_report("test_layout_props");
}
