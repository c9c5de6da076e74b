/* parser.y: pure bison parser for .cute sources, with locations.
 *
 * The grammar has two expression levels so that `>` can close template and
 * tensor-type argument lists: `aexpr` (arithmetic, bitwise, unary, postfix)
 * and `expr` (adds comparisons, logic and the layout operator `S:D`).
 * Errors recover at `;` and `}` so one run reports several mistakes. */
%define api.pure full
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {void *scanner}
%parse-param {ParseCtx *ctx}

%code requires {
#include "parse_ctx.h"
}

%code provides {
const char *parser_token_name(int tok);
}

%code {
#include <string.h>
int yylex(YYSTYPE *lval, YYLTYPE *lloc, void *scanner);
static void yyerror(YYLTYPE *loc, void *scanner, ParseCtx *ctx, const char *msg);

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                     \
    do {                                                                \
        if (N) {                                                        \
            (Cur).file = YYRHSLOC(Rhs, 1).file;                         \
            (Cur).first_line = YYRHSLOC(Rhs, 1).first_line;             \
            (Cur).first_column = YYRHSLOC(Rhs, 1).first_column;         \
            (Cur).last_line = YYRHSLOC(Rhs, N).last_line;               \
            (Cur).last_column = YYRHSLOC(Rhs, N).last_column;           \
        } else {                                                        \
            (Cur).file = YYRHSLOC(Rhs, 0).file;                         \
            (Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line; \
            (Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
        }                                                               \
    } while (0)

#define A (ctx->arena)
static Node *mk(ParseCtx *ctx, NodeKind k, SrcLoc loc) { return ast_new(ctx->arena, k, loc); }
/* Operator chains such as 1+1+...+1 nest without brackets; bound their
 * depth so that later recursive passes cannot exhaust the stack. */
static Node *deepen(ParseCtx *ctx, Node *n, const Node *a, const Node *b)
{
    int d = a ? a->depth : 0;
    if (b && b->depth > d) d = b->depth;
    n->depth = d + 1;
    if (n->depth > PARSE_MAX_EXPR_DEPTH) {
        if (!ctx->expr_too_deep)
            diag_error(ctx->diag, n->loc, "expression nested deeper than %d levels", PARSE_MAX_EXPR_DEPTH);
        ctx->expr_too_deep = true;
        Node *z = mk(ctx, N_INT, n->loc); /* a leaf in its place keeps the tree shallow */
        return z;
    }
    return n;
}
static Node *mk_bin(ParseCtx *ctx, int op, Node *a, Node *b, SrcLoc loc)
{
    Node *n = mk(ctx, N_BINARY, loc);
    n->op = op; n->a = a; n->b = b;
    return deepen(ctx, n, a, b);
}
static Node *list_node(ParseCtx *ctx, NodeKind k, SrcLoc loc, NodeList l)
{
    Node *n = mk(ctx, k, loc);
    n->list = l;
    return n;
}
}

%union {
    int64_t ival;
    double fval;
    const char *str;
    Node *node;
    NodeList list;
}

%token END 0 "end of file"
%token START_PROGRAM START_EXPR
%token IMPORT "'import'" KERNEL "'kernel'" FN "'fn'" LET "'let'" VAR "'var'"
%token FOR "'for'" WHILE "'while'" UNROLL "'unroll'" IN "'in'" STEP "'step'" IF "'if'" ELSE "'else'"
%token RETURN "'return'" SHARED "'shared'" LOCAL "'local'" ALIGN "'align'"
%token THREADS "'threads'" GRID "'grid'" TMA "'tma'" CLUSTER "'cluster'" TENSOR "'tensor'" UNDERSCORE "'_'" TUNE "'tune'" REQUIRE "'require'" SERVES "'serves'"
%token <ival> BOOLLIT "boolean" INTLIT "integer" OPASSIGN "compound assignment"
%token <fval> FLOATLIT "number"
%token <str> IDENT "identifier" STRINGLIT "string" TNAME_LT "template name"
%token SW_OPEN "'Sw<'" DOTDOT "'..'" ARROW "'->'"
%token LE "'<='" GE "'>='" EQ "'=='" NE "'!='" ANDAND "'&&'" OROR "'||'" SHL "'<<'" SHR "'>>'"

%type <node> opt_grid opt_cluster opt_serves serve_item item kernel func param tparam type block stmt else_opt opt_step opt_type opt_tune tune_item
%type <node> expr aexpr unary postfix primary layout_arg opt_default opt_ret opt_align dotted
%type <list> tune_items serve_items items params params_ne tparams opt_tparams stmts args args_ne aexprs opt_threads tuple_elems

%left OROR
%left ANDAND
%nonassoc EQ NE
%nonassoc '<' '>' LE GE
%left '|'
%left '^'
%left '&'
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'

%%

start
    : START_PROGRAM items   { Node *p = list_node(ctx, N_PROGRAM, @$, $2); ctx->result = p; }
    | START_EXPR expr       { ctx->result = $2; }
    ;

items
    : %empty                { $$ = (NodeList){0}; }
    | items item            { $$ = $1; if ($2) ast_list_push(A, &$$, $2); }
    ;

/* item: import | top-level let | kernel | fn */
item
    : IMPORT dotted ';'     { $$ = $2; }
    | IMPORT STRINGLIT ';'  { $$ = mk(ctx, N_IMPORT, @2); $$->name = $2; $$->ival = 1; }
    | LET IDENT '=' expr ';' { $$ = mk(ctx, N_CONST, @$); $$->name = $2; $$->name_loc = @2; $$->b = $4; }
    | kernel
    | func
    | error ';'             { $$ = NULL; }
    | error '}'             { $$ = NULL; }
    ;

dotted
    : IDENT                 { $$ = mk(ctx, N_IMPORT, @1); $$->name = $1; }
    | dotted '.' IDENT      { $$ = $1; $$->name = arena_printf(A, "%s.%s", $1->name, $3); $$->loc.last_line = @3.last_line; $$->loc.last_column = @3.last_column; }
    ;

/* kernel NAME<tparams>(params) threads(x, y, z) { ... } */
kernel
    : KERNEL IDENT opt_tparams '(' params ')' opt_threads opt_grid opt_cluster opt_serves opt_tune block {
        $$ = mk(ctx, N_KERNEL, @$); $$->name = $2; $$->name_loc = @2;
        $$->list2 = $3; $$->list = $5; $$->list3 = $7; $$->b = $8; $$->a = $9; $$->e = $10; $$->c = $11;
        $$->d = $12;
    }
    ;

/* serves gemm { m = M; a = A align 16; require K % 8 == 0; }: the problem
 * class the kernel serves, the role of each parameter, and conditions the
 * launcher checks on the arguments (docs/contract.md) */
opt_serves
    : %empty                { $$ = NULL; }
    | SERVES IDENT '{' serve_items '}' {
        $$ = list_node(ctx, N_SERVES, @$, $4); $$->name = $2; $$->name_loc = @2;
    }
    ;

serve_items
    : %empty                { $$ = (NodeList){0}; }
    | serve_items serve_item { $$ = $1; if ($2) ast_list_push(A, &$$, $2); }
    ;

serve_item
    : IDENT '=' IDENT opt_align ';' {
        $$ = mk(ctx, N_ROLE, @$); $$->name = $1; $$->name_loc = @1;
        $$->a = mk(ctx, N_NAME, @3); $$->a->name = $3; $$->b = $4;
    }
    | REQUIRE expr ';'      { $$ = mk(ctx, N_TUNE_REQUIRE, @$); $$->a = $2; }
    | error ';'             { $$ = NULL; }
    ;

/* cluster(2, 1, 1): the thread-block cluster shape the kernel is launched with */
opt_cluster
    : %empty                { $$ = NULL; }
    | CLUSTER '(' aexprs ')' { $$ = list_node(ctx, N_TUPLE, @$, $3); }
    ;

/* grid(ceil_div(N, BN), ceil_div(M, BM)): the launch grid, for launchers */
opt_grid
    : %empty                { $$ = NULL; }
    | GRID '(' aexprs ')'   { $$ = list_node(ctx, N_TUPLE, @$, $3); }
    ;

/* tune { BM in [64, 128]; STAGES in 2..5; require BM * BK <= 8192; } */
opt_tune
    : %empty                { $$ = NULL; }
    | TUNE '{' tune_items '}' { $$ = list_node(ctx, N_TUNE, @$, $3); }
    ;

tune_items
    : %empty                { $$ = (NodeList){0}; }
    | tune_items tune_item  { $$ = $1; if ($2) ast_list_push(A, &$$, $2); }
    ;

tune_item
    : IDENT IN '[' aexprs ']' ';' {
        $$ = mk(ctx, N_TUNE_VAR, @$); $$->name = $1; $$->name_loc = @1; $$->list = $4;
    }
    | IDENT IN aexpr DOTDOT aexpr ';' {
        $$ = mk(ctx, N_TUNE_VAR, @$); $$->name = $1; $$->name_loc = @1; $$->a = $3; $$->b = $5;
    }
    | REQUIRE expr ';'      { $$ = mk(ctx, N_TUNE_REQUIRE, @$); $$->a = $2; }
    | error ';'             { $$ = NULL; }
    ;

func
    : FN IDENT opt_tparams '(' params ')' opt_ret block {
        $$ = mk(ctx, N_FUNC, @$); $$->name = $2; $$->name_loc = @2;
        $$->list2 = $3; $$->list = $5; $$->a = $7; $$->d = $8;
    }
    ;

opt_ret
    : %empty                { $$ = NULL; }
    | ARROW type            { $$ = $2; }
    ;

opt_threads
    : %empty                { $$ = (NodeList){0}; }
    | THREADS '(' aexprs ')' { $$ = $3; }
    ;

opt_tparams
    : %empty                { $$ = (NodeList){0}; }
    | '<' tparams '>'       { $$ = $2; }
    ;

tparams
    : tparam                { $$ = (NodeList){0}; ast_list_push(A, &$$, $1); }
    | tparams ',' tparam    { $$ = $1; ast_list_push(A, &$$, $3); }
    ;

/* NAME: int = 128   |   NAME: type = bf16   |   NAME: fn = relu */
tparam
    : IDENT ':' IDENT opt_default {
        $$ = mk(ctx, N_TPARAM, @$); $$->name = $1; $$->name_loc = @1;
        $$->a = mk(ctx, N_TYPE_NAME, @3); $$->a->name = $3; $$->b = $4;
    }
    | IDENT ':' FN opt_default {
        $$ = mk(ctx, N_TPARAM, @$); $$->name = $1; $$->name_loc = @1;
        $$->a = mk(ctx, N_TYPE_NAME, @3); $$->a->name = "fn"; $$->b = $4;
    }
    ;

opt_default
    : %empty                { $$ = NULL; }
    | '=' aexpr             { $$ = $2; }
    ;

params
    : %empty                { $$ = (NodeList){0}; }
    | params_ne
    ;

params_ne
    : param                 { $$ = (NodeList){0}; ast_list_push(A, &$$, $1); }
    | params_ne ',' param   { $$ = $1; ast_list_push(A, &$$, $3); }
    ;

param
    : IDENT ':' type        { $$ = mk(ctx, N_PARAM, @$); $$->name = $1; $$->name_loc = @1; $$->a = $3; }
    /* bias: tensor<T, gmem, (N):(1)> if BIAS == 1: a kernel parameter that
     * exists only where the compile-time condition holds */
    | IDENT ':' type IF expr { $$ = mk(ctx, N_PARAM, @$); $$->name = $1; $$->name_loc = @1; $$->a = $3; $$->b = $5; }
    | IDENT                 { $$ = mk(ctx, N_PARAM, @$); $$->name = $1; $$->name_loc = @1; }
    ;

/* i32 | f32 | T | tensor<T, gmem, (M,N):(N,1)> */
type
    : IDENT                 { $$ = mk(ctx, N_TYPE_NAME, @$); $$->name = $1; }
    | TENSOR '<' type ',' IDENT ',' layout_arg '>' {
        $$ = mk(ctx, N_TYPE_TENSOR, @$); $$->a = $3; $$->name = $5; $$->name_loc = @5; $$->b = $7;
    }
    /* tma<A, (BM, BK), 128>: a TMA descriptor of tensor parameter A, box
     * (BM, BK) in A's mode order, 128-byte swizzle; built by the launcher */
    | TMA '<' IDENT ',' aexpr ',' aexpr '>' {
        $$ = mk(ctx, N_TYPE_TMA, @$); $$->name = $3; $$->name_loc = @3; $$->a = $5; $$->b = $7;
    }
    ;

layout_arg
    : aexpr
    | aexpr ':' aexpr       { $$ = mk(ctx, N_LAYOUT, @$); $$->a = $1; $$->b = $3; }
    ;

block
    : '{' stmts '}'         { $$ = list_node(ctx, N_BLOCK, @$, $2); }
    | '{' stmts error '}'   { $$ = list_node(ctx, N_BLOCK, @$, $2); }
    ;

stmts
    : %empty                { $$ = (NodeList){0}; }
    | stmts stmt            { $$ = $1; if ($2) ast_list_push(A, &$$, $2); }
    ;

stmt
    : LET IDENT opt_type '=' expr ';' {
        $$ = mk(ctx, N_LET, @$); $$->name = $2; $$->name_loc = @2; $$->a = $3; $$->b = $5;
    }
    | VAR IDENT opt_type '=' expr ';' {
        $$ = mk(ctx, N_LET, @$); $$->name = $2; $$->name_loc = @2; $$->a = $3; $$->b = $5; $$->ival = 1;
    }
    | postfix '=' expr ';'  { $$ = mk(ctx, N_ASSIGN, @$); $$->op = '='; $$->a = $1; $$->b = $3; }
    | postfix OPASSIGN expr ';' { $$ = mk(ctx, N_ASSIGN, @$); $$->op = (int)$2; $$->a = $1; $$->b = $3; }
    | FOR IDENT IN expr DOTDOT expr opt_step block {
        $$ = mk(ctx, N_FOR, @$); $$->name = $2; $$->name_loc = @2; $$->a = $4; $$->b = $6; $$->c = $7; $$->d = $8;
    }
    | UNROLL FOR IDENT IN expr DOTDOT expr opt_step block {
        $$ = mk(ctx, N_FOR, @$); $$->name = $3; $$->name_loc = @3; $$->a = $5; $$->b = $7; $$->c = $8; $$->d = $9; $$->ival = 1;
    }
    | WHILE expr block      { $$ = mk(ctx, N_WHILE, @$); $$->a = $2; $$->d = $3; }
    | IF expr block else_opt { $$ = mk(ctx, N_IF, @$); $$->a = $2; $$->b = $3; $$->c = $4; }
    | SHARED IDENT ':' type '[' expr ']' opt_align ';' {
        $$ = mk(ctx, N_SHARED, @$); $$->name = $2; $$->name_loc = @2; $$->a = $4; $$->b = $6; $$->c = $8;
    }
    | LOCAL IDENT ':' type '[' expr ']' ';' {
        $$ = mk(ctx, N_LOCAL, @$); $$->name = $2; $$->name_loc = @2; $$->a = $4; $$->b = $6;
    }
    | RETURN ';'            { $$ = mk(ctx, N_RETURN, @$); }
    | RETURN expr ';'       { $$ = mk(ctx, N_RETURN, @$); $$->a = $2; }
    | expr ';'              { $$ = mk(ctx, N_EXPR_STMT, @$); $$->a = $1; }
    | block
    | error ';'             { $$ = NULL; }
    ;

opt_type
    : %empty                { $$ = NULL; }
    | ':' type              { $$ = $2; }
    ;

opt_step
    : %empty                { $$ = NULL; }
    | STEP aexpr            { $$ = $2; }
    ;

opt_align
    : %empty                { $$ = NULL; }
    | ALIGN aexpr           { $$ = $2; }
    ;

else_opt
    : %empty                { $$ = NULL; }
    | ELSE block            { $$ = $2; }
    | ELSE IF expr block else_opt { $$ = mk(ctx, N_IF, @2); $$->a = $3; $$->b = $4; $$->c = $5; }
    ;

expr
    : aexpr
    | aexpr ':' aexpr       { $$ = mk(ctx, N_LAYOUT, @$); $$->a = $1; $$->b = $3; $$ = deepen(ctx, $$, $1, $3); }
    | expr OROR expr        { $$ = mk_bin(ctx, OP_OR, $1, $3, @$); }
    | expr ANDAND expr      { $$ = mk_bin(ctx, OP_AND, $1, $3, @$); }
    | expr EQ expr          { $$ = mk_bin(ctx, OP_EQ, $1, $3, @$); }
    | expr NE expr          { $$ = mk_bin(ctx, OP_NE, $1, $3, @$); }
    | expr '<' expr         { $$ = mk_bin(ctx, '<', $1, $3, @$); }
    | expr '>' expr         { $$ = mk_bin(ctx, '>', $1, $3, @$); }
    | expr LE expr          { $$ = mk_bin(ctx, OP_LE, $1, $3, @$); }
    | expr GE expr          { $$ = mk_bin(ctx, OP_GE, $1, $3, @$); }
    ;

aexpr
    : unary
    | aexpr '+' aexpr       { $$ = mk_bin(ctx, '+', $1, $3, @$); }
    | aexpr '-' aexpr       { $$ = mk_bin(ctx, '-', $1, $3, @$); }
    | aexpr '*' aexpr       { $$ = mk_bin(ctx, '*', $1, $3, @$); }
    | aexpr '/' aexpr       { $$ = mk_bin(ctx, '/', $1, $3, @$); }
    | aexpr '%' aexpr       { $$ = mk_bin(ctx, '%', $1, $3, @$); }
    | aexpr '&' aexpr       { $$ = mk_bin(ctx, '&', $1, $3, @$); }
    | aexpr '|' aexpr       { $$ = mk_bin(ctx, '|', $1, $3, @$); }
    | aexpr '^' aexpr       { $$ = mk_bin(ctx, '^', $1, $3, @$); }
    | aexpr SHL aexpr       { $$ = mk_bin(ctx, OP_SHL, $1, $3, @$); }
    | aexpr SHR aexpr       { $$ = mk_bin(ctx, OP_SHR, $1, $3, @$); }
    ;

unary
    : postfix
    | '-' unary             { $$ = mk(ctx, N_UNARY, @$); $$->op = OP_NEG; $$->a = $2; $$ = deepen(ctx, $$, $2, NULL); }
    | '!' unary             { $$ = mk(ctx, N_UNARY, @$); $$->op = '!'; $$->a = $2; $$ = deepen(ctx, $$, $2, NULL); }
    | '~' unary             { $$ = mk(ctx, N_UNARY, @$); $$->op = '~'; $$->a = $2; $$ = deepen(ctx, $$, $2, NULL); }
    ;

postfix
    : primary
    | postfix '(' args ')'  { $$ = mk(ctx, N_CALL, @$); $$->a = $1; $$->list = $3; $$ = deepen(ctx, $$, $1, NULL); }
    | TNAME_LT aexprs '>' '(' args ')' {
        Node *callee = mk(ctx, N_NAME, @1); callee->name = $1;
        callee->loc.last_column--; /* the name without its `<` */
        $$ = mk(ctx, N_CALL, @$); $$->a = callee; $$->list2 = $2; $$->list = $5;
    }
    | postfix '.' IDENT     { $$ = mk(ctx, N_MEMBER, @$); $$->a = $1; $$->name = $3; $$->name_loc = @3; $$ = deepen(ctx, $$, $1, NULL); }
    ;

primary
    : INTLIT                { $$ = mk(ctx, N_INT, @$); $$->ival = $1; }
    | FLOATLIT              { $$ = mk(ctx, N_FLOAT, @$); $$->fval = $1; }
    | BOOLLIT               { $$ = mk(ctx, N_BOOL, @$); $$->ival = $1; }
    | IDENT                 { $$ = mk(ctx, N_NAME, @$); $$->name = $1; }
    | UNDERSCORE            { $$ = mk(ctx, N_UNDERSCORE, @$); }
    | SW_OPEN aexpr ',' aexpr ',' aexpr '>' {
        $$ = mk(ctx, N_SWIZZLE, @$);
        ast_list_push(A, &$$->list, $2); ast_list_push(A, &$$->list, $4); ast_list_push(A, &$$->list, $6);
    }
    | '(' expr ')'          { $$ = $2; }
    | '(' ')'               { $$ = mk(ctx, N_TUPLE, @$); }
    | '(' expr ',' ')'      { $$ = mk(ctx, N_TUPLE, @$); ast_list_push(A, &$$->list, $2); }
    | '(' expr ',' tuple_elems ')' {
        $$ = mk(ctx, N_TUPLE, @$); ast_list_push(A, &$$->list, $2);
        for (int i = 0; i < $4.n; i++) ast_list_push(A, &$$->list, $4.items[i]);
    }
    ;

tuple_elems
    : expr                  { $$ = (NodeList){0}; ast_list_push(A, &$$, $1); }
    | tuple_elems ',' expr  { $$ = $1; ast_list_push(A, &$$, $3); }
    ;

args
    : %empty                { $$ = (NodeList){0}; }
    | args_ne
    ;

args_ne
    : expr                  { $$ = (NodeList){0}; ast_list_push(A, &$$, $1); }
    | args_ne ',' expr      { $$ = $1; ast_list_push(A, &$$, $3); }
    ;

aexprs
    : aexpr                 { $$ = (NodeList){0}; ast_list_push(A, &$$, $1); }
    | aexprs ',' aexpr      { $$ = $1; ast_list_push(A, &$$, $3); }
    ;

%%

const char *parser_token_name(int tok)
{
    if (tok == START_PROGRAM || tok == START_EXPR) return "start";
    yysymbol_kind_t k = YYTRANSLATE(tok);
    const char *s = yysymbol_name(k);
    return s;
}

/* "expected ';', found '}'" rather than bison's generic wording.  A
 * missing ';' is reported just after the previous token, where it belongs,
 * not at the next line's first token. */
static int yyreport_syntax_error(const yypcontext_t *yyctx, void *scanner, ParseCtx *ctx)
{
    (void)scanner;
    if (ctx->too_deep) return 0;
    enum { MAXSHOW = 4 };
    yysymbol_kind_t exp[YYNTOKENS];
    int n = yypcontext_expected_tokens(yyctx, exp, YYNTOKENS);
    yysymbol_kind_t got = yypcontext_token(yyctx);
    const YYLTYPE *loc = yypcontext_location(yyctx);
    for (int i = 0; i < n; i++)
        if (strcmp(yysymbol_name(exp[i]), "';'") == 0 && ctx->prev_loc.file &&
            ctx->prev_loc.last_line < loc->first_line) {
            SrcLoc at = ctx->prev_loc;
            at.first_line = at.last_line;
            at.first_column = at.last_column = at.last_column + 1;
            diag_error(ctx->diag, at, "expected ';' at the end of the line");
            return 0;
        }
    char buf[512];
    size_t len = 0;
    if (n > 0 && n <= MAXSHOW) {
        len += (size_t)snprintf(buf + len, sizeof buf - len, "expected ");
        for (int i = 0; i < n && len < sizeof buf; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                                    i == 0 ? "" : i == n - 1 ? " or " : ", ", yysymbol_name(exp[i]));
        if (len < sizeof buf) snprintf(buf + len, sizeof buf - len, ", found %s", yysymbol_name(got));
    } else {
        snprintf(buf, sizeof buf, "unexpected %s", yysymbol_name(got));
    }
    diag_error(ctx->diag, *loc, "%s", buf);
    return 0;
}

static void yyerror(YYLTYPE *loc, void *scanner, ParseCtx *ctx, const char *msg)
{
    (void)scanner;
    /* bison's only other message: its stack is full */
    if (strcmp(msg, "memory exhausted") == 0) msg = "expression nested too deeply";
    if (!ctx->too_deep) diag_error(ctx->diag, *loc, "%s", msg);
}
