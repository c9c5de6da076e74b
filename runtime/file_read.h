/*
 * file_read.h - reading a whole file into memory, for the runtime (modules,
 * packs, the quarantine list) and cutec-tune (packs, shapes files).  Only a
 * regular file of at most a caller's limit is read: a directory would fail
 * late with a misleading error, /dev/zero would fill the memory and a FIFO
 * would block in open or read forever.
 */
#ifndef CUTEC_FILE_READ_H
#define CUTEC_FILE_READ_H

#include <stddef.h>

/* The runtime's limit on a module, pack or cache file: 1 GiB, about a
 * hundred times the whole Hopper GEMM pack (229 points with their cubins:
 * 10 MB), yet small enough that reading one cannot exhaust a machine. */
#define CUTEC_FILE_MAX_BYTES ((size_t)1 << 30)

typedef enum cutec_file_error {
    CUTEC_FILE_OK,
    CUTEC_FILE_IO,        /* cannot open or read; not a regular file; over the limit */
    CUTEC_FILE_NO_MEMORY, /* the buffer cannot be allocated */
} cutec_file_error;

/* Reads the regular file `path` of at most `max` bytes (max < SIZE_MAX / 2)
 * into a malloc'ed buffer with a NUL byte after its *size bytes.  On failure
 * *data is NULL and `why` says what and why, naming the path: "cannot open
 * 'x': No such file or directory", "'x' is a directory, not a regular file",
 * "'x' is larger than 1 MiB". */
cutec_file_error cutec_file_read(const char *path, size_t max, unsigned char **data, size_t *size, char *why,
                                 size_t why_len);

#endif /* CUTEC_FILE_READ_H */
