/* json.c: JSON string escaping (json.h). */
#include "json.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (c > 0xF4 || len == 0 || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (len == 3 && c == 0xE0 && s[1] < 0xA0) return 0;  /* overlong */
    if (len == 3 && c == 0xED && s[1] >= 0xA0) return 0; /* surrogate */
    if (len == 4 && c == 0xF0 && s[1] < 0x90) return 0;  /* overlong */
    if (len == 4 && c == 0xF4 && s[1] >= 0x90) return 0; /* above U+10FFFF */
    return len;
}

void json_string_n(FILE *f, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else if (c == '\t') {
            fputs("\\t", f);
        } else if (c == '\r') {
            fputs("\\r", f);
        } else if (c < 0x20 || c == 0x7F) {
            fprintf(f, "\\u%04x", c);
        } else if (c >= 0x80) {
            size_t n = utf8_len(p + i, len - i);
            if (n == 0) {
                fputs("\\ufffd", f);
                i++;
                continue;
            }
            fwrite(p + i, 1, n, f);
            i += n;
            continue;
        } else {
            fputc((int)c, f);
        }
        i++;
    }
    fputc('"', f);
}

void json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    json_string_n(f, s, strlen(s));
}
