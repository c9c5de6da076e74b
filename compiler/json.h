/* json.h: JSON string output, shared by the diagnostics (--json) and the
 * CLI's machine-readable summaries.  One escaper, so that every JSON text
 * cutec writes is valid whatever bytes a file name or message holds. */
#ifndef CUTEC_JSON_H
#define CUTEC_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Writes s (NUL terminated; NULL writes `null`) as a JSON string with its
 * quotes: `"` `\` and control characters escaped, invalid UTF-8 bytes
 * replaced by U+FFFD (JSON text must be UTF-8). */
void json_string(FILE *f, const char *s);
void json_string_n(FILE *f, const char *s, size_t len);

#endif
