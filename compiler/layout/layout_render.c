/* layout_render.c: pictures of a layout for `cutec eval --table/--svg`.
 * lay_render_table reproduces CuTe's print_layout byte for byte (the layout
 * on the first line, a header of column numbers, "+---" separators sized by
 * the digits of cosize, each cell the index of (m,n)).  lay_render_svg draws
 * the same grid as SVG; given make_layout_tv's (tiler, layout_tv) pair it
 * draws the tile with each cell labelled by its thread and value and
 * coloured by thread, like CuTe's print_svg. */
#include "layout_internal.h"

#include <stdio.h>
#include <string.h>

void lay_buf_printf(LayBuf *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t need = (size_t)n;
    const char *src = tmp;
    char *big = NULL;
    if (need >= sizeof tmp) {
        va_start(ap, fmt);
        big = arena_vprintf(o->a, fmt, ap);
        va_end(ap);
        src = big;
    }
    if (o->len + need + 1 > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 1024;
        while (cap < o->len + need + 1) cap *= 2;
        char *np = arena_alloc(o->a, cap);
        if (o->p) memcpy(np, o->p, o->len);
        o->p = np;
        o->cap = cap;
    }
    memcpy(o->p + o->len, src, need);
    o->len += need;
    o->p[o->len] = 0;
}

static int num_digits(int64_t x)
{
    int d = 1;
    while (x >= 10) {
        x /= 10;
        d++;
    }
    return d;
}

/* the static rank-2 function behind a layout or a composed layout */
typedef struct Grid {
    LayLayout l;
    bool composed;
    LayComposed c;
    int64_t M, N;
} Grid;

static bool grid_of(Arena *a, const LayValue *v, Grid *g, LayError *err)
{
    if (!lay_value_check(v, 0, err)) return false;
    g->composed = v->kind == LAY_V_COMPOSED;
    if (v->kind == LAY_V_LAYOUT)
        g->l = v->layout;
    else if (g->composed) {
        g->c = v->composed;
        g->l = v->composed.outer;
    } else
        return lay_fail(err, 0, "only a layout or a composed layout can be drawn, got %s", lay_print_value(a, v));
    if (lay_layout_rank(&g->l) != 2 || g->l.shape->is_leaf)
        return lay_fail(err, 0, "drawing needs a rank-2 layout, got %s", lay_print_layout(a, &g->l));
    LayInt m, n;
    if (!lay_tuple_product(a, g->l.shape->elems[0], &m, err) || !lay_tuple_product(a, g->l.shape->elems[1], &n, err))
        return false;
    if (!lay_need_static(a, m, "drawing", 0, err) || !lay_need_static(a, n, "drawing", 0, err)) return false;
    if (m.value > 4096 || n.value > 4096 || m.value * n.value > LAY_MAX_ENUM)
        return lay_fail(err, 0, "layout %s is too large to draw", lay_print_layout(a, &g->l));
    g->M = m.value;
    g->N = n.value;
    return true;
}

static bool grid_at(Arena *a, const Grid *g, int64_t m, int64_t n, int64_t *out, LayError *err)
{
    LayTuple *c = lay_tuple_empty(a, 2);
    c->elems[0] = lay_tuple_int(a, m);
    c->elems[1] = lay_tuple_int(a, n);
    LayInt r;
    bool ok = g->composed ? lay_composed_crd2idx(a, c, &g->c, &r, err) : lay_crd2idx(a, c, &g->l, &r, err);
    if (!ok) return false;
    if (!lay_need_static(a, r, "drawing", 0, err)) return false;
    *out = r.value;
    return true;
}

