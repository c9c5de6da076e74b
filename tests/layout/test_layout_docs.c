/* test_layout_docs.c: fixed expectations taken from CuTe's documentation
 * (media/docs/cpp/cute/01_layout.md, 02_layout_algebra.md), CuTe's unit
 * tests and the CuTe DSL docstrings.  Each expected string is CuTe's own
 * printed result with the static "_" prefixes dropped (our static ints print
 * plain).  Also the print_layout table format. */
#include "lt_util.h"

#include <string.h>

static void docs_01_layout(void)
{
    /* idx2crd / crd2idx on shape (3,(2,3)), stride (3,(12,1)) */
    lt_expect("idx2crd(16, (3,(2,3)))", "(1,(1,2))");
    lt_expect("idx2crd((1,5), (3,(2,3)))", "(1,(1,2))");
    lt_expect("idx2crd((1,(1,2)), (3,(2,3)))", "(1,(1,2))");
    lt_expect("crd2idx(16, (3,(2,3)), (3,(12,1)))", "17");
    lt_expect("crd2idx((1,5), (3,(2,3)), (3,(12,1)))", "17");
    lt_expect("crd2idx((1,(1,2)), (3,(2,3)), (3,(12,1)))", "17");
    /* sublayouts */
    lt_expect("make_layout((4,(3,6)))", "(4,(3,6)):(1,(4,12))");
    lt_expect("layout<0>(make_layout((4,(3,6))))", "4:1");
    lt_expect("layout<1>(make_layout((4,(3,6))))", "(3,6):(4,12)");
    lt_expect("layout<1,0>(make_layout((4,(3,6))))", "3:4");
    lt_expect("layout<1,1>(make_layout((4,(3,6))))", "6:12");
    lt_expect("make_layout((2,3,5,7))", "(2,3,5,7):(1,2,6,30)");
    lt_expect("select<1,3>(make_layout((2,3,5,7)))", "(3,7):(2,30)");
    lt_expect("select<0,1,3>(make_layout((2,3,5,7)))", "(2,3,7):(1,2,30)");
    lt_expect("select<2>(make_layout((2,3,5,7)))", "(5):(6)");
    lt_expect("take<1,3>(make_layout((2,3,5,7)))", "(3,5):(2,6)");
    lt_expect("take<1,4>(make_layout((2,3,5,7)))", "(3,5,7):(2,6,30)");
    /* concatenation */
    lt_expect("make_layout(3:1, 4:3)", "(3,4):(1,3)");
    lt_expect("make_layout(4:3, 3:1)", "(4,3):(3,1)");
    lt_expect("make_layout(make_layout(3:1, 4:3), make_layout(4:3, 3:1))", "((3,4),(4,3)):((1,3),(3,1))");
    lt_expect("make_layout(3:1)", "(3):(1)");
    lt_expect("make_layout(make_layout(3:1))", "((3)):((1))");
    lt_expect("make_layout(3:1, make_layout(3:1), 3:1)", "(3,(3),3):(1,(1),1)");
    lt_expect("append(3:1, 4:3)", "(3,4):(1,3)");
    lt_expect("prepend(3:1, 4:3)", "(4,3):(3,1)");
    lt_expect("append(append(3:1, 4:3), append(3:1, 4:3))", "(3,4,(3,4)):(1,3,(1,3))");
    lt_expect("group<0,2>(make_layout((2,3,5,7)))", "((2,3),5,7):((1,2),6,30)");
    lt_expect("group<1,3>(group<0,2>(make_layout((2,3,5,7))))", "((2,3),(5,7)):((1,2),(6,30))");
    lt_expect("flatten(group<1,3>(group<0,2>(make_layout((2,3,5,7)))))", "(2,3,5,7):(1,2,6,30)");
}

