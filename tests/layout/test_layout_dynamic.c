/* test_layout_dynamic.c: symbolic shapes, strides and coordinates.  The
 * LayExpr trees crd2idx/idx2crd build are evaluated with values substituted
 * for the symbols and compared with the all-static computation, over many
 * values; also folding and the readable printing of expressions. */
#include "lt_util.h"

#include <string.h>

static LayInt sym(Arena *a, const char *n) { return lay_int_sym(a, n, NULL); }
static LayTuple *L(Arena *a, LayInt v) { return lay_tuple_leaf(a, v); }
static LayTuple *T2(Arena *a, LayTuple *x, LayTuple *y)
{
    LayTuple *e[2] = {x, y};
    return lay_tuple_make(a, 2, e);
}

static void crd2idx_mn(void)
{
    Arena a;
    arena_init(&a);
    /* (M,N):(N,1) with symbolic M, N and coordinates (i,j) */
    LayInt M = sym(&a, "M"), N = sym(&a, "N"), i = sym(&a, "i"), j = sym(&a, "j");
    LayLayout l;
    LayError e;
    bool ok = lay_layout_make(&a, T2(&a, L(&a, M), L(&a, N)), T2(&a, L(&a, N), L(&a, lay_int_static(1))), &l, &e);
    LT_CHECK(ok, "make: %s", e.msg);
    LayInt r, r1;
    ok = lay_crd2idx(&a, T2(&a, L(&a, i), L(&a, j)), &l, &r, &e);
    LT_CHECK(ok && !r.is_static, "crd2idx: %s", e.msg);
    LT_CHECK(strcmp(lay_print_int(&a, r), "i*N+j") == 0, "printed %s", lay_print_int(&a, r));
    /* 1-D symbolic index k into the same layout: (k%M)*N + k/M */
    LayInt k = sym(&a, "k");
    ok = lay_crd2idx(&a, L(&a, k), &l, &r1, &e);
    LT_CHECK(ok, "crd2idx(k): %s", e.msg);
    LT_CHECK(strcmp(lay_print_int(&a, r1), "k%M*N+k/M") == 0, "printed %s", lay_print_int(&a, r1));
    const char *names[5] = {"M", "N", "i", "j", "k"};
    int cases = 0;
    for (int64_t m = 1; m <= 7; m++)
        for (int64_t n = 1; n <= 7; n++)
            for (int64_t x = 0; x < m; x++)
                for (int64_t y = 0; y < n; y++) {
                    int64_t vals[5] = {m, n, x, y, x + y * m};
                    int64_t got, got1;
                    /* the static computation, through the same API */
                    LayLayout ls;
                    LayInt want, want1;
                    lay_layout_make(&a, T2(&a, L(&a, lay_int_static(m)), L(&a, lay_int_static(n))),
                                    T2(&a, L(&a, lay_int_static(n)), L(&a, lay_int_static(1))), &ls, &e);
                    lay_crd2idx(&a, T2(&a, L(&a, lay_int_static(x)), L(&a, lay_int_static(y))), &ls, &want, &e);
                    lay_crd2idx(&a, L(&a, lay_int_static(x + y * m)), &ls, &want1, &e);
                    bool ev = lt_int_eval(r, 5, names, vals, &got) && lt_int_eval(r1, 5, names, vals, &got1);
                    LT_CHECK(ev && want.is_static && got == want.value && got1 == want1.value && got == x * n + y,
                             "M=%lld N=%lld (%lld,%lld): %lld/%lld vs %lld/%lld", (long long)m, (long long)n,
                             (long long)x, (long long)y, (long long)got, (long long)got1, (long long)want.value,
                             (long long)want1.value);
                    cases++;
                }
    LT_CHECK(cases > 500, "only %d cases", cases);
    arena_free(&a);
}

