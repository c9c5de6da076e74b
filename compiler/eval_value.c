/* eval_value.c: values, scalar conversions and binary operators.
 * Static operands fold here (with overflow checks); runtime operands
 * become LLVM instructions. */
#include <math.h>
#include <string.h>

#include "codegen.h"
#include "eval.h"

Value val_error(void) { return (Value){.kind = V_ERROR}; }
Value val_int(int64_t v) { return (Value){.kind = V_INT, .i = v}; }
Value val_float(double f) { return (Value){.kind = V_FLOAT, .f = f}; }
Value val_bool(bool b) { return (Value){.kind = V_BOOL, .i = b}; }
Value val_dyn(LLVMValueRef v, ScalarType ty) { return (Value){.kind = V_DYN, .llvm = v, .ty = ty}; }

static const struct {
    const char *name;
    ScalarType ty;
} type_names[] = {
    {"bool", TY_BOOL}, {"i32", TY_I32}, {"i64", TY_I64},   {"f16", TY_F16},   {"bf16", TY_BF16},
    {"f32", TY_F32},   {"f64", TY_F64}, {"e4m3", TY_E4M3}, {"e5m2", TY_E5M2},
};

/* "an i32", "a bf16": for messages that name a type after an article */
static const char *article(ScalarType t)
{
    const char *n = type_name(t);
    return n[0] == 'i' || n[0] == 'f' || n[0] == 'e' ? "an" : "a";
}

const char *type_name(ScalarType t)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (type_names[i].ty == t) return type_names[i].name;
    return "void";
}

bool type_from_name(const char *name, ScalarType *out)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(type_names[i].name, name) == 0) {
            *out = type_names[i].ty;
            return true;
        }
    return false;
}

bool type_is_fp8(ScalarType t) { return t == TY_E4M3 || t == TY_E5M2; }
bool type_is_float(ScalarType t) { return t == TY_F16 || t == TY_BF16 || t == TY_F32 || t == TY_F64 || type_is_fp8(t); }
bool type_is_int(ScalarType t) { return t == TY_I32 || t == TY_I64; }

int type_bytes(ScalarType t)
{
    switch (t) {
    case TY_BOOL:
    case TY_E4M3:
    case TY_E5M2: return 1;
    case TY_F16:
    case TY_BF16: return 2;
    case TY_I32:
    case TY_F32: return 4;
    case TY_I64:
    case TY_F64: return 8;
    default: return 0;
    }
}

const char *val_describe(Eval *e, const Value *v)
{
    switch (v->kind) {
    case V_ERROR: return "erroneous value";
    case V_VOID: return "nothing (void)";
    case V_INT: return arena_printf(e->arena, "integer %lld", (long long)v->i);
    case V_FLOAT: return arena_printf(e->arena, "number %g", v->f);
    case V_BOOL: return v->i ? "boolean true" : "boolean false";
    case V_DYN: return arena_printf(e->arena, "runtime %s value", type_name(v->ty));
    case V_LAY: {
        const char *what = v->lay.kind == LAY_V_TUPLE      ? "tuple"
                           : v->lay.kind == LAY_V_LAYOUT   ? "layout"
                           : v->lay.kind == LAY_V_SWIZZLE  ? "swizzle"
                           : v->lay.kind == LAY_V_COMPOSED ? "composed layout"
                           : v->lay.kind == LAY_V_TILER    ? "tiler"
                           : v->lay.kind == LAY_V_LIST     ? "tuple"
                           : v->lay.i.is_static            ? "integer"
                                                           : "symbolic integer";
        return arena_printf(e->arena, "%s %s", what, lay_print_value(e->arena, &v->lay));
    }
    case V_TENSOR:
        if (v->space == SPACE_IDENT) return "identity tensor";
        return arena_printf(e->arena, "tensor of %s", type_name(v->ty));
    case V_REF: return arena_printf(e->arena, "%s tensor element", type_name(v->ty));
    case V_VAR: return arena_printf(e->arena, "%s variable", type_name(v->ty));
    case V_TYPE: return arena_printf(e->arena, "type %s", type_name(v->ty));
    case V_FUNC: return arena_printf(e->arena, "function '%s'", v->node->name);
    case V_ABSENT: return arena_printf(e->arena, "parameter '%s', absent for these template values", v->node->name);
    case V_BUILTIN: return arena_printf(e->arena, "builtin '%s'", v->name);
    case V_UNDERSCORE: return "'_'";
    case V_SREG: return arena_printf(e->arena, "'%s'", v->name);
    case V_TMAP: return "TMA descriptor";
    case V_ATOM: return atom_describe(e, v->atom);
    case V_DESC: return arena_printf(e->arena, "%s-major %s wgmma descriptor", v->i ? "MN" : "K", type_name(v->ty));
    }
    return "value";
}

