/*
 * tune_json.h - cutec-tune's JSON strings on stdout, shared by the
 * command's files that write --json output (names from a shapes file or a
 * pack may hold quotes, backslashes and control characters).
 */
#ifndef CUTEC_TUNE_JSON_H
#define CUTEC_TUNE_JSON_H

/* Prints s as a JSON string, quotes included. */
void tune_json_string(const char *s);

#endif /* CUTEC_TUNE_JSON_H */