bool lay_render_table(Arena *a, const LayValue *v, char **out, LayError *err)
{
    Grid g;
    if (!grid_of(a, v, &g, err)) return false;
    int64_t *vals = ARENA_ARRAY(a, int64_t, g.M * g.N + 1);
    int64_t co = 0;
    for (int64_t m = 0; m < g.M; m++)
        for (int64_t n = 0; n < g.N; n++) {
            if (!grid_at(a, &g, m, n, &vals[m * g.N + n], err)) return false;
            if (vals[m * g.N + n] + 1 > co) co = vals[m * g.N + n] + 1;
        }
    if (!g.composed) {
        /* CuTe sizes the columns by cosize(layout) */
        LayInt c;
        if (!lay_cosize(a, &g.l, &c, err) || !lay_need_static(a, c, "drawing", 0, err)) return false;
        co = c.value;
    }
    int w = num_digits(co < 0 ? -co : co) + 2;
    LayBuf o = {a, NULL, 0, 0};
    lay_buf_printf(&o, "%s\n", lay_print_value(a, v));
    lay_buf_printf(&o, "    ");
    for (int64_t n = 0; n < g.N; n++) lay_buf_printf(&o, "  %*lld ", w - 2, (long long)n);
    lay_buf_printf(&o, "\n");
    for (int64_t m = 0; m <= g.M; m++) {
        lay_buf_printf(&o, "    ");
        for (int64_t n = 0; n < g.N; n++) {
            lay_buf_printf(&o, "+");
            for (int i = 0; i < w; i++) lay_buf_printf(&o, "-");
        }
        lay_buf_printf(&o, "+\n");
        if (m == g.M) break;
        lay_buf_printf(&o, "%2lld  ", (long long)m);
        for (int64_t n = 0; n < g.N; n++) lay_buf_printf(&o, "| %*lld ", w - 2, (long long)vals[m * g.N + n]);
        lay_buf_printf(&o, "|\n");
    }
    *out = o.p;
    return true;
}

const char *const lay_tv_colors[8] = {"175,175,255", "175,255,175", "255,255,175", "255,175,175",
                                      "210,210,255", "210,255,210", "255,255,210", "255,210,210"};
static const char *const BW_COLORS[8] = {"255,255,255", "230,230,230", "205,205,205", "180,180,180",
                                         "155,155,155", "130,130,130", "105,105,105", "080,080,080"};

enum { CELL = 30 };

static void svg_head(LayBuf *o, Arena *a, const LayValue *v, int64_t M, int64_t N)
{
    char *txt = lay_print_value(a, v);
    /* a comment may not contain "--" */
    for (char *p = txt; *p; p++)
        if (p[0] == '-' && p[1] == '-') p[1] = '~';
    lay_buf_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    lay_buf_printf(o, "<!-- %s -->\n", txt);
    lay_buf_printf(
        o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lld\" height=\"%lld\" viewBox=\"0 0 %lld %lld\">\n",
        (long long)((N + 1) * CELL), (long long)((M + 1) * CELL), (long long)((N + 1) * CELL),
        (long long)((M + 1) * CELL));
    lay_buf_printf(o, "<rect x=\"0\" y=\"0\" width=\"%lld\" height=\"%lld\" fill=\"white\"/>\n",
                   (long long)((N + 1) * CELL), (long long)((M + 1) * CELL));
    for (int64_t m = 0; m < M; m++)
        lay_buf_printf(o,
                       "<text x=\"%d\" y=\"%lld\" text-anchor=\"middle\" dominant-baseline=\"central\" "
                       "font-family=\"monospace\" font-size=\"12\">%lld</text>\n",
                       CELL / 2, (long long)((m + 1) * CELL + CELL / 2), (long long)m);
    for (int64_t n = 0; n < N; n++)
        lay_buf_printf(o,
                       "<text x=\"%lld\" y=\"%d\" text-anchor=\"middle\" dominant-baseline=\"central\" "
                       "font-family=\"monospace\" font-size=\"12\">%lld</text>\n",
                       (long long)((n + 1) * CELL + CELL / 2), CELL / 2, (long long)n);
}

