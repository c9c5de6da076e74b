/* diag.c: formatting of diagnostics with source excerpt and caret. */
#include "diag.h"

#include <stdarg.h>
#include <stdint.h>
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

/* Print one source line and a caret line under the range.  Bytes that
 * are not printable ASCII print as '?' so that binary junk cannot garble
 * the terminal and the caret stays aligned; long lines show a window
 * around the range. */
static void print_excerpt(FILE *out, SrcLoc loc)
{
    enum { WIDTH = 160, LEAD = 60 };
    size_t len;
    const char *line = source_line(loc.file, loc.first_line, &len);
    size_t first = loc.first_column < 1 ? 0 : (size_t)loc.first_column - 1;
    size_t last = loc.last_line == loc.first_line && loc.last_column >= loc.first_column
                      ? (size_t)loc.last_column - 1 : first;
    size_t start = first > LEAD + 20 ? first - LEAD : 0;
    size_t end = len < start + WIDTH ? len : start + WIDTH;
    const char *pre = start ? "..." : "";
    fprintf(out, "  %s", pre);
    for (size_t i = start; i < end; i++) {
        unsigned char c = (unsigned char)line[i];
        fputc(c == '\t' ? '\t' : (c < 32 || c >= 127) ? '?' : c, out);
    }
    fprintf(out, "%s\n  %s", end < len ? "..." : "", pre);
    for (size_t i = start; i < first && i < end; i++) fputc(line[i] == '\t' ? '\t' : ' ', out);
    fputc('^', out);
    for (size_t i = first + 1; i <= last && i < end; i++) fputc('~', out);
    fputc('\n', out);
}

/* true if the same diagnostic was just reported (FNV-1a of level, location
 * and text) */
static bool diag_repeat(Diag *d, DiagLevel lvl, SrcLoc loc, const char *text)
{
    unsigned long h = 1469598103934665603ul;
    const unsigned char *p = (const unsigned char *)text;
    for (; *p; p++) h = (h ^ *p) * 1099511628211ul;
    h ^= ((unsigned long)lvl << 56) ^ ((unsigned long)loc.first_line << 20) ^ (unsigned long)loc.first_column ^
         (unsigned long)(uintptr_t)loc.file;
    for (int i = 0; i < d->nrecent && i < 8; i++)
        if (d->recent[i] == h) return true;
    d->recent[d->nrecent++ % 8] = h;
    return false;
}

void diag_at(Diag *d, DiagLevel lvl, SrcLoc loc, const char *fmt, ...)
{
    char text[1024];
    va_list ap0;
    va_start(ap0, fmt);
    vsnprintf(text, sizeof text, fmt, ap0);
    va_end(ap0);
    if (loc.file && diag_repeat(d, lvl, loc, text)) return;
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
