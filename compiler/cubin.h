/* cubin.h: PTX to cubin through ptxas (the CUDA toolkit's assembler). */
#ifndef CUTEC_CUBIN_H
#define CUTEC_CUBIN_H

#include <stdbool.h>
#include <stddef.h>

/* Path of ptxas: $CUTEC_PTXAS, $CUDA_HOME/bin/ptxas, /usr/local/cuda/bin/ptxas,
 * or "ptxas" on PATH; NULL if none is found. */
const char *cubin_find_ptxas(void);
/* Assemble; on failure *log (malloc'ed) holds ptxas' messages; on
 * success its warnings and notes (serialized wgmma, spills), or NULL. */
bool cubin_from_ptx(const char *ptx, size_t len, const char *arch, char **out, size_t *out_len, char **log);

#endif
