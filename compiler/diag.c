/* diag.c: formatting of diagnostics with source excerpt and caret. */
#include "diag.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void diag_init(Diag *d, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->out = out;
}

static const char *level_name(DiagLevel l)
{
    return l == DIAG_ERROR ? "error" : l == DIAG_WARNING ? "warning" : "note";
}

/* -w and -Werror act on a diagnostic's level before it is counted; a note
 * belongs to the diagnostic before it and shares its fate.  False when the
 * diagnostic is dropped. */
static bool diag_level(Diag *d, DiagLevel *lvl, bool *promoted)
{
    *promoted = false;
    if (*lvl == DIAG_NOTE) return !d->drop_notes;
    d->drop_notes = false;
    if (*lvl == DIAG_WARNING && d->no_warnings) {
        d->drop_notes = true;
        return false;
    }
    if (*lvl == DIAG_WARNING && d->werror) {
        *lvl = DIAG_ERROR;
        *promoted = true;
    }
    return true;
}

static void print_json(Diag *d, DiagLevel lvl, const SrcLoc *loc, const char *text)
{
    fputs("{\"file\": ", d->out);
    json_string(d->out, loc ? loc->file->name : NULL);
    if (loc)
        fprintf(d->out, ", \"line\": %d, \"column\": %d", loc->first_line, loc->first_column);
    else
        fputs(", \"line\": null, \"column\": null", d->out);
    fprintf(d->out, ", \"severity\": \"%s\", \"message\": ", level_name(lvl));
    json_string(d->out, text);
    fputs("}\n", d->out);
}

/* false when the error limit has been reached and output is suppressed */
static bool diag_count(Diag *d, DiagLevel lvl)
{
    if (d->stopped) return false;
    if (lvl == DIAG_ERROR) {
        if (d->errors == DIAG_MAX_ERRORS) {
            char text[64];
            snprintf(text, sizeof text, "too many errors (%d), stopping", d->errors);
            if (d->json)
                print_json(d, DIAG_NOTE, NULL, text);
            else
                fprintf(d->out, "cutec: %s\n", text);
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
    size_t last =
        loc.last_line == loc.first_line && loc.last_column >= loc.first_column ? (size_t)loc.last_column - 1 : first;
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

/* One diagnostic, after the checks: JSON, or the text form with the
 * excerpt and caret where there is a location. */
static void diag_emit(Diag *d, DiagLevel lvl, const SrcLoc *loc, const char *text, bool promoted)
{
    if (d->json) {
        print_json(d, lvl, loc, text);
        return;
    }
    if (loc)
        fprintf(d->out, "%s:%d:%d: %s: ", loc->file->name, loc->first_line, loc->first_column, level_name(lvl));
    else
        fprintf(d->out, "cutec: %s: ", level_name(lvl));
    fprintf(d->out, "%s%s\n", text, promoted ? " [-Werror]" : "");
    if (loc && loc->first_line >= 1) print_excerpt(d->out, *loc);
}

/* The formatted message, malloc'ed (a ptxas log can be long); NULL when
 * out of memory. */
static char *format_text(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text) vsnprintf(text, (size_t)n + 1, fmt, ap);
    return text;
}

static void diag_report(Diag *d, DiagLevel lvl, const SrcLoc *loc, const char *text)
{
    if (!text) text = "(out of memory formatting a diagnostic)";
    if (loc && diag_repeat(d, lvl, *loc, text)) return;
    bool promoted;
    if (!diag_level(d, &lvl, &promoted) || !diag_count(d, lvl)) return;
    diag_emit(d, lvl, loc, text, promoted);
}

void diag_at(Diag *d, DiagLevel lvl, SrcLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = format_text(fmt, ap);
    va_end(ap);
    diag_report(d, lvl, loc.file ? &loc : NULL, text);
    free(text);
}

void diag_plain(Diag *d, DiagLevel lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = format_text(fmt, ap);
    va_end(ap);
    diag_report(d, lvl, NULL, text);
    free(text);
}
