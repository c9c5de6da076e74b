/* diag.c: formatting of diagnostics with source excerpt and caret. */
#include "diag.h"

#include <stdarg.h>
#include <string.h>

void diag_init(Diag *d, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->out = out;
}

static const char *level_name(DiagLevel l)
{
    return l == DIAG_ERROR ? "error" : l == DIAG_WARNING ? "warning" : "note";
}

/* false when the error limit has been reached and output is suppressed */
static bool diag_count(Diag *d, DiagLevel lvl)
{
    if (d->stopped) return false;
    if (lvl == DIAG_ERROR) {
        if (d->errors == DIAG_MAX_ERRORS) {
            fprintf(d->out, "cutec: too many errors (%d), stopping\n", d->errors);
            d->stopped = true;
            return false;
        }
        d->errors++;
    } else if (lvl == DIAG_WARNING) {
        d->warnings++;
    }
    return true;
}

/* Print one source line, replacing control bytes so that binary junk cannot
 * garble the terminal, and a caret line that follows tabs. */
static void print_excerpt(FILE *out, SrcLoc loc)
{
    size_t len;
    const char *line = source_line(loc.file, loc.first_line, &len);
    if (len > 400) len = 400; /* a 10 MB one-line file must not flood stderr */
    fputs("  ", out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        fputc(c == '\t' ? '\t' : (c < 32 || c == 127) ? '?' : c, out);
    }
    fputs("\n  ", out);
    int first = loc.first_column < 1 ? 1 : loc.first_column;
    int last = loc.last_line == loc.first_line ? loc.last_column : (int)len;
    if (last < first) last = first;
    for (int i = 1; i < first && (size_t)(i - 1) < len; i++)
        fputc(line[i - 1] == '\t' ? '\t' : ' ', out);
    fputc('^', out);
    for (int i = first + 1; i <= last && i <= (int)len; i++) fputc('~', out);
    fputc('\n', out);
}

void diag_at(Diag *d, DiagLevel lvl, SrcLoc loc, const char *fmt, ...)
{
    if (!diag_count(d, lvl)) return;
    if (loc.file)
        fprintf(d->out, "%s:%d:%d: %s: ", loc.file->name, loc.first_line, loc.first_column,
                level_name(lvl));
    else
        fprintf(d->out, "cutec: %s: ", level_name(lvl));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(d->out, fmt, ap);
    va_end(ap);
    fputc('\n', d->out);
    if (loc.file && loc.first_line >= 1) print_excerpt(d->out, loc);
}

void diag_plain(Diag *d, DiagLevel lvl, const char *fmt, ...)
{
    if (!diag_count(d, lvl)) return;
    fprintf(d->out, "cutec: %s: ", level_name(lvl));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(d->out, fmt, ap);
    va_end(ap);
    fputc('\n', d->out);
}
