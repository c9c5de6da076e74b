/*
 * epilogue.h - the one table of activations a GEMM epilogue may apply
 * (the `act` of docs/contract.md, "What a GEMM kernel computes"): a row
 * per function of stdlib/std/epilogue.cute, with its float64 host
 * reference (the tuner's check, the tests, the benchmark) and the
 * cuBLASLt epilogue that computes the same (cublasLt.h's
 * cublasLtEpilogue_t values, copied as plain integers; 0: cuBLASLt has no
 * fused form).  Pure C, no CUDA.  Adding an activation is one row in
 * epilogue.c.
 */
#ifndef CUTEC_CONTRACT_EPILOGUE_H
#define CUTEC_CONTRACT_EPILOGUE_H

#include <stddef.h>

/* cublasLtEpilogue_t (cublasLt.h, CUDA 13.0) */
enum {
    CUTEC_LT_EPILOGUE_NONE = 0, /* no fused form */
    CUTEC_LT_EPILOGUE_DEFAULT = 1,
    CUTEC_LT_EPILOGUE_RELU = 2,
    CUTEC_LT_EPILOGUE_BIAS = 4,
    CUTEC_LT_EPILOGUE_RELU_BIAS = 6,
    CUTEC_LT_EPILOGUE_GELU = 32,
    CUTEC_LT_EPILOGUE_GELU_BIAS = 36,
    CUTEC_LT_EPILOGUE_GELU_AUX = 160,
    CUTEC_LT_EPILOGUE_GELU_AUX_BIAS = 164
};

/* The float64 value of an activation: x for a plain one; gate and up
 * for a gated (GLU) one, act(gate, up). */
typedef double (*cutec_act_fn)(double x, double up);

typedef struct cutec_act_info {
    const char *name; /* the .cute function's name */
    int gated;        /* 1: a GLU activation, D(m, j) = act(v(m, gate(j)), v(m, up(j))) */
    cutec_act_fn ref; /* float64 host reference */
    /* cuBLASLt's fused form: plain, with a bias per column of D, with the
     * pre-activation as an auxiliary output, with both (NONE: none) */
    int lt, lt_bias, lt_aux, lt_aux_bias;
} cutec_act_info;

/* The row named name (n bytes; "" is identity), or NULL. */
const cutec_act_info *cutec_act_find(const char *name, size_t n);
/* Row i of the table (0 .. count - 1), or NULL past its end. */
const cutec_act_info *cutec_act_at(int i);
int cutec_act_count(void);
/* The cuBLASLt epilogue of row a for the inputs present, or
 * CUTEC_LT_EPILOGUE_NONE. */
int cutec_act_lt_epilogue(const cutec_act_info *a, int bias, int aux);

/* The interleave of a gated GEMM (docs/contract.md): the GEMM's columns
 * holding the gate and the up of D's column j (blocks of 8 gates, then
 * their 8 ups). */
static inline long long cutec_act_gate_col(long long j) { return (j / 8) * 16 + j % 8; }
static inline long long cutec_act_up_col(long long j) { return (j / 8) * 16 + 8 + j % 8; }

#endif /* CUTEC_CONTRACT_EPILOGUE_H */
