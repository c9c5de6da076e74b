/* layout.h: CuTe's layout algebra, exact, in pure C (no LLVM).
 *
 * Integers are LayInt: either static (a known int64) or dynamic (a symbolic
 * expression over named runtime values).  Arithmetic on LayInt folds static
 * operands and builds LayExpr nodes otherwise, so one implementation of
 * crd2idx/idx2crd serves both `cutec eval` (all static) and code generation
 * (the compiler lowers the resulting LayExpr trees to LLVM IR).  This is the
 * single source of truth for index math.
 *
 * All memory comes from the caller's Arena.  Operations that can fail return
 * bool and fill a LayError; they never abort on user input.
 *
 * CONTRACT with the rest of the compiler (keep these signatures stable):
 * the types below, lay_int_* arithmetic, lay_tuple_*, lay_layout_*,
 * lay_crd2idx, lay_idx2crd, lay_print, lay_call. */
#ifndef CUTEC_LAYOUT_H
#define CUTEC_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../arena.h"

/* ---- symbolic integers ------------------------------------------------- */

typedef enum LayExprOp {
    LAY_E_SYM,   /* a named runtime value; `user` is the compiler's handle */
    LAY_E_CONST, /* only inside trees; a whole static LayInt has expr == NULL */
    LAY_E_ADD,
    LAY_E_SUB,
    LAY_E_MUL,
    LAY_E_DIV, /* floor division of non-negative values */
    LAY_E_CEILDIV,
    LAY_E_MOD,
    LAY_E_MIN,
    LAY_E_MAX,
    LAY_E_XOR,
    LAY_E_AND,
    LAY_E_SHR,
    LAY_E_SHL, /* swizzles */
} LayExprOp;

typedef struct LayExpr LayExpr;
struct LayExpr {
    LayExprOp op;
    int64_t value;        /* LAY_E_CONST */
    const char *name;     /* LAY_E_SYM: printed name, may be NULL ("?") */
    void *user;           /* LAY_E_SYM: opaque handle owned by the caller */
    const LayExpr *a, *b; /* operands of binary ops */
};

typedef struct LayInt {
    bool is_static;
    int64_t value;       /* valid when is_static */
    const LayExpr *expr; /* valid when !is_static */
} LayInt;

LayInt lay_int_static(int64_t v);
LayInt lay_int_sym(Arena *a, const char *name, void *user);
/* Arithmetic with folding (x*1, x+0, x*0, static op static, ...).
 * Static overflow past int64 is reported through the bool-returning
 * checked variants used by the algebra; these never overflow silently: on
 * overflow they return false and leave *out untouched. */
