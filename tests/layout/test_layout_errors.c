/* test_layout_errors.c: every failure path gives false with a precise
 * message and the offending argument (0-based in err->arg); deep nesting
 * and int64 overflow are rejected, never crash. */
#include "layout_internal.h" /* lay_int_abs, lay_int_shl */
#include "lt_util.h"

#include <string.h>

static void messages(void)
{
    lt_expect_error("foo(4:1)", "unknown layout function 'foo'", -1);
    lt_expect_error("composition(4:1, 2:1, 3:1)", "composition expects 2 arguments, got 3", -1);
    lt_expect_error("complement(4:1, Sw<1,2,3>)",
                    "argument 2 of complement must be an integer or a shape, got a swizzle", 1);
    lt_expect_error("complement((4,2):(1,2,3))", "shape (4,2) and stride (1,2,3) are not congruent", -1);
    lt_expect_error("make_layout((4,2), (1,2,3))", "shape (4,2) and stride (1,2,3) are not congruent", 1);
    lt_expect_error("make_layout((4,0))", "size must be positive, got 0 (in shape (4,0))", 0);
    lt_expect("size<1,0,0>((4,(2,3)))", "2"); /* get<0> of an integer is the integer, as in CuTe */
    lt_expect_error("size(4:1, 2)", "size expects 1 argument, got 2", -1);
    lt_expect_error("upcast(4:1)", "upcast expects 1 template argument, got 0", -1);
    lt_expect_error("size<5>((4,2))", "size: index 5 is out of range for (4,2)", 0);
    lt_expect_error("composition(2:1, Sw<1,2,3>)", "composition of a layout with a swizzle is not supported", 1);
    lt_expect_error("composition((6,2):(1,7), 8:1)",
                    "composition: shape 8 of the right layout does not meet the shape divisibility condition "
                    "(not a multiple of 6) against (6,2):(1,7)",
                    1);
    lt_expect_error("composition((3,2):(1,4), 3:2)",
                    "composition: shape 3 of the right layout does not meet the shape divisibility condition "
                    "(not a multiple of 2) against (3,2):(1,4)",
                    1);
    lt_expect_error("composition((3,2,3):(4,24,1), 4:2)",
                    "composition: stride 2 of the right layout does not meet the stride divisibility condition "
                    "with mode of size 3 of (3,2,3):(4,24,1)",
                    1);
    lt_expect_error("complement((2,2):(M,1), 8)", "complement needs a static value, but M is dynamic", 0);
    lt_expect_error("left_inverse((4,2):(M,1))", "left_inverse needs a static value, but M is dynamic", 0);
    lt_expect_error("complement((3,2):(2,3), 12)",
                    "complement: layout (3,2):(2,3) is not injective (or has a negative stride)", 0);
    lt_expect_error("shape_div(6, 4)", "shape_div: neither of 6 and 4 divides the other", 1);
    lt_expect_error("downcast<2>((4,4):(4,8))", "downcast<2>: layout (4,4):(4,8) has no stride-1 mode", 0);
    lt_expect_error("upcast<4>(8:6)", "upcast<4>: stride 6 and 4 do not divide one another", 0);
    lt_expect_error("logical_divide(8:1, (2:1, 2:1))", "logical_divide: tiler has 2 modes but layout 8:1 has only 1",
                    1);
    lt_expect_error("crd2idx((1,2,3), (4,2):(1,4))", "coordinate (1,2,3) does not match shape (4,2)", 0);
    lt_expect_error("size((4294967296,4294967296))", "value past 64 bits in size", 0);
    lt_expect_error("cosize((4294967296,4294967296):(4294967296,4294967296))", "value past 64 bits in cosize", 0);
    lt_expect_error("composition(Sw<3,4,1>, 8:1)", "Sw<3,4,1>: |S| must be at least B", 0);
    lt_expect_error("tile_to_shape((2,2):(1,2), (3,4))",
                    "tile_to_shape: block size 2 does not divide target size 3 in mode 0", 1);
    lt_expect_error("get((4,2))", "get expects 1 to 8 template arguments, got 0", -1);
}

static LayTuple *deep(Arena *a, int d)
{
    LayTuple *t = lay_tuple_leaf(a, lay_int_static(2));
    for (int i = 0; i < d; i++) t = lay_tuple_make(a, 1, &t);
    return t;
}

