/* layout_render_tv.c: pictures of thread-value (TV) layouts, for `cutec
 * eval --table/--svg` of tiled MMAs and tiled copies.  A picture is a few
 * panels, each a tile whose cells show the thread and value that own them
 * (the first thread, then the first value, when several do, as CuTe's
 * print_svg does): as text tables in print_layout's grid, or as one SVG
 * with the cells coloured by thread. */
#include "layout_internal.h"

#include <stdio.h>
#include <string.h>

enum { CELL = 30 };

/* owner[cell] = thread * V + value of its first owner, -1 for none, the
 * cells row by row as drawn (a transposed panel's row is a stored column) */
static bool panel_owners(Arena *a, const LayTvPanel *p, int64_t **owner, int64_t *nv, LayError *err)
{
    const LayLayout *l = &p->tv;
    if (lay_layout_rank(l) != 2 || l->shape->is_leaf)
        return lay_fail(err, 0, "%s: a TV layout has a thread and a value mode, got %s", p->title,
                        lay_print_layout(a, l));
    LayInt T, V;
    if (!lay_tuple_product(a, l->shape->elems[0], &T, err) || !lay_tuple_product(a, l->shape->elems[1], &V, err) ||
        !lay_need_static(a, T, "drawing", 0, err) || !lay_need_static(a, V, "drawing", 0, err))
        return false;
    int64_t cells = p->rows * p->cols;
    if (p->rows <= 0 || p->cols <= 0 || p->rows > 4096 || p->cols > 4096 || cells > LAY_MAX_ENUM ||
        T.value * V.value > LAY_MAX_ENUM)
        return lay_fail(err, 0, "%s: %lld x %lld tile with TV layout %s is too large to draw", p->title,
                        (long long)p->rows, (long long)p->cols, lay_print_layout(a, l));
    int n;
    LayInt *s = lay_tuple_leaves(a, l->shape, &n), *d = lay_tuple_leaves(a, l->stride, &n);
    for (int i = 0; i < n; i++)
        if (!lay_need_static(a, s[i], "drawing", 0, err) || !lay_need_static(a, d[i], "drawing", 0, err)) return false;
    int64_t *own = ARENA_ARRAY(a, int64_t, cells);
    for (int64_t c = 0; c < cells; c++) own[c] = -1;
    for (int64_t t = 0; t < T.value; t++)
        for (int64_t v = 0; v < V.value; v++) {
            /* the flat coordinate t + T*v, split colexicographically over the leaves */
            int64_t rest = t + T.value * v, idx = 0;
            for (int i = 0; i < n; i++) {
                int64_t c = i + 1 < n ? rest % s[i].value : rest;
                rest /= s[i].value;
                idx += c * d[i].value;
            }
            if (idx < 0 || idx >= cells)
                return lay_fail(err, 0, "%s: TV layout %s maps (%lld,%lld) to %lld, outside the %lld x %lld tile",
                                p->title, lay_print_layout(a, l), (long long)t, (long long)v, (long long)idx,
                                (long long)p->rows, (long long)p->cols);
            int64_t r = idx % p->rows, c = idx / p->rows;
            int64_t cell = p->transposed ? c * p->rows + r : r * p->cols + c; /* row-major as drawn */
            if (own[cell] < 0) own[cell] = t * V.value + v;
        }
    *owner = own;
    *nv = V.value;
    return true;
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

bool lay_render_tv_table(Arena *a, const LayTvPanel *ps, int np, char **out, LayError *err)
{
    LayBuf o = {a, NULL, 0, 0};
    for (int k = 0; k < np; k++) {
        const LayTvPanel *p = &ps[k];
        int64_t *own, V;
        if (!panel_owners(a, p, &own, &V, err)) return false;
        int64_t R = p->transposed ? p->cols : p->rows, C = p->transposed ? p->rows : p->cols;
        int w = 0; /* the widest label, "T127V15" */
        for (int64_t c = 0; c < R * C; c++)
            if (own[c] >= 0) {
                int l = 2 + num_digits(own[c] / V) + num_digits(own[c] % V);
                if (l > w) w = l;
            }
        if (num_digits(C - 1) > w) w = num_digits(C - 1);
        int rw = num_digits(R - 1) < 2 ? 2 : num_digits(R - 1);
        lay_buf_printf(&o, "%s%s\n", k ? "\n" : "", p->title);
        lay_buf_printf(&o, "%*s", rw + 2, "");
        for (int64_t c = 0; c < C; c++) lay_buf_printf(&o, "  %*lld ", w, (long long)c);
        lay_buf_printf(&o, "\n");
        for (int64_t r = 0; r <= R; r++) {
            lay_buf_printf(&o, "%*s", rw + 2, "");
            for (int64_t c = 0; c < C; c++) lay_buf_printf(&o, "+%.*s", w + 2, "------------------------");
            lay_buf_printf(&o, "+\n");
            if (r == R) break;
            lay_buf_printf(&o, "%*lld  ", rw, (long long)r);
            for (int64_t c = 0; c < C; c++) {
                int64_t x = own[r * C + c];
                const char *lab = x < 0 ? "" : arena_printf(a, "T%lldV%lld", (long long)(x / V), (long long)(x % V));
                lay_buf_printf(&o, "| %*s ", w, lab);
            }
            lay_buf_printf(&o, "|\n");
        }
    }
    *out = o.p ? o.p : "";
    return true;
}

static const char TEXT_ATTRS[] = "font-family=\"monospace\" text-anchor=\"middle\" dominant-baseline=\"central\"";

/* an XML comment may not contain "--" */
static const char *comment_safe(Arena *a, const char *s)
{
    char *t = arena_printf(a, "%s", s);
    for (char *p = t; *p; p++)
        if (p[0] == '-' && p[1] == '-') p[1] = '~';
    return t;
}

bool lay_render_tv_svg(Arena *a, const LayTvPanel *ps, int np, int64_t width, int64_t height, char **out, LayError *err)
{
    LayBuf o = {a, NULL, 0, 0};
    long long W = (long long)(width * CELL), H = (long long)(height * CELL);
    lay_buf_printf(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    for (int k = 0; k < np; k++) lay_buf_printf(&o, "<!-- %s -->\n", comment_safe(a, ps[k].title));
    lay_buf_printf(
        &o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lld\" height=\"%lld\" viewBox=\"0 0 %lld %lld\">\n", W,
        H, W, H);
    lay_buf_printf(&o, "<rect x=\"0\" y=\"0\" width=\"%lld\" height=\"%lld\" fill=\"white\"/>\n", W, H);
    for (int k = 0; k < np; k++) {
        const LayTvPanel *p = &ps[k];
        int64_t *own, V;
        if (!panel_owners(a, p, &own, &V, err)) return false;
        int64_t R = p->transposed ? p->cols : p->rows, C = p->transposed ? p->rows : p->cols;
        /* the cells, then their labels, then the tile's row and column
         * numbers, each a group carrying the attributes its elements share */
        lay_buf_printf(&o, "<g stroke=\"black\">\n");
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                int64_t x = own[r * C + c];
                lay_buf_printf(&o, "<rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"rgb(%s)\"/>\n",
                               (long long)((p->x + c) * CELL), (long long)((p->y + r) * CELL), CELL, CELL,
                               x < 0 ? "255,255,255" : lay_tv_colors[(x / V) % 8]);
            }
        lay_buf_printf(&o, "</g>\n<g %s font-size=\"9\">\n", TEXT_ATTRS);
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                int64_t x = own[r * C + c], px = (p->x + c) * CELL + CELL / 2, py = (p->y + r) * CELL;
                if (x < 0) continue;
                lay_buf_printf(&o, "<text x=\"%lld\" y=\"%lld\">T%lld</text>\n", (long long)px,
                               (long long)(py + CELL / 4 + 1), (long long)(x / V));
                lay_buf_printf(&o, "<text x=\"%lld\" y=\"%lld\">V%lld</text>\n", (long long)px,
                               (long long)(py + 3 * CELL / 4 - 1), (long long)(x % V));
            }
        lay_buf_printf(&o, "</g>\n");
        if (!p->label_rows && !p->label_cols) continue;
        lay_buf_printf(&o, "<g %s font-size=\"12\">\n", TEXT_ATTRS);
        for (int64_t r = 0; p->label_rows && r < R; r++)
            lay_buf_printf(&o, "<text x=\"%lld\" y=\"%lld\">%lld</text>\n", (long long)((p->x - 1) * CELL + CELL / 2),
                           (long long)((p->y + r) * CELL + CELL / 2), (long long)r);
        for (int64_t c = 0; p->label_cols && c < C; c++)
            lay_buf_printf(&o, "<text x=\"%lld\" y=\"%lld\">%lld</text>\n", (long long)((p->x + c) * CELL + CELL / 2),
                           (long long)((p->y - 1) * CELL + CELL / 2), (long long)c);
        lay_buf_printf(&o, "</g>\n");
    }
    lay_buf_printf(&o, "</svg>\n");
    *out = o.p;
    return true;
}
