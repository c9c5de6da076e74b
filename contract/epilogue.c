/*
 * epilogue.c - the activation table (epilogue.h).  The formulas are those
 * of stdlib/std/epilogue.cute (and the sigmoid builtin), in float64: the reference a candidate's
 * float32 epilogue is checked against.  cuBLASLt's GELU is the tanh form,
 * so only gelu_tanh maps to it.
 */
#include "epilogue.h"

#include <math.h>
#include <string.h>

static double act_identity(double x, double up)
{
    (void)up;
    return x;
}

static double act_relu(double x, double up)
{
    (void)up;
    return x > 0 ? x : 0;
}

static double act_relu6(double x, double up)
{
    (void)up;
    return x < 0 ? 0 : x > 6 ? 6 : x;
}

static double act_gelu_tanh(double x, double up)
{
    (void)up;
    const double k = 0.7978845608028654; /* sqrt(2 / pi) */
    return 0.5 * x * (1 + tanh(k * (x + 0.044715 * x * x * x)));
}

static double act_gelu_erf(double x, double up)
{
    (void)up;
    return 0.5 * x * (1 + erf(x * 0.7071067811865476));
}

static double act_sigmoid(double x, double up)
{
    (void)up;
    return 1 / (1 + exp(-x));
}

static double act_silu(double x, double up) { return x * act_sigmoid(x, up); }

static double act_swiglu(double gate, double up) { return act_silu(gate, 0) * up; }

static double act_geglu(double gate, double up) { return act_gelu_tanh(gate, 0) * up; }

#define NO CUTEC_LT_EPILOGUE_NONE
static const cutec_act_info acts[] = {
    /* name, gated, reference, cuBLASLt: plain, bias, aux, aux + bias */
    {"identity", 0, act_identity, CUTEC_LT_EPILOGUE_DEFAULT, CUTEC_LT_EPILOGUE_BIAS, NO, NO},
    {"relu", 0, act_relu, CUTEC_LT_EPILOGUE_RELU, CUTEC_LT_EPILOGUE_RELU_BIAS, NO, NO}, /* RELU_AUX is a bit mask */
    {"relu6", 0, act_relu6, NO, NO, NO, NO},
    {"gelu_tanh", 0, act_gelu_tanh, CUTEC_LT_EPILOGUE_GELU, CUTEC_LT_EPILOGUE_GELU_BIAS, CUTEC_LT_EPILOGUE_GELU_AUX,
     CUTEC_LT_EPILOGUE_GELU_AUX_BIAS},
    {"gelu_erf", 0, act_gelu_erf, NO, NO, NO, NO},
    {"silu", 0, act_silu, NO, NO, NO, NO},
    {"sigmoid", 0, act_sigmoid, NO, NO, NO, NO},
    {"swiglu", 1, act_swiglu, NO, NO, NO, NO},
    {"geglu", 1, act_geglu, NO, NO, NO, NO},
};
#undef NO

int cutec_act_count(void) { return (int)(sizeof acts / sizeof acts[0]); }

const cutec_act_info *cutec_act_at(int i) { return i >= 0 && i < cutec_act_count() ? &acts[i] : NULL; }

const cutec_act_info *cutec_act_find(const char *name, size_t n)
{
    if (n == 0) return &acts[0];
    for (int i = 0; i < cutec_act_count(); i++)
        if (strlen(acts[i].name) == n && memcmp(acts[i].name, name, n) == 0) return &acts[i];
    return NULL;
}

int cutec_act_lt_epilogue(const cutec_act_info *a, int bias, int aux)
{
    if (a == NULL) return CUTEC_LT_EPILOGUE_NONE;
    return aux ? (bias ? a->lt_aux_bias : a->lt_aux) : (bias ? a->lt_bias : a->lt);
}
