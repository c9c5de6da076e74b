/* math_ir.h: the exact f32 math functions (exp, exp2, log, tanh, erf,
 * sigmoid) as LLVM IR.  NVPTX has no libm: LLVM 19 fails on llvm.exp.f32,
 * llvm.log.f32 and the rest ("no libcall available"), so each function is
 * range reduction and a polynomial here, built from fma, rint and integer
 * operations only.  These depend on nothing but an LLVM builder, so that
 * tests/math/ can build the same IR for the host, run it and measure its
 * error against libm (docs/language.md, "Math builtins", has the results). */
#ifndef CUTEC_MATH_IR_H
#define CUTEC_MATH_IR_H

#include <llvm-c/Core.h>

typedef struct MathIR {
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTypeRef f32, i32;
} MathIR;

typedef LLVMValueRef (*MathEmit)(MathIR *m, LLVMValueRef x);

/* The functions, the rows' order (the builtin table names a function by
 * its id). */
typedef enum MathId { MATH_EXP, MATH_EXP2, MATH_LOG, MATH_TANH, MATH_ERF, MATH_SIGMOID, MATH_COUNT } MathId;

/* One row per function: its name in the language and its emitter
 * (f32 in, f32 out). */
typedef struct MathFn {
    const char *name;
    MathEmit emit;
} MathFn;

void mathir_init(MathIR *m, LLVMModuleRef mod, LLVMBuilderRef b);
/* The row of name, or NULL. */
const MathFn *mathir_find(const char *name);
/* The row of id. */
const MathFn *mathir_get(MathId id);
/* Every row, for the tests: *n gets their count. */
const MathFn *mathir_all(int *n);

#endif
