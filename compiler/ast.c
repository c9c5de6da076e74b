/* ast.c: node construction and the --emit=ast dump. */
#include "ast.h"

#include <string.h>

Node *ast_new(Arena *a, NodeKind k, SrcLoc loc)
{
    Node *n = ARENA_NEW(a, Node);
    n->kind = k;
    n->loc = loc;
    n->name_loc = loc;
    return n;
}

void ast_list_push(Arena *a, NodeList *l, Node *n)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        Node **items = ARENA_ARRAY(a, Node *, cap);
        if (l->n) memcpy(items, l->items, sizeof(Node *) * (size_t)l->n);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = n;
}

const char *ast_op_name(int op)
{
    switch (op) {
    case OP_LE: return "<=";
    case OP_GE: return ">=";
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_AND: return "&&";
    case OP_OR: return "||";
    case OP_SHL: return "<<";
    case OP_SHR: return ">>";
    case OP_NEG: return "-";
    case '=': return "=";
    case '+': return "+";
    case '-': return "-";
    case '*': return "*";
    case '/': return "/";
    case '%': return "%";
    case '<': return "<";
    case '>': return ">";
    case '&': return "&";
    case '|': return "|";
    case '^': return "^";
    case '!': return "!";
    case '~': return "~";
    default: return "?";
    }
}

const char *ast_kind_name(NodeKind k)
{
    static const char *names[] = {
        [N_INT] = "int",
        [N_FLOAT] = "float",
        [N_BOOL] = "bool",
        [N_STRING] = "string",
        [N_NAME] = "name",
        [N_UNDERSCORE] = "underscore",
        [N_TUPLE] = "tuple",
        [N_LAYOUT] = "layout",
        [N_SWIZZLE] = "swizzle",
        [N_BINARY] = "binary",
        [N_UNARY] = "unary",
        [N_CALL] = "call",
        [N_MEMBER] = "member",
        [N_TYPE_NAME] = "type",
        [N_TYPE_TENSOR] = "tensor-type",
        [N_TYPE_TMA] = "tma-type",
        [N_BLOCK] = "block",
        [N_LET] = "let",
        [N_ASSIGN] = "assign",
        [N_FOR] = "for",
        [N_IF] = "if",
        [N_WHILE] = "while",
        [N_SHARED] = "shared",
        [N_LOCAL] = "local",
        [N_RETURN] = "return",
        [N_EXPR_STMT] = "expr-stmt",
        [N_IMPORT] = "import",
        [N_CONST] = "const",
        [N_KERNEL] = "kernel",
        [N_FUNC] = "fn",
        [N_PARAM] = "param",
        [N_TPARAM] = "tparam",
        [N_PROGRAM] = "program",
        [N_TUNE] = "tune",
        [N_TUNE_VAR] = "tune-var",
        [N_TUNE_REQUIRE] = "require",
        [N_SERVES] = "serves",
        [N_ROLE] = "role",
    };
    return (unsigned)k < sizeof names / sizeof names[0] && names[k] ? names[k] : "?";
}

/* Iterative over siblings, recursive over depth: the parser caps nesting
 * depth, so recursion here is bounded. */
static void dump(FILE *out, const Node *n, int depth, const char *role)
{
    fprintf(out, "%*s", depth * 2, "");
    if (role) fprintf(out, "%s: ", role);
    if (!n) {
        fputs("(null)\n", out);
        return;
    }
    fprintf(out, "%s", ast_kind_name(n->kind));
    switch (n->kind) {
    case N_INT: fprintf(out, " %lld", (long long)n->ival); break;
    case N_FLOAT: fprintf(out, " %.17g", n->fval); break;
    case N_BOOL: fputs(n->ival ? " true" : " false", out); break;
    case N_BINARY:
    case N_UNARY: fprintf(out, " '%s'", ast_op_name(n->op)); break;
    case N_ASSIGN: fprintf(out, " '%s%s'", n->op == '=' ? "" : ast_op_name(n->op), "="); break;
    case N_LET:
        if (n->ival) fputs(" var", out);
        break;
    case N_FOR:
        if (n->ival) fputs(" unroll", out);
        break;
    default: break;
    }
    if (n->name) fprintf(out, " \"%s\"", n->name);
    fprintf(out, " @%d:%d\n", n->loc.first_line, n->loc.first_column);
    const Node *kids[5] = {n->a, n->b, n->c, n->d, n->e};
    static const char *kid_names[5] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        if (kids[i]) dump(out, kids[i], depth + 1, kid_names[i]);
    const NodeList *lists[3] = {&n->list, &n->list2, &n->list3};
    static const char *list_names[3] = {"list", "list2", "list3"};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < lists[l]->n; i++) dump(out, lists[l]->items[i], depth + 1, list_names[l]);
}

void ast_dump(FILE *out, const Node *n) { dump(out, n, 0, NULL); }
