/*
 * tune_same_kernel.h - `cutec-tune bench --epilogue`'s "the same kernel
 * without the epilogue": the name of a pack kernel's tune point with its
 * epilogue's switches off, which the plain pack holds where the epilogue
 * pack's template is the plain one's (every stdlib epilogue pack).  An
 * epilogue's cost over the same GEMM without it is then one kernel against
 * its twin, timed in the same rounds, free of the tunings' different picks.
 */
#ifndef CUTEC_TUNE_SAME_KERNEL_H
#define CUTEC_TUNE_SAME_KERNEL_H

#include <stddef.h>

/* name's words KEY=VALUE with the epilogue's switches (ACT, BIAS, SRC,
 * ALPHA, AUX, CLAMP, GLU, SCALE) set to identity and 0, the rest kept, in
 * out (len bytes).  Returns 0, or -1 where name has no ACT= word (not a
 * pack kernel with an epilogue parameter: a cuBLASLt algorithm, a user's
 * kernel) or out is too short. */
int tune_plain_twin(const char *name, char *out, size_t len);

#endif /* CUTEC_TUNE_SAME_KERNEL_H */