static void docs_02_algebra(void)
{
    /* coalesce */
    lt_expect("coalesce((2,(1,6)):(1,(6,2)))", "12:1");
    lt_expect("coalesce((2,(1,6)):(1,(6,2)), (1,1))", "(2,6):(1,2)");
    lt_expect("coalesce((2,4):(1,2))", "8:1");
    /* composition */
    lt_expect("composition((6,2):(8,2), (4,3):(3,1))", "((2,2),3):((24,2),8)");
    lt_expect("composition(20:2, (5,4):(4,1))", "(5,4):(8,2)");
    lt_expect("composition((10,2):(16,4), (5,4):(1,5))", "(5,(2,2)):(16,(80,4))");
    lt_expect("composition((12,(4,8)):(59,(13,1)), (3:4, 8:2))", "(3,(2,4)):(236,(26,1))");
    lt_expect("composition((12,(4,8)):(59,(13,1)), (3,8))", "(3,(4,2)):(59,(13,1))");
    /* complement */
    lt_expect("complement(4:1, 24)", "6:4");
    lt_expect("complement(6:4, 24)", "4:1");
    lt_expect("complement((4,6):(1,4), 24)", "1:0");
    lt_expect("complement(4:2, 24)", "(2,3):(1,8)");
    lt_expect("complement((2,4):(1,6), 24)", "3:2");
    lt_expect("complement((2,2):(1,6), 24)", "(3,2):(2,12)");
    /* divide */
    lt_expect("logical_divide((4,2,3):(2,1,8), 4:2)", "((2,2),(2,3)):((4,1),(2,8))");
    lt_expect("logical_divide((9,(4,8)):(59,(13,1)), (3:3, (2,4):(1,8)))",
              "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
    lt_expect("zipped_divide((9,(4,8)):(59,(13,1)), (3:3, (2,4):(1,8)))",
              "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
    lt_expect("tiled_divide((9,(4,8)):(59,(13,1)), (3:3, (2,4):(1,8)))",
              "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
    lt_expect("flat_divide((9,(4,8)):(59,(13,1)), (3:3, (2,4):(1,8)))", "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
    /* product */
    lt_expect("logical_product((2,2):(4,1), 6:1)", "((2,2),(2,3)):((4,1),(2,8))");
    /* hand-derived from the definition (the doc shows only a picture) */
    lt_expect("logical_product((2,2):(4,1), (4,2):(2,1))", "((2,2),(4,2)):((4,1),(8,2))");
    /* blocked / raked: a 2x5 row-major block over a 3x4 column-major arrangement */
    lt_expect("blocked_product((2,5):(5,1), make_layout((3,4)))", "((2,3),(5,4)):((5,10),(1,30))");
    lt_expect("raked_product((2,5):(5,1), make_layout((3,4)))", "((3,2),(4,5)):((10,5),(30,1))");
    lt_expect("logical_product((2,5):(5,1), (3:5, 4:6))", "((2,3),(5,4)):((5,10),(1,30))");
}

/* CuTe's test/unit/cute/core and the CuTe DSL */
static void cute_tests(void)
{
    /* expected values: the CuTe DSL make_layout_tv docstring, CuTe's
     * make_ordered_layout comment and shape_div comment; the rest derived
     * by hand from CuTe's definitions (see docs/layout-algebra.md) */
    lt_expect("make_layout_tv((2,3):(3,1), (2,2):(2,1))", "((4,6),((3,2),(2,2)):((8,2),(4,1)))");
    lt_expect("right_inverse((4,8):(8,1))", "(8,4):(4,1)");
    lt_expect("right_inverse(make_layout((4,8)))", "32:1");
    lt_expect("right_inverse((2,4):(1,4))", "2:1");
    lt_expect("left_inverse((4,8):(8,1))", "(8,4):(4,1)");
    lt_expect("left_inverse(4:2)", "(2,4):(0,1)");
    lt_expect("upcast<2>((4,8):(8,1))", "(4,4):(4,1)");
    lt_expect("downcast<2>((4,4):(4,1))", "(4,8):(8,1)");
    lt_expect("max_common_vector((4,8):(1,4), (4,8):(1,4))", "32");
    lt_expect("max_common_vector((4,8):(8,1), (4,8):(1,4))", "1");
    lt_expect("max_common_layout((4,8):(1,4), (4,(4,2)):(1,(4,32)))", "16:1");
    lt_expect("max_common_layout((4,8):(1,4), (4,(4,2)):(1,(4,16)))", "32:1");
    lt_expect("tile_to_shape((2,2):(1,2), (4,6))", "((2,2),(2,3)):((1,4),(2,8))");
    lt_expect("make_ordered_layout((2,2,2,2), (0,2,3,1))", "(2,2,2,2):(1,4,8,2)");
    lt_expect("composition(Sw<3,4,3>, (8,64):(64,1))", "Sw<3,4,3> o 0 o (8,64):(64,1)");
    lt_expect("shape_div((4,5,6), 40)", "(1,1,3)");
    lt_expect("ceil_div((6,2), 12)", "(1,1)");
    lt_expect("size<1>((4,(2,3)):(2,(1,8)))", "6");
    lt_expect("cosize((4,(2,3)):(2,(1,8)))", "24");
    lt_expect("rank((4,(2,3)):(2,(1,8)))", "2");
    lt_expect("depth((4,(2,3)):(2,(1,8)))", "2");
    lt_expect("shape<1>((4,(2,3)):(2,(1,8)))", "(2,3)");
    lt_expect("stride((4,(2,3)):(2,(1,8)))", "(2,(1,8))");
    lt_expect("get<1,0>((4,(2,3)))", "2");
    lt_expect("(4,)", "(4)");
    lt_expect("(4:2,8:1)", "(4:2,8:1)");
    lt_expect("crd2idx(6, composition(Sw<1,0,1>, 8:1))", "7");
    lt_expect("crd2idx(5, composition(Sw<1,0,1>, 8:1))", "5");
    lt_expect("filter((4,1,2):(1,3,0))", "4:1");
    lt_expect("complement(4:1)", "1:0");
    lt_expect("complement((2,2):(1,6))", "3:2");
}

static void table(void)
{
    Arena a;
    arena_init(&a);
    LayValue v;
    LayError e;
    char *out = NULL;
    bool ok = lt_eval(&a, "(2,(2,2)):(4,(2,1))", &v, &e) && lay_render_table(&a, &v, &out, &e);
    const char *want = "(2,(2,2)):(4,(2,1))\n"
                       "      0   1   2   3 \n"
                       "    +---+---+---+---+\n"
                       " 0  | 0 | 2 | 1 | 3 |\n"
                       "    +---+---+---+---+\n"
                       " 1  | 4 | 6 | 5 | 7 |\n"
                       "    +---+---+---+---+\n";
    LT_CHECK(ok && strcmp(out, want) == 0, "table:\n%s\nwanted:\n%s", ok ? out : e.msg, want);
    /* a table needs a rank-2 layout */
    ok = lt_eval(&a, "(2,2,2):(1,2,4)", &v, &e) && lay_render_table(&a, &v, &out, &e);
    LT_CHECK(!ok && strcmp(e.msg, "drawing needs a rank-2 layout, got (2,2,2):(1,2,4)") == 0, "got %s",
             ok ? out : e.msg);
    /* svg: well-formed enough to start and end right, one rect per cell */
    ok = lt_eval(&a, "make_layout_tv((2,3):(3,1), (2,2):(2,1))", &v, &e) && lay_render_svg(&a, &v, &out, &e);
    int rects = 0;
    for (const char *p = ok ? out : ""; (p = strstr(p, "<rect ")) != NULL; p++) rects++;
    LT_CHECK(ok && strstr(out, "<svg ") && strstr(out, "</svg>\n") && rects == 24 + 1 && strstr(out, ">T5<") &&
                 strstr(out, ">V3<"),
             "svg (%d rects):\n%s", rects, ok ? out : e.msg);
    arena_free(&a);
}

int main(void)
{
    docs_01_layout();
    docs_02_algebra();
    cute_tests();
    table();
    return lt_report("test_layout_docs");
}