static void depth_limits(void)
{
    Arena a;
    arena_init(&a);
    LayLayout l;
    LayError e;
    LayTuple *t = deep(&a, 10000);
    bool ok = lay_layout_make(&a, t, t, &l, &e);
    LT_CHECK(!ok && strcmp(e.msg, "shape is nested deeper than 64 levels (or malformed)") == 0, "got %s",
             ok ? "success" : e.msg);
    LayValue v, out;
    memset(&v, 0, sizeof v);
    v.kind = LAY_V_TUPLE;
    v.tuple = t;
    ok = lay_call(&a, "size", NULL, 0, &v, 1, &out, &e);
    LT_CHECK(!ok && e.arg == 0 && strstr(e.msg, "deeper than 64"), "size of deep tuple: %s", ok ? "success" : e.msg);
    LayInt r;
    ok = lay_crd2idx(&a, lay_tuple_leaf(&a, lay_int_static(0)), &(LayLayout){t, t}, &r, &e);
    LT_CHECK(!ok && strstr(e.msg, "deeper than 64"), "crd2idx on deep layout: %s", ok ? "success" : e.msg);
    /* printing a deep tuple is bounded too */
    const char *p = lay_print_tuple(&a, t);
    LT_CHECK(strstr(p, "(...)") != NULL && strlen(p) < 1000, "deep print has %zu chars", strlen(p));
    /* 64 levels are still fine */
    LayTuple *ok64 = deep(&a, 63);
    v.tuple = ok64;
    ok = lay_call(&a, "depth", NULL, 0, &v, 1, &out, &e);
    LT_CHECK(ok && out.i.value == 63, "depth of 63-deep tuple: %s", ok ? lay_print_value(&a, &out) : e.msg);
    /* null / malformed values */
    ok = lay_call(&a, "size", NULL, 0, NULL, 1, &out, &e);
    LT_CHECK(!ok && strcmp(e.msg, "size: missing arguments") == 0, "null args: %s", ok ? "success" : e.msg);
    ok = lay_call(&a, NULL, NULL, 0, NULL, 0, &out, &e);
    LT_CHECK(!ok && strcmp(e.msg, "unknown layout function ''") == 0, "null name: %s", ok ? "success" : e.msg);
    LT_CHECK(lay_is_function("composition") && lay_is_function("make_layout_tv") && !lay_is_function("foo"),
             "lay_is_function");
    arena_free(&a);
}

static void overflow(void)
{
    Arena a;
    arena_init(&a);
    LayInt r;
    LT_CHECK(!lay_int_mul(&a, lay_int_static(INT64_MAX), lay_int_static(2), &r), "mul overflow not caught");
    LT_CHECK(!lay_int_add(&a, lay_int_static(INT64_MAX), lay_int_static(1), &r), "add overflow not caught");
    LT_CHECK(!lay_int_div(&a, lay_int_static(1), lay_int_static(0), &r), "division by zero not caught");
    LT_CHECK(!lay_int_mod(&a, lay_int_static(1), lay_int_static(0), &r), "mod by zero not caught");
    LT_CHECK(lay_int_ceildiv(&a, lay_int_static(INT64_MAX), lay_int_static(2), &r) && r.value == INT64_MAX / 2 + 1,
             "ceil_div near the top gave %lld", (long long)r.value);
    arena_free(&a);
}

/* The static integer helpers against exact arithmetic (__int128) for every
 * sign and the ends of int64: a result that fits must be exact (ceil_div
 * rounds up, div floors, mod takes the divisor's sign), one that does not
 * must be refused rather than wrap or reach undefined behaviour. */
static void int_signs(void)
{
    static const int64_t v[] = {INT64_MIN, INT64_MIN + 1, -7, -4, -2, -1, 0, 1, 2, 3, 4, 7, INT64_MAX - 1, INT64_MAX};
    const int nv = (int)(sizeof v / sizeof v[0]);
    Arena a;
    arena_init(&a);
    for (int i = 0; i < nv; i++) {
        LayInt r;
        bool ok = lay_int_abs(&a, lay_int_static(v[i]), &r);
        LT_CHECK(v[i] == INT64_MIN ? !ok : ok && r.value == (v[i] < 0 ? -v[i] : v[i]), "abs(%lld)", (long long)v[i]);
        for (int j = 0; j < nv; j++) {
            __int128 x = v[i], y = v[j];
            if (y == 0) {
                LT_CHECK(!lay_int_ceildiv(&a, lay_int_static(v[i]), lay_int_static(0), &r), "ceil_div(%lld, 0)",
                         (long long)v[i]);
                continue;
            }
            __int128 fl = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
            __int128 ce = -((-x) / y - (((-x) % y != 0) && ((-x < 0) != (y < 0)))); /* -floor(-x / y) */
            __int128 md = x - y * fl;
            bool fits = fl >= INT64_MIN && fl <= INT64_MAX && ce >= INT64_MIN && ce <= INT64_MAX;
            ok = lay_int_ceildiv(&a, lay_int_static(v[i]), lay_int_static(v[j]), &r);
            LT_CHECK(fits ? ok && r.value == (int64_t)ce : !ok, "ceil_div(%lld, %lld) gave %s%lld", (long long)v[i],
                     (long long)v[j], ok ? "" : "(refused) ", (long long)r.value);
            ok = lay_int_div(&a, lay_int_static(v[i]), lay_int_static(v[j]), &r);
            LT_CHECK(fits ? ok && r.value == (int64_t)fl : !ok, "div(%lld, %lld)", (long long)v[i], (long long)v[j]);
            ok = lay_int_mod(&a, lay_int_static(v[i]), lay_int_static(v[j]), &r);
            LT_CHECK(ok && r.value == (int64_t)md, "mod(%lld, %lld)", (long long)v[i], (long long)v[j]);
        }
        for (int sh = 0; sh < 64; sh += 9) {
            __int128 want = (__int128)v[i] * ((__int128)1 << sh);
            ok = lay_int_shl(&a, lay_int_static(v[i]), lay_int_static(sh), &r);
            bool exact = v[i] >= 0 && want <= INT64_MAX; /* the algebra shifts only non-negative values */
            LT_CHECK(exact ? ok && r.value == (int64_t)want : !ok, "%lld << %d", (long long)v[i], sh);
        }
    }
    arena_free(&a);
}

int main(void)
{
    messages();
    depth_limits();
    overflow();
    int_signs();
    return lt_report("test_layout_errors");
}
