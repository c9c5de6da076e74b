/* pack.h: `cutec pack FILE.cute -o FILE.pack`: every tune point of every
 * kernel of a file compiled in parallel into one kernel pack (the format is
 * runtime/pack_format.h, read by the runtime without LLVM). */
#ifndef CUTEC_PACK_H
#define CUTEC_PACK_H

/* argv[1] is "pack"; returns the exit status (0 ok, 1 source or I/O error,
 * 2 usage, 3 internal error). */
int cmd_pack(int argc, char **argv);
/* `cutec tune|bench|overhead ...`: runs `cutec-tune` (the runtime-only tool)
 * with the same arguments: from cutec's own directory, then ../runtime (a
 * build tree), then PATH.  Returns only when it cannot be started (exit 2). */
int cmd_tune_exec(int argc, char **argv);

#endif
