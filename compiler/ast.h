/* ast.h: the syntax tree.  One node struct tagged by one enum (chibicc
 * style); the fields a kind uses are listed beside it.  Nodes live in the
 * compilation's arena. */
#ifndef CUTEC_AST_H
#define CUTEC_AST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "arena.h"
#include "source.h"

typedef struct Node Node;

typedef struct NodeList {
    Node **items;
    int n, cap;
} NodeList;

typedef enum NodeKind {
    /* expressions */
    N_INT,        /* ival */
    N_FLOAT,      /* fval */
    N_BOOL,       /* ival: 0 or 1 */
    N_STRING,     /* name: the unquoted text */
    N_NAME,       /* name */
    N_UNDERSCORE, /* `_`: a whole mode in a slice */
    N_TUPLE,      /* list: elements; `(a,)` is a rank-1 tuple */
    N_LAYOUT,     /* a: shape, b: stride (`S:D`) */
    N_SWIZZLE,    /* list: B, M, S (`Sw<B,M,S>`) */
    N_BINARY,     /* op, a, b */
    N_UNARY,      /* op, a */
    N_CALL,       /* a: callee, list: args, list2: template args (`f<1>(x)`) */
    N_MEMBER,     /* a: object, name: member (`threadIdx.x`) */
    /* types */
    N_TYPE_NAME,   /* name: i32, f32, bf16, ... or a type template parameter */
    N_TYPE_TENSOR, /* a: element type, name: memory space, b: layout */
    N_TYPE_TMA,    /* name: the tensor parameter, a: box, b: swizzle bytes */
    /* statements */
    N_BLOCK,     /* list: statements */
    N_LET,       /* name, a: type or NULL, b: initializer; ival: 1 for `var` */
    N_ASSIGN,    /* op: '=' or the binary op of `op=`, a: target, b: value */
    N_FOR,       /* name: variable, a: lo, b: hi, c: step or NULL, d: body; ival: 1 for `unroll for` */
    N_IF,        /* a: condition, b: then block, c: else (block or if) or NULL */
    N_WHILE,     /* a: condition, d: body */
    N_SHARED,    /* name, a: element type, b: layout, c: align or NULL */
    N_LOCAL,     /* name, a: element type, b: layout (register fragment) */
    N_RETURN,    /* a: value or NULL */
    N_EXPR_STMT, /* a */
    /* top-level items */
    N_IMPORT,       /* name: dotted path or file name; ival: 1 if given as a string */
    N_CONST,        /* name, b: value (top-level `let`) */
    N_KERNEL,       /* name, list: params, list2: template params, list3: threads() dims,
                     b: grid() as N_TUPLE or NULL, a: cluster() as N_TUPLE or NULL,
                     e: serves clause (N_SERVES) or NULL, c: tune or NULL, d: body */
    N_FUNC,         /* name, list: params, list2: template params, a: return type or NULL, d: body */
    N_PARAM,        /* name, a: type (may be NULL for fn params) */
    N_TPARAM,       /* name, a: kind (N_TYPE_NAME "int" or "type"), b: default or NULL */
    N_PROGRAM,      /* list: items */
    N_TUNE,         /* list: N_TUNE_VAR and N_TUNE_REQUIRE items (a kernel's `tune { }`) */
    N_TUNE_VAR,     /* name; list: values, or a..b (b excluded, as in for) as a: lo, b: hi */
    N_TUNE_REQUIRE, /* a: a compile-time condition every point must meet (in `tune`), or a
                       condition on the arguments the launcher checks (in `serves`) */
    N_SERVES,       /* name: problem class; list: N_ROLE and N_TUNE_REQUIRE items */
    N_ROLE,         /* name: role, a: N_NAME of the parameter, b: align bytes or NULL */
} NodeKind;

/* Binary and unary operators reuse these codes. */
enum {
    OP_ADD = '+',
    OP_SUB = '-',
    OP_MUL = '*',
    OP_DIV = '/',
    OP_MOD = '%',
    OP_LT = '<',
    OP_GT = '>',
    OP_BITAND = '&',
    OP_BITOR = '|',
    OP_BITXOR = '^',
    OP_NOT = '!',
    OP_NEG = 'n',
    OP_BITNOT = '~',
    OP_LE = 256,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_AND,
    OP_OR,
    OP_SHL,
    OP_SHR,
};

struct Node {
    NodeKind kind;
    SrcLoc loc;
    int op;
    int64_t ival;
    double fval;
    const char *name;
    SrcLoc name_loc; /* where `name` was written, for precise carets */
    int depth;       /* expression nesting, bounded by the parser */
    Node *a, *b, *c, *d, *e;
    NodeList list, list2, list3;
};

Node *ast_new(Arena *a, NodeKind k, SrcLoc loc);
void ast_list_push(Arena *a, NodeList *l, Node *n);
const char *ast_op_name(int op);
const char *ast_kind_name(NodeKind k);
/* --emit=ast: an S-expression-like dump, one node per line, indented. */
void ast_dump(FILE *out, const Node *n);

#endif