static bool need_cg(Eval *e, SrcLoc loc, const char *what)
{
    if (e->cg) return true;
    diag_error(e->diag, loc, "%s is not a compile-time value", what);
    return false;
}

/* Materialise a static value as a runtime constant of type ty. */
static LLVMValueRef const_of(Eval *e, Value v, ScalarType ty)
{
    LLVMTypeRef t = cg_type(e->cg, ty);
    if (type_is_float(ty)) return LLVMConstReal(t, v.kind == V_FLOAT ? v.f : (double)v.i);
    return LLVMConstInt(t, (unsigned long long)v.i, 1);
}

/* The fp8 encoding of x, rounded to nearest even and saturated to the
 * largest finite value, as cvt.rn.satfinite does (NaN stays NaN).  Static
 * values become constants here because LLVM cannot fold the cvt asm. */
static unsigned fp8_encode(double x, ScalarType ty)
{
    int mbits = ty == TY_E4M3 ? 3 : 2, bias = ty == TY_E4M3 ? 7 : 15;
    unsigned maxcode = ty == TY_E4M3 ? 0x7E : 0x7B; /* 448 and 57344 */
    double maxval = ty == TY_E4M3 ? 448.0 : 57344.0;
    unsigned sign = signbit(x) ? 0x80 : 0;
    double a = fabs(x);
    if (isnan(x)) return 0x7F;
    if (a >= maxval) return sign | maxcode;
    int ex;
    frexp(a, &ex);                              /* a = f * 2^ex, f in [0.5, 1) */
    ex -= 1;                                    /* a = 1.x * 2^ex */
    if (a == 0 || ex < 1 - bias) ex = 1 - bias; /* subnormal: fixed quantum */
    double m = nearbyint(ldexp(a, mbits - ex)); /* the mantissa with its leading bit */
    if (m >= (double)(2 << mbits)) {
        m /= 2;
        ex++;
    }
    unsigned code = m < (double)(1 << mbits) ? (unsigned)m /* subnormal (or zero) */
                                             : ((unsigned)(ex + bias) << mbits) | ((unsigned)m - (1u << mbits));
    return sign | (code > maxcode ? maxcode : code);
}

/* fp8 bits (i8) to f16: e5m2 is the top byte of an f16 (same exponent
 * bias), e4m3 needs cvt (sm_89 and later), which converts pairs: the value
 * sits in the low byte and comes back in the low half. */
