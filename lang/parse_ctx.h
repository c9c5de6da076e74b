/* parse_ctx.h: state shared by the reentrant scanner and the pure parser
 * (no globals).  One ParseCtx per parsed source or expression string. */
#ifndef CUTEC_PARSE_CTX_H
#define CUTEC_PARSE_CTX_H

#include <stdbool.h>
#include <stdio.h>
#include "../compiler/arena.h"
#include "../compiler/ast.h"
#include "../compiler/diag.h"
#include "../compiler/source.h"

#define YYLTYPE             SrcLoc
#define YYLTYPE_IS_DECLARED 1
#define YYLTYPE_IS_TRIVIAL  1

typedef enum ParseMode { PARSE_PROGRAM, PARSE_EXPR } ParseMode;

enum { PARSE_MAX_NESTING = 256, PARSE_MAX_EXPR_DEPTH = 512 };

typedef struct ParseCtx {
    Arena *arena;
    Diag *diag;
    const SourceFile *file;
    ParseMode mode;
    bool start_sent;          /* the scanner has returned the mode's start token */
    int line, col;            /* scanner position (1-based) of the next byte */
    int nesting;              /* open ( [ { */
    bool too_deep;            /* reported the nesting limit; scanning stopped */
    bool expr_too_deep;       /* reported the expression depth limit once */
    SrcLoc comment_start;     /* for "unterminated comment" */
    SrcLoc prev_loc, cur_loc; /* the last two tokens, for "expected ';'" */
    bool in_junk;             /* inside a run of invalid bytes (one error per run) */
    Node *result;             /* N_PROGRAM or the expression */
    FILE *token_dump;         /* --emit=tokens: the scanner prints each token here */
} ParseCtx;

/* Parse ctx->file according to ctx->mode; the tree is in ctx->result.
 * Returns false if any error was reported (diagnostics already printed). */
bool parse_source(ParseCtx *ctx);

#endif