bool lay_int_add(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_sub(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_mul(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_div(Arena *a, LayInt x, LayInt y, LayInt *out); /* floor, y > 0 */
bool lay_int_ceildiv(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_mod(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_min(Arena *a, LayInt x, LayInt y, LayInt *out);
bool lay_int_max(Arena *a, LayInt x, LayInt y, LayInt *out);

/* ---- nested integer tuples (shapes, strides, coordinates) -------------- */

typedef struct LayTuple LayTuple;
struct LayTuple {
    bool is_leaf;
    LayInt leaf; /* is_leaf */
    int n;       /* !is_leaf: number of modes (0 allowed: "()") */
    LayTuple **elems;
};

LayTuple *lay_tuple_leaf(Arena *a, LayInt v);
LayTuple *lay_tuple_make(Arena *a, int n, LayTuple **elems);

/* ---- layouts, swizzles, composed layouts, tilers ----------------------- */

typedef struct LayLayout {
    LayTuple *shape, *stride; /* congruent */
} LayLayout;

typedef struct LaySwizzle { /* CuTe Swizzle<B,M,S> */
    int b, m, s;
} LaySwizzle;

/* CuTe ComposedLayout: inner(offset + outer(c)), here the inner is a
 * swizzle (the only inner function the language needs). */
typedef struct LayComposed {
    LaySwizzle sw;
    LayInt offset;
    LayLayout outer;
} LayComposed;

/* ---- values of the compile-time language ------------------------------ */

typedef enum LayValueKind {
    LAY_V_INT,   /* a LayInt */
    LAY_V_TUPLE, /* an integer tuple */
    LAY_V_LAYOUT,
    LAY_V_SWIZZLE,
    LAY_V_COMPOSED,
    LAY_V_TILER, /* a tuple whose elements are layouts (or ints = n:1) */
    LAY_V_LIST,  /* (added) a heterogeneous tuple of values, e.g. the
                       * (tiler_mn, layout_tv) pair make_layout_tv returns */
} LayValueKind;

typedef struct LayValue LayValue;
struct LayValue {
    LayValueKind kind;
    LayInt i;             /* LAY_V_INT */
    LayTuple *tuple;      /* LAY_V_TUPLE */
    LayLayout layout;     /* LAY_V_LAYOUT */
    LaySwizzle sw;        /* LAY_V_SWIZZLE */
    LayComposed composed; /* LAY_V_COMPOSED */
    int ntiler;           /* LAY_V_TILER: modes, each a LAY_V_LAYOUT value */
    LayValue *tiler;
    int nlist; /* LAY_V_LIST (added): elements, any kind */
    LayValue *list;
};

typedef struct LayError {
    int arg;       /* index of the offending argument, -1 if none */
    char msg[512]; /* e.g. "shape (4,2) and stride (1) are not congruent" */
} LayError;

/* ---- core queries and index maps --------------------------------------- */

bool lay_layout_make(Arena *a, LayTuple *shape, LayTuple *stride, LayLayout *out, LayError *err);
LayInt lay_size(Arena *a, const LayLayout *l); /* product of the shape */
/* coordinate (an int, a flat or a natural nested coordinate) -> index.
 * Works on dynamic shapes/strides/coordinates by building LayExpr. */
bool lay_crd2idx(Arena *a, const LayTuple *crd, const LayLayout *l, LayInt *out, LayError *err);
/* the same for a composed layout (applies offset and swizzle) */
bool lay_composed_crd2idx(Arena *a, const LayTuple *crd, const LayComposed *l, LayInt *out, LayError *err);
/* linear index -> natural coordinate of a shape (colexicographic, CuTe's) */
bool lay_idx2crd(Arena *a, LayInt idx, const LayTuple *shape, LayTuple **out, LayError *err);

/* ---- printing (the one printer: CuTe notation) ------------------------- */

/* Appends to a growing buffer; dynamic leaves print by name or as "?". */
char *lay_print_int(Arena *a, LayInt v);
char *lay_print_tuple(Arena *a, const LayTuple *t);
char *lay_print_layout(Arena *a, const LayLayout *l); /* "(4,(2,3)):(2,(1,8))" */
char *lay_print_value(Arena *a, const LayValue *v);

/* ---- the algebra, by CuTe name, for `cutec eval` and the compiler ------- */

/* Call operation `name` (CuTe's name: "size", "composition", "complement",
 * "logical_divide", ...) on argument values.  `targs`/`ntargs` are the
 * static template arguments of spellings like size<1>(x) / get<0,1>(x)
 * (ntargs == 0 when absent).  Returns false with err set on any error:
 * unknown name ("unknown layout function 'foo'"), wrong arity or argument
 * kind (err->arg says which), non-congruent, non-divisible, overflow, a
 * dynamic value where a static one is needed. */
bool lay_call(Arena *a, const char *name, const int64_t *targs, int ntargs, const LayValue *args, int nargs,
              LayValue *out, LayError *err);
/* true if `name` is an operation lay_call knows (for name resolution) */
bool lay_is_function(const char *name);

/* ---- rendering for `cutec eval --table/--svg` --------------------------- */

/* print_layout-style index table of a rank-2 layout (or composed layout) */
bool lay_render_table(Arena *a, const LayValue *v, char **out, LayError *err);
/* print_svg-style picture; for a TV layout (see make_layout_tv) each cell
 * shows the owning thread and value */
bool lay_render_svg(Arena *a, const LayValue *v, char **out, LayError *err);

/* One tile of a thread-value picture (layout_render_tv.c): tv maps
 * (thread, value) to the column-major index r + rows*c of a rows x cols
 * tile.  Transposed draws the tile with c down and r across (an MMA's B,
 * stored N x K, drawn K x N as CuTe draws it). */
typedef struct LayTvPanel {
    const char *title; /* the table's heading; an SVG comment */
    LayLayout tv;
    int64_t rows, cols;
    bool transposed;
    int64_t x, y;                /* SVG: the top-left cell, in cells */
    bool label_rows, label_cols; /* SVG: row numbers left of the tile, column numbers above it */
} LayTvPanel;
/* print_layout-style tables, one per panel, each cell "T<thread>V<value>" */
bool lay_render_tv_table(Arena *a, const LayTvPanel *p, int n, char **out, LayError *err);
/* one SVG of width x height cells, as CuTe's print_svg of a TiledMMA */
bool lay_render_tv_svg(Arena *a, const LayTvPanel *p, int n, int64_t width, int64_t height, char **out, LayError *err);

#endif
