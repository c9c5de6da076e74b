/*
 * manifest.h - the "// cutec." lines of one kernel (docs/compiler.md, "PTX
 * metadata") parsed into a struct, and the evaluator of the grid rule
 * (`cutec.grid ceil_div(N,128) ceil_div(M,128) 1`).  Unknown "// cutec."
 * keys are ignored so that newer compilers can add lines.
 */
#ifndef CUTEC_RUNTIME_MANIFEST_H
#define CUTEC_RUNTIME_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#define CUTEC_MF_NAME 64
#define CUTEC_MF_MAX_PARAMS 32
#define CUTEC_MF_MAX_ARGS 32
#define CUTEC_MF_EXPR 160

typedef enum cutec_mf_kind {
  CUTEC_MF_SCALAR = 1, /* size and integer-ness from the type name */
  CUTEC_MF_TENSOR = 2, /* a 64-bit device pointer */
  CUTEC_MF_TMA = 3     /* a 128-byte TMA descriptor built from tensor `type` (a cutec.tma line) */
} cutec_mf_kind;

typedef struct cutec_mf_arg {
  char name[CUTEC_MF_NAME];
  cutec_mf_kind kind;
  char type[16];    /* scalar type, or the tensor's element type */
  int size;         /* bytes of the value passed (8 for a tensor) */
  int is_int;       /* scalar integer (usable in the grid rule) */
  int is_signed;
} cutec_mf_arg;

typedef struct cutec_manifest {
  char kernel[128];
  unsigned threads[3];
  int has_threads;
  unsigned smem_static, smem_dynamic;
  int nparams;
  char pnames[CUTEC_MF_MAX_PARAMS][CUTEC_MF_NAME];
  char pvalues[CUTEC_MF_MAX_PARAMS][CUTEC_MF_NAME];
  int nargs;        /* 0 when the compiler wrote no cutec.arg lines */
  cutec_mf_arg args[CUTEC_MF_MAX_ARGS];
  int has_grid;
  char grid[3][CUTEC_MF_EXPR];
  unsigned cluster[3];  /* 1 1 1 without a cutec.cluster line */
  int ntma;             /* cutec.tma ARG TENSOR ELEM dims D0 D1 stride S box B0 B1 swizzle SW [unused] */
  struct cutec_mf_tma {
    int arg;
    char tensor[CUTEC_MF_NAME], elem[16];
    unsigned box0, box1;
    int swizzle;
    int unused;         /* the kernel never reads the map: any 128 bytes will do */
  } tma[4];
} cutec_manifest;

/* Parses the first kernel block of text.  0 on success, -1 with a reason. */
int cutec_manifest_parse(const char *text, size_t len, cutec_manifest *m, char *why,
                         size_t why_len);
/* Value of a template parameter or NULL. */
const char *cutec_manifest_param(const cutec_manifest *m, const char *name);
/* Integer template parameter: 0 and *v, or -1. */
int cutec_manifest_param_int(const cutec_manifest *m, const char *name, long long *v);
/* Index of the argument named name, or -1. */
int cutec_manifest_arg(const cutec_manifest *m, const char *name);

/* Name lookup for the grid rule: returns 0 and *v, or -1 for an unknown name. */
typedef int (*cutec_mf_lookup)(void *user, const char *name, size_t len, long long *v);
/* Evaluates one grid expression ( + - * / % parentheses, ceil_div, min, max,
 * resident, integers, names).  resident(x) asks the lookup for "@resident"
 * (the blocks the device holds at once, whole clusters) and caps x by it;
 * x stays where the lookup does not know.  0 and *v, or -1 with a reason. */
int cutec_grid_eval(const char *expr, cutec_mf_lookup lookup, void *user, long long *v,
                    char *why, size_t why_len);
/* Evaluates the grid of a manifest with the scalar arguments read from args
 * (one pointer per parameter) and the integer template parameters. */
int cutec_manifest_grid(const cutec_manifest *m, void **args, unsigned grid[3], char *why,
                        size_t why_len);

#endif /* CUTEC_RUNTIME_MANIFEST_H */