static bool render_tv(Arena *a, const LayValue *v, char **out, LayError *err)
{
    const LayValue *tl = &v->list[0], *lv = &v->list[1];
    LayTuple *tiler = tl->kind == LAY_V_TUPLE ? tl->tuple : NULL;
    if (!tiler || tiler->n != 2 || lv->kind != LAY_V_LAYOUT || lay_layout_rank(&lv->layout) != 2 ||
        lv->layout.shape->is_leaf)
        return lay_fail(err, 0, "expected make_layout_tv's (tiler (M,N), layout_tv) pair, got %s",
                        lay_print_value(a, v));
    LayInt M, N, T, V;
    if (!lay_tuple_product(a, tiler->elems[0], &M, err) || !lay_tuple_product(a, tiler->elems[1], &N, err) ||
        !lay_tuple_product(a, lv->layout.shape->elems[0], &T, err) ||
        !lay_tuple_product(a, lv->layout.shape->elems[1], &V, err))
        return false;
    LayInt all[4] = {M, N, T, V};
    for (int i = 0; i < 4; i++)
        if (!lay_need_static(a, all[i], "drawing", 0, err)) return false;
    if (M.value <= 0 || N.value <= 0 || M.value > 4096 || N.value > 4096 || M.value * N.value > LAY_MAX_ENUM ||
        T.value * V.value > LAY_MAX_ENUM)
        return lay_fail(err, 0, "TV layout %s is too large to draw", lay_print_value(a, v));
    LayBuf o = {a, NULL, 0, 0};
    svg_head(&o, a, v, M.value, N.value);
    bool *filled = ARENA_ARRAY(a, bool, M.value *N.value);
    for (int64_t t = 0; t < T.value; t++)
        for (int64_t q = 0; q < V.value; q++) {
            LayTuple *c = lay_tuple_empty(a, 2);
            c->elems[0] = lay_tuple_int(a, t);
            c->elems[1] = lay_tuple_int(a, q);
            LayInt r;
            if (!lay_crd2idx(a, c, &lv->layout, &r, err) || !lay_need_static(a, r, "drawing", 0, err)) return false;
            if (r.value < 0 || r.value >= M.value * N.value)
                return lay_fail(err, 0, "TV layout maps (%lld,%lld) to %lld, outside the %lldx%lld tile", (long long)t,
                                (long long)q, (long long)r.value, (long long)M.value, (long long)N.value);
            if (filled[r.value]) continue; /* first owner wins, as in CuTe */
            filled[r.value] = true;
            int64_t m = r.value % M.value, n = r.value / M.value;
            long long x = (long long)((n + 1) * CELL), y = (long long)((m + 1) * CELL);
            lay_buf_printf(
                &o, "<rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"rgb(%s)\" stroke=\"black\"/>\n", x,
                y, CELL, CELL, lay_tv_colors[t % 8]);
            lay_buf_printf(&o,
                           "<text x=\"%lld\" y=\"%lld\" text-anchor=\"middle\" dominant-baseline=\"central\" "
                           "font-family=\"monospace\" font-size=\"9\">T%lld</text>\n",
                           x + CELL / 2, y + CELL / 4 + 1, (long long)t);
            lay_buf_printf(&o,
                           "<text x=\"%lld\" y=\"%lld\" text-anchor=\"middle\" dominant-baseline=\"central\" "
                           "font-family=\"monospace\" font-size=\"9\">V%lld</text>\n",
                           x + CELL / 2, y + 3 * CELL / 4 - 1, (long long)q);
        }
    lay_buf_printf(&o, "</svg>\n");
    *out = o.p;
    return true;
}

bool lay_render_svg(Arena *a, const LayValue *v, char **out, LayError *err)
{
    if (!v) return lay_fail(err, 0, "nothing to draw");
    if (v->kind == LAY_V_LIST) {
        if (!lay_value_check(v, 0, err)) return false;
        if (v->nlist != 2) return lay_fail(err, 0, "expected make_layout_tv's (tiler, layout_tv) pair");
        return render_tv(a, v, out, err);
    }
    Grid g;
    if (!grid_of(a, v, &g, err)) return false;
    LayBuf o = {a, NULL, 0, 0};
    svg_head(&o, a, v, g.M, g.N);
    for (int64_t m = 0; m < g.M; m++)
        for (int64_t n = 0; n < g.N; n++) {
            int64_t idx;
            if (!grid_at(a, &g, m, n, &idx, err)) return false;
            long long x = (long long)((n + 1) * CELL), y = (long long)((m + 1) * CELL);
            int64_t ci = idx % 8;
            if (ci < 0) ci += 8;
            lay_buf_printf(
                &o, "<rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"rgb(%s)\" stroke=\"black\"/>\n", x,
                y, CELL, CELL, BW_COLORS[ci]);
            lay_buf_printf(&o,
                           "<text x=\"%lld\" y=\"%lld\" text-anchor=\"middle\" dominant-baseline=\"central\" "
                           "font-family=\"monospace\" font-size=\"11\" fill=\"%s\">%lld</text>\n",
                           x + CELL / 2, y + CELL / 2, ci >= 5 ? "white" : "black", (long long)idx);
        }
    lay_buf_printf(&o, "</svg>\n");
    *out = o.p;
    return true;
}
