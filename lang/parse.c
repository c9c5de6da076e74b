/* parse.c: runs the reentrant scanner and pure parser over one source. */
#include "parse_ctx.h"
#include "parser.h"
#include "lexer.h"

bool parse_source(ParseCtx *ctx)
{
    int before = ctx->diag->errors;
    yyscan_t scanner;
    if (yylex_init_extra(ctx, &scanner) != 0) {
        diag_plain(ctx->diag, DIAG_ERROR, "cannot initialise the scanner");
        return false;
    }
    ctx->line = 1;
    ctx->col = 1;
    YY_BUFFER_STATE buf = yy_scan_bytes(ctx->file->text, (int)ctx->file->len, scanner);
    int rc = yyparse(scanner, ctx);
    yy_delete_buffer(buf, scanner);
    yylex_destroy(scanner);
    return rc == 0 && ctx->diag->errors == before && ctx->result != NULL;
}