static LLVMValueRef fp8_to_f16(CG *cg, LLVMValueRef bits, ScalarType from)
{
    LLVMBuilderRef b = cg->b;
    LLVMValueRef w = LLVMBuildZExt(b, bits, cg->t_i16, "");
    if (from == TY_E5M2)
        return LLVMBuildBitCast(b, LLVMBuildShl(b, w, LLVMConstInt(cg->t_i16, 8, 0), ""), cg->t_f16, "");
    LLVMValueRef r = cg_asm_pure(cg, cg->t_i32, &w, 1, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h");
    return LLVMBuildBitCast(b, LLVMBuildTrunc(b, r, cg->t_i16, ""), cg->t_f16, "");
}

/* f32 to fp8 bits: cvt.rn.satfinite converts a pair (a to the high byte,
 * b to the low byte); the value goes in b. */
static LLVMValueRef f32_to_fp8(CG *cg, LLVMValueRef x, ScalarType to)
{
    LLVMValueRef args[2] = {LLVMConstReal(cg->t_f32, 0.0), x};
    const char *text =
        to == TY_E4M3 ? "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;" : "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;";
    LLVMValueRef r = cg_asm_pure(cg, cg->t_i16, args, 2, text, "=h,f,f");
    return LLVMBuildTrunc(cg->b, r, cg->t_i8, "");
}

/* Runtime conversions from or to fp8.  Widening from fp8 is exact and
 * implicit; narrowing to fp8 saturates, so it must be written out. */
static Value conv_fp8(Eval *e, Value v, ScalarType ty, SrcLoc loc, bool explicit_cast)
{
    bool to8 = type_is_fp8(ty), widen = !to8 && type_is_float(ty);
    if (!explicit_cast && !widen) {
        diag_error(e->diag, loc, "cannot use %s %s value as %s; convert explicitly with %s(...)%s", article(v.ty),
                   type_name(v.ty), type_name(ty), type_name(ty), to8 ? " (it rounds and saturates)" : "");
        return val_error();
    }
    if (!to8) {
        Value h = val_dyn(fp8_to_f16(e->cg, v.llvm, v.ty), TY_F16);
        return ty == TY_F16 ? h : conv_to(e, conv_to(e, h, TY_F32, loc, true), ty, loc, true);
    }
    /* f16, bf16, the other fp8 and integers widen to f32 exactly first;
     * f64 rounds to f32 first (a double rounding in rare ties) */
    Value f = conv_to(e, v, TY_F32, loc, true);
    if (f.kind == V_ERROR) return f;
    return val_dyn(f32_to_fp8(e->cg, f.llvm, ty), ty);
}

Value conv_to(Eval *e, Value v, ScalarType ty, SrcLoc loc, bool explicit_cast)
{
    if (v.kind == V_ERROR) return v;
    if (v.kind == V_INT || v.kind == V_FLOAT || v.kind == V_BOOL) {
        if (v.kind == V_FLOAT && type_is_int(ty)) {
            if (!explicit_cast) {
                diag_error(e->diag, loc, "cannot use number %g as %s; convert explicitly with %s(...)", v.f,
                           type_name(ty), type_name(ty));
                return val_error();
            }
            /* out of range (or NaN), the C conversion would be undefined */
            if (!(v.f >= -0x1p63 && v.f < 0x1p63)) {
                diag_error(e->diag, loc, "number %g does not fit in %s", v.f, type_name(ty));
                return val_error();
            }
            v = val_int((int64_t)v.f);
        }
        if (ty == TY_I32 && v.kind == V_INT && !int_fits_i32(v.i) && !explicit_cast) {
            diag_error(e->diag, loc, "integer %lld does not fit in i32", (long long)v.i);
            return val_error();
        }
        if (!need_cg(e, loc, "a runtime conversion")) return val_error();
        if (ty == TY_BOOL) return val_dyn(LLVMConstInt(e->cg->t_i1, v.i != 0, 0), TY_BOOL);
        if (type_is_fp8(ty))
            return val_dyn(LLVMConstInt(e->cg->t_i8, fp8_encode(v.kind == V_FLOAT ? v.f : (double)v.i, ty), 0), ty);
        return val_dyn(const_of(e, v, ty), ty);
    }
    if (v.kind != V_DYN) {
        diag_error(e->diag, loc, "expected %s %s value, found %s", article(ty), type_name(ty), val_describe(e, &v));
        return val_error();
    }
    if (v.ty == ty) return v;
    if (type_is_fp8(v.ty) || type_is_fp8(ty)) return conv_fp8(e, v, ty, loc, explicit_cast);
    LLVMBuilderRef b = e->cg->b;
    LLVMTypeRef t = cg_type(e->cg, ty);
    bool fi = type_is_float(v.ty), fo = type_is_float(ty);
    if (fi && fo) {
        bool widen = type_bytes(ty) > type_bytes(v.ty) || (v.ty == TY_F16 && ty == TY_BF16);
        if (v.ty == TY_F16 && ty == TY_BF16) /* no direct path: through f32 */
            return conv_to(e, conv_to(e, v, TY_F32, loc, true), TY_BF16, loc, true);
        if (v.ty == TY_BF16 && ty == TY_F16) return conv_to(e, conv_to(e, v, TY_F32, loc, true), TY_F16, loc, true);
        return val_dyn(widen ? LLVMBuildFPExt(b, v.llvm, t, "") : LLVMBuildFPTrunc(b, v.llvm, t, ""), ty);
    }
    if (!fi && !fo) {
        if (v.ty == TY_BOOL) return val_dyn(LLVMBuildZExt(b, v.llvm, t, ""), ty);
        if (ty == TY_BOOL)
            return val_dyn(LLVMBuildICmp(b, LLVMIntNE, v.llvm, LLVMConstInt(cg_type(e->cg, v.ty), 0, 0), ""), ty);
        if (type_bytes(ty) > type_bytes(v.ty)) return val_dyn(LLVMBuildSExt(b, v.llvm, t, ""), ty);
        if (!explicit_cast) {
            diag_error(e->diag, loc, "implicit narrowing from %s to %s; convert explicitly with %s(...)",
                       type_name(v.ty), type_name(ty), type_name(ty));
            return val_error();
        }
        return val_dyn(LLVMBuildTrunc(b, v.llvm, t, ""), ty);
    }
    if (!explicit_cast) {
        diag_error(e->diag, loc, "cannot use %s %s value as %s; convert explicitly with %s(...)", article(v.ty),
                   type_name(v.ty), type_name(ty), type_name(ty));
        return val_error();
    }
    if (fi) return val_dyn(LLVMBuildFPToSI(b, v.llvm, t, ""), ty);
    if (v.ty == TY_BOOL) return val_dyn(LLVMBuildUIToFP(b, v.llvm, t, ""), ty);
    return val_dyn(LLVMBuildSIToFP(b, v.llvm, t, ""), ty);
}

static bool is_cmp(int op)
{
    return op == '<' || op == '>' || op == OP_LE || op == OP_GE || op == OP_EQ || op == OP_NE;
}

static Value fold_int(Eval *e, int op, int64_t a, int64_t b, SrcLoc loc)
{
    int64_t r = 0;
    bool ovf = false;
    switch (op) {
    case '+': ovf = __builtin_add_overflow(a, b, &r); break;
    case '-': ovf = __builtin_sub_overflow(a, b, &r); break;
    case '*': ovf = __builtin_mul_overflow(a, b, &r); break;
    case '/':
    case '%':
        if (b == 0) {
            diag_error(e->diag, loc, "division by zero");
            return val_error();
        }
        if (a == INT64_MIN && b == -1) {
            ovf = true;
            break;
        }
        r = op == '/' ? a / b : a % b;
        break;
    case '&': r = a & b; break;
    case '|': r = a | b; break;
    case '^': r = a ^ b; break;
    case OP_SHL:
    case OP_SHR:
        if (b < 0 || b > 63) {
            diag_error(e->diag, loc, "shift by %lld is out of range", (long long)b);
            return val_error();
        }
        if (op == OP_SHR) {
            r = a >> b;
            break;
        }
        /* a << b is a * 2^b: it overflows when shifting back loses bits */
        r = (int64_t)((uint64_t)a << b);
        ovf = (r >> b) != a;
        break;
    case '<': return val_bool(a < b);
    case '>': return val_bool(a > b);
    case OP_LE: return val_bool(a <= b);
    case OP_GE: return val_bool(a >= b);
    case OP_EQ: return val_bool(a == b);
    case OP_NE: return val_bool(a != b);
    case OP_AND: return val_bool(a && b);
    case OP_OR: return val_bool(a || b);
    default: diag_error(e->diag, loc, "operator '%s' does not apply to integers", ast_op_name(op)); return val_error();
    }
    if (ovf) {
        diag_error(e->diag, loc, "integer overflow in '%s' (%lld %s %lld)", ast_op_name(op), (long long)a,
                   ast_op_name(op), (long long)b);
        return val_error();
    }
    return val_int(r);
}

static Value fold_float(Eval *e, int op, double a, double b, SrcLoc loc)
{
    switch (op) {
    case '+': return val_float(a + b);
    case '-': return val_float(a - b);
    case '*': return val_float(a * b);
    case '/': return val_float(a / b);
    case '<': return val_bool(a < b);
    case '>': return val_bool(a > b);
    case OP_LE: return val_bool(a <= b);
    case OP_GE: return val_bool(a >= b);
    case OP_EQ: return val_bool(a == b);
    case OP_NE: return val_bool(a != b);
    default: diag_error(e->diag, loc, "operator '%s' does not apply to numbers", ast_op_name(op)); return val_error();
    }
}

static bool is_static_scalar(const Value *v) { return v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL; }

/* The runtime type both operands take: f16/bf16 compute in f32, i32 meets
 * i64 in i64, a static operand takes the other's type.  Integers and
 * floats never mix implicitly. */
static bool common_type(Eval *e, const char *what, const Value *a, const Value *b, ScalarType *out, SrcLoc loc)
{
    const Value *d = a->kind == V_DYN ? a : b; /* at least one is runtime */
    const Value *o = d == a ? b : a;
    ScalarType t = d->ty;
    if (o->kind == V_DYN) {
        if (type_is_float(o->ty) != type_is_float(t) || (o->ty == TY_BOOL) != (t == TY_BOOL)) {
            diag_error(e->diag, loc, "operands of %s have different types (%s and %s); convert one explicitly", what,
                       type_name(a->ty), type_name(b->ty));
            return false;
        }
        if (type_bytes(o->ty) > type_bytes(t)) t = o->ty;
    } else if ((o->kind == V_FLOAT && !type_is_float(t)) || (o->kind == V_BOOL) != (t == TY_BOOL)) {
        diag_error(e->diag, loc, "operands of %s have different types (%s and %s); convert one explicitly", what,
                   d == a ? type_name(t) : val_describe(e, o), d == a ? val_describe(e, o) : type_name(t));
        return false;
    } else if (t == TY_I32 && o->kind == V_INT && !int_fits_i32(o->i)) {
        t = TY_I64; /* a static integer past i32 is an i64, as a 'var' of it is */
    }
    if (t == TY_F16 || t == TY_BF16 || type_is_fp8(t)) t = TY_F32;
    *out = t;
    return true;
}

bool unify_operands(Eval *e, const char *what, Value *a, Value *b, SrcLoc loc)
{
    if (a->kind != V_DYN && b->kind != V_DYN) {
        diag_error(e->diag, loc, "internal: unify_operands on two static values");
        return false;
    }
    ScalarType t;
    if (!common_type(e, what, a, b, &t, loc)) return false;
    *a = conv_to(e, *a, t, loc, false);
    *b = conv_to(e, *b, t, loc, false);
    return a->kind != V_ERROR && b->kind != V_ERROR;
}

Value binop(Eval *e, int op, Value a, Value b, SrcLoc loc)
{
    if (a.kind == V_ERROR || b.kind == V_ERROR) return val_error();
    if (a.kind == V_INT && b.kind == V_INT) return fold_int(e, op, a.i, b.i, loc);
    /* types compare for equality, so a `require` can restrict a type parameter */
    if (a.kind == V_TYPE && b.kind == V_TYPE && (op == OP_EQ || op == OP_NE))
        return val_bool((a.ty == b.ty) == (op == OP_EQ));
    /* and functions, so that a template can test its `fn` parameter (ACT == identity) */
    if ((a.kind == V_FUNC || a.kind == V_BUILTIN) && (b.kind == V_FUNC || b.kind == V_BUILTIN) &&
        (op == OP_EQ || op == OP_NE)) {
        bool same = a.kind == b.kind && (a.kind == V_FUNC ? a.node == b.node : strcmp(a.name, b.name) == 0);
        return val_bool(same == (op == OP_EQ));
    }
    if (a.kind == V_BOOL && b.kind == V_BOOL) {
        if (op == OP_AND || op == OP_OR || op == OP_EQ || op == OP_NE || op == '&' || op == '|' || op == '^')
            return fold_int(e, op, a.i, b.i, loc);
    }
    if ((a.kind == V_BOOL) != (b.kind == V_BOOL) && (a.kind == V_BOOL ? is_static_scalar(&b) : is_static_scalar(&a))) {
        diag_error(e->diag, loc, "operator '%s' does not apply to a boolean and a number", ast_op_name(op));
        return val_error();
    }
    if (a.kind == V_BOOL && b.kind == V_BOOL) {
        diag_error(e->diag, loc, "operator '%s' does not apply to booleans", ast_op_name(op));
        return val_error();
    }
    if ((a.kind == V_FLOAT || a.kind == V_INT) && (b.kind == V_FLOAT || b.kind == V_INT))
        return fold_float(e, op, a.kind == V_FLOAT ? a.f : (double)a.i, b.kind == V_FLOAT ? b.f : (double)b.i, loc);
    Value sym = binop_symbolic(e, op, a, b, loc);
    if (sym.kind != V_VOID) return sym;
    if (!(is_static_scalar(&a) || a.kind == V_DYN) || !(is_static_scalar(&b) || b.kind == V_DYN)) {
        const Value *bad = (is_static_scalar(&a) || a.kind == V_DYN) ? &b : &a;
        diag_error(e->diag, loc, "operator '%s' expects numbers, found %s", ast_op_name(op), val_describe(e, bad));
        return val_error();
    }
    if (!need_cg(e, loc, "a runtime operation")) return val_error();
    if (!unify_operands(e, arena_printf(e->arena, "'%s'", ast_op_name(op)), &a, &b, loc)) return val_error();
    ScalarType t = a.ty;
    LLVMBuilderRef B = e->cg->b;
    LLVMValueRef x = a.llvm, y = b.llvm, r = NULL;
    if (type_is_float(t)) {
        switch (op) {
        case '+': r = LLVMBuildFAdd(B, x, y, ""); break;
        case '-': r = LLVMBuildFSub(B, x, y, ""); break;
        case '*': r = LLVMBuildFMul(B, x, y, ""); break;
        case '/': r = LLVMBuildFDiv(B, x, y, ""); break;
        case '<': r = LLVMBuildFCmp(B, LLVMRealOLT, x, y, ""); break;
        case '>': r = LLVMBuildFCmp(B, LLVMRealOGT, x, y, ""); break;
        case OP_LE: r = LLVMBuildFCmp(B, LLVMRealOLE, x, y, ""); break;
        case OP_GE: r = LLVMBuildFCmp(B, LLVMRealOGE, x, y, ""); break;
        case OP_EQ: r = LLVMBuildFCmp(B, LLVMRealOEQ, x, y, ""); break;
        case OP_NE: r = LLVMBuildFCmp(B, LLVMRealUNE, x, y, ""); break;
        default:
            diag_error(e->diag, loc, "operator '%s' does not apply to %s", ast_op_name(op), type_name(t));
            return val_error();
        }
        /* allow a*b+c to become fma, as nvcc's default -fmad=true does */
        if (!is_cmp(op)) LLVMSetFastMathFlags(r, LLVMFastMathAllowContract);
        return val_dyn(r, is_cmp(op) ? TY_BOOL : t);
    }
    if (t == TY_BOOL) {
        switch (op) {
        case OP_AND:
        case '&': r = LLVMBuildAnd(B, x, y, ""); break;
        case OP_OR:
        case '|': r = LLVMBuildOr(B, x, y, ""); break;
        case '^':
        case OP_NE: r = LLVMBuildXor(B, x, y, ""); break;
        case OP_EQ: r = LLVMBuildICmp(B, LLVMIntEQ, x, y, ""); break;
        default: diag_error(e->diag, loc, "operator '%s' does not apply to bool", ast_op_name(op)); return val_error();
        }
        return val_dyn(r, TY_BOOL);
    }
    switch (op) {
    case '+': r = LLVMBuildAdd(B, x, y, ""); break;
    case '-': r = LLVMBuildSub(B, x, y, ""); break;
    case '*': r = LLVMBuildMul(B, x, y, ""); break;
    case '/': r = LLVMBuildSDiv(B, x, y, ""); break;
    case '%': r = LLVMBuildSRem(B, x, y, ""); break;
    case '&': r = LLVMBuildAnd(B, x, y, ""); break;
    case '|': r = LLVMBuildOr(B, x, y, ""); break;
    case '^': r = LLVMBuildXor(B, x, y, ""); break;
    case OP_SHL: r = LLVMBuildShl(B, x, y, ""); break;
    case OP_SHR: r = LLVMBuildAShr(B, x, y, ""); break;
    case '<': r = LLVMBuildICmp(B, LLVMIntSLT, x, y, ""); break;
    case '>': r = LLVMBuildICmp(B, LLVMIntSGT, x, y, ""); break;
    case OP_LE: r = LLVMBuildICmp(B, LLVMIntSLE, x, y, ""); break;
    case OP_GE: r = LLVMBuildICmp(B, LLVMIntSGE, x, y, ""); break;
    case OP_EQ: r = LLVMBuildICmp(B, LLVMIntEQ, x, y, ""); break;
    case OP_NE: r = LLVMBuildICmp(B, LLVMIntNE, x, y, ""); break;
    default:
        diag_error(e->diag, loc, "operator '%s' does not apply to %s", ast_op_name(op), type_name(t));
        return val_error();
    }
    return val_dyn(r, is_cmp(op) ? TY_BOOL : t);
}