static void idx2crd_dyn(void)
{
    Arena a;
    arena_init(&a);
    LayInt k = sym(&a, "k");
    LayError e;
    /* static nested shape, dynamic index */
    LayTuple *shape = T2(&a, L(&a, lay_int_static(3)), T2(&a, L(&a, lay_int_static(2)), L(&a, lay_int_static(3))));
    LayTuple *c;
    bool ok = lay_idx2crd(&a, k, shape, &c, &e);
    LT_CHECK(ok, "idx2crd: %s", e.msg);
    LT_CHECK(strcmp(lay_print_tuple(&a, c), "(k%3,(k/3%2,k/3/2))") == 0, "printed %s", lay_print_tuple(&a, c));
    const char *names[1] = {"k"};
    for (int64_t v = 0; v < 18; v++) {
        int64_t x, y, z;
        bool ev = lt_int_eval(c->elems[0]->leaf, 1, names, &v, &x) &&
                  lt_int_eval(c->elems[1]->elems[0]->leaf, 1, names, &v, &y) &&
                  lt_int_eval(c->elems[1]->elems[1]->leaf, 1, names, &v, &z);
        LT_CHECK(ev && x + 3 * y + 6 * z == v && x < 3 && y < 2 && z < 3, "idx2crd(%lld) = (%lld,(%lld,%lld))",
                 (long long)v, (long long)x, (long long)y, (long long)z);
    }
    /* a dynamic shape works too */
    LayInt M = sym(&a, "M");
    ok = lay_idx2crd(&a, k, T2(&a, L(&a, M), L(&a, lay_int_static(4))), &c, &e);
    LT_CHECK(ok && strcmp(lay_print_tuple(&a, c), "(k%M,k/M)") == 0, "printed %s", ok ? lay_print_tuple(&a, c) : e.msg);
    arena_free(&a);
}

static void folding_and_algebra(void)
{
    Arena a;
    arena_init(&a);
    LayInt M = sym(&a, "M"), r;
    lay_int_mul(&a, M, lay_int_static(1), &r);
    LT_CHECK(!r.is_static && r.expr == M.expr, "M*1 not folded");
    lay_int_mul(&a, M, lay_int_static(0), &r);
    LT_CHECK(r.is_static && r.value == 0, "M*0 not folded");
    lay_int_add(&a, lay_int_static(0), M, &r);
    LT_CHECK(r.expr == M.expr, "0+M not folded");
    lay_int_div(&a, M, lay_int_static(1), &r);
    LT_CHECK(r.expr == M.expr, "M/1 not folded");
    lay_int_mod(&a, M, lay_int_static(1), &r);
    LT_CHECK(r.is_static && r.value == 0, "M%%1 not folded");
    lay_int_mul(&a, M, lay_int_static(4), &r);
    lay_int_mul(&a, r, lay_int_static(8), &r);
    LT_CHECK(strcmp(lay_print_int(&a, r), "M*32") == 0, "got %s", lay_print_int(&a, r));
    /* the GEMM tiling case: dynamic problem, static tiles */
    lt_expect("zipped_divide(make_layout((M,N)), (128,64))",
              "((128,64),(ceil_div(M,128),ceil_div(N,64))):((1,M),(128,M*64))");
    lt_expect("logical_divide(M:1, 128:1)", "(128,ceil_div(M,128)):(1,128)");
    lt_expect("size(make_layout((M,N,4)))", "M*N*4");
    lt_expect("crd2idx((i,j), (M,N):(1,M))", "i+j*M");
    lt_expect("composition(Sw<3,4,3>, (8,64):(64,1))", "Sw<3,4,3> o 0 o (8,64):(64,1)");
    lt_expect("crd2idx(x, composition(Sw<3,4,3>, 1024:1))", "x^(x&896)>>3");
    lt_expect("ceil_div(M, 128)", "ceil_div(M,128)");
    lt_expect("upcast<2>((4,M):(M,1))", "(4,ceil_div(M,2)):(M/2,1)");
    arena_free(&a);
}

int main(void)
{
    crd2idx_mn();
    idx2crd_dyn();
    folding_and_algebra();
    return lt_report("test_layout_dynamic");
}
