/*
 * _fast.c - the cached eager call of cutec.torch.mm and cutec.torch.linear
 * in C (the optional module cutec._fast; docs/python.md, "Host overhead").
 *
 * The pure-Python direct path (cutec/torch/ops.py) spends most of a cached
 * call's host time in the interpreter: the eager checks, the plan's
 * signature, the pointers, the output, the ctypes call.  This module does
 * the same steps with the Python C API only (no PyTorch header: tensors are
 * read through their Python attributes) for calls whose plan the Python
 * path has already run on this handle outside a CUDA graph capture, with
 * every operand 16-byte aligned and nothing to copy.  Those the Python path
 * hands over with remember(); anything else (a miss, a tensor subclass, a
 * dispatch mode, a functorch transform, an input needing a gradient, an
 * unaligned pointer, a closed or replaced handle) returns None, and the
 * caller takes the Python path, which raises every error it raises today.
 * A failing cutec_gemm_ex is raised through the Python path's own call
 * (the status and the runtime's message), so errors read the same.
 *
 * The runtime library is not linked: cutec_gemm_ex's address and the
 * layout of cutec_gemm_args (offsets from cutec.capi's ctypes mirror, which
 * python/tests/test_capi.py checks against the header) come from setup().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { OP_MM = 1, OP_LINEAR = 2 };
enum { MAX_DIMS = 4 };     /* x of linear up to 4-D; more go the Python way */
enum { TABLE_SIZE = 256 }; /* a power of two; at half full the table starts over */
enum { MAX_ARGS_SIZE = 512 };

/* What a call is found by: every field the Python plan's signature holds
 * (shapes, strides, dtypes, the bias's, the activation) and the device.
 * Objects (dtypes, the activation) by identity: the entry holds a
 * reference, so the address cannot be another object's while it lives; an
 * equal activation string of another identity is a miss, then an entry of
 * its own. */
typedef struct fkey {
    long long op, dev, nda, ndb, ndbias; /* ndbias -1: no bias */
    long long sa[MAX_DIMS], ta[MAX_DIMS], sb[2], tb[2], sbias, tbias;
    uintptr_t dta, dtb, dtbias, act;
} fkey;

typedef struct fentry {
    fkey key;
    uint64_t hash; /* 0: empty slot */
    PyObject *dg, *plan, *lock, *shape, *keep[4];
    Py_ssize_t nshape;
    uintptr_t handle, problem;
} fentry;

typedef int (*gemm_ex_fn)(void *handle, const void *problem, const void *args, void *stream);

static fentry table[TABLE_SIZE];
static size_t used;
static int ready;
static gemm_ex_fn gemm_ex;
static Py_ssize_t args_size, off_a, off_b, off_d, off_bias;
static PyObject *tensor_type, *param_type, *dispatch_len, *functorch_active, *grad_enabled, *raw_stream, *devices,
    *ops_dict, *run_slow, *fail;
static unsigned long long generation; /* counts the table's clearings */

/* Py_NewRef is Python 3.10's; the package supports 3.9. */
static PyObject *new_ref(PyObject *o)
{
    Py_INCREF(o);
    return o;
}
static PyObject *s_shape, *s_stride, *s_dtype, *s_data_ptr, *s_is_cuda, *s_is_cpu, *s_get_device, *s_requires_grad,
    *s_new_empty, *s_acquire, *s_release, *s_host;

static uint64_t key_hash(const fkey *k)
{
    const unsigned char *b = (const unsigned char *)k;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i + 8 <= sizeof *k; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, sizeof w);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    h ^= h >> 32;
    return h != 0 ? h : 1;
}

static void entry_clear(fentry *e)
{
    Py_CLEAR(e->dg);
    Py_CLEAR(e->plan);
    Py_CLEAR(e->lock);
    Py_CLEAR(e->shape);
    for (int i = 0; i < 4; i++) Py_CLEAR(e->keep[i]);
    memset(e, 0, sizeof *e);
}

static void table_clear(void)
{
    for (size_t i = 0; i < TABLE_SIZE; i++)
        if (table[i].hash != 0) entry_clear(&table[i]);
    used = 0;
    generation++;
}

static fentry *table_find(const fkey *k, uint64_t h)
{
    for (size_t i = (size_t)h & (TABLE_SIZE - 1);; i = (i + 1) & (TABLE_SIZE - 1)) {
        fentry *e = &table[i];
        if (e->hash == 0) return NULL;
        if (e->hash == h && memcmp(&e->key, k, sizeof *k) == 0) return e;
    }
}

/* 1: the tensor's shape and strides read into shape/stride (at most maxnd
 * dimensions); 0: not a case of this path; -1: a Python error (cleared by
 * the caller, which then returns None: the Python path meets it again). */
static int read_meta(PyObject *t, long long *shape, long long *stride, long long maxnd, long long *nd)
{
    PyObject *s = PyObject_GetAttr(t, s_shape);
    if (s == NULL) return -1;
    int rc = 0;
    PyObject *st = NULL;
    Py_ssize_t n = PyTuple_Check(s) ? PyTuple_GET_SIZE(s) : -1; /* torch.Size is a tuple */
    if (n < 0 || n > maxnd) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(s, i));
        if (shape[i] == -1 && PyErr_Occurred()) goto error;
    }
    st = PyObject_CallMethodNoArgs(t, s_stride);
    if (st == NULL) goto error;
    if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != n) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        stride[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(st, i));
        if (stride[i] == -1 && PyErr_Occurred()) goto error;
    }
    *nd = n;
    rc = 1;
    goto done;
error:
    rc = -1;
done:
    Py_DECREF(s);
    Py_XDECREF(st);
    return rc;
}

/* The dtype object's address (the entry keeps a reference), 0 on an error. */
static uintptr_t read_dtype(PyObject *t)
{
    PyObject *d = PyObject_GetAttr(t, s_dtype);
    if (d == NULL) return 0;
    uintptr_t v = (uintptr_t)d;
    Py_DECREF(d); /* dtypes are torch's singletons: the address stays theirs */
    return v;
}

static int is_plain(PyObject *t)
{
    return Py_TYPE(t) == (PyTypeObject *)tensor_type || Py_TYPE(t) == (PyTypeObject *)param_type;
}

/* A bool attribute: 1, 0, or -1 on an error. */
static int flag(PyObject *t, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(t, name);
    if (v == NULL) return -1;
    int r = v == Py_True ? 1 : v == Py_False ? 0 : PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* A no-argument function's truth: 1, 0, -1 on an error. */
static int call_true(PyObject *fn)
{
    PyObject *v = PyObject_CallNoArgs(fn);
    if (v == NULL) return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* An int from a no-argument method (get_device, data_ptr); -1 (with an error) on failure. */
static long long call_int(PyObject *t, PyObject *name)
{
    PyObject *v = PyObject_CallMethodNoArgs(t, name);
    if (v == NULL) return -1;
    long long r = PyLong_AsLongLong(v);
    Py_DECREF(v);
    return r;
}

/* A tensor's data_ptr(); -1 (with an error) on failure. */
static unsigned long long call_ptr(PyObject *t)
{
    PyObject *v = PyObject_CallMethodNoArgs(t, s_data_ptr);
    if (v == NULL) return (unsigned long long)-1;
    unsigned long long r = PyLong_AsUnsignedLongLong(v);
    Py_DECREF(v);
    return r;
}

/* ops._direct's conditions past compile and DIRECT (the caller's): no
 * dispatch mode, no functorch transform, plain tensors, none needing a
 * gradient while grad mode is on (a, b required, c may be NULL or None).
 * 1 yes, 0 no, -1 error. */
static int eager(PyObject *a, PyObject *b, PyObject *c)
{
    if (!is_plain(a) || !is_plain(b) || (c != NULL && c != Py_None && !is_plain(c))) return 0;
    PyObject *n = PyObject_CallNoArgs(dispatch_len);
    if (n == NULL) return -1;
    long long modes = PyLong_AsLongLong(n);
    Py_DECREF(n);
    if (modes != 0) return modes == -1 && PyErr_Occurred() ? -1 : 0;
    int r = call_true(functorch_active);
    if (r != 0) return r < 0 ? -1 : 0;
    r = call_true(grad_enabled);
    if (r <= 0) return r;
    PyObject *ts[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        if (ts[i] == NULL || ts[i] == Py_None) continue;
        int g = flag(ts[i], s_requires_grad);
        if (g != 0) return g < 0 ? -1 : 0;
    }
    return 1;
}

/* The device index of every tensor given (c may be NULL or None): >= 0 one
 * CUDA device, -1 all on the CPU (the mock's test handle), -2 neither
 * (the Python path decides: another device, a mix, an error), -3 a Python
 * error. */
static long long device_of(PyObject *a, PyObject *b, PyObject *c)
{
    PyObject *ts[3] = {a, b, c};
    int cuda = flag(a, s_is_cuda);
    if (cuda < 0) return -3;
    if (cuda) {
        long long index = call_int(a, s_get_device);
        if (index < 0) return PyErr_Occurred() ? -3 : -2;
        for (int i = 1; i < 3; i++) {
            if (ts[i] == NULL || ts[i] == Py_None) continue;
            int f = flag(ts[i], s_is_cuda);
            if (f <= 0) return f < 0 ? -3 : -2;
            long long j = call_int(ts[i], s_get_device);
            if (j != index) return j == -1 && PyErr_Occurred() ? -3 : -2;
        }
        return index;
    }
    for (int i = 0; i < 3; i++) {
        if (ts[i] == NULL || ts[i] == Py_None) continue;
        int f = flag(ts[i], s_is_cpu);
        if (f <= 0) return f < 0 ? -3 : -2;
    }
    return -1;
}

/* The key of mm(a, b) or linear(a, b, bias, act): 1, 0 (not this path's), -1 error. */
static int make_key(fkey *k, long long op, PyObject *a, PyObject *b, PyObject *bias, PyObject *act)
{
    memset(k, 0, sizeof *k);
    k->op = op;
    int r = read_meta(a, k->sa, k->ta, op == OP_MM ? 2 : MAX_DIMS, &k->nda);
    if (r <= 0) return r;
    r = read_meta(b, k->sb, k->tb, 2, &k->ndb);
    if (r <= 0) return r;
    if ((k->dta = read_dtype(a)) == 0 || (k->dtb = read_dtype(b)) == 0) return -1;
    k->ndbias = -1;
    if (bias != NULL && bias != Py_None) {
        r = read_meta(bias, &k->sbias, &k->tbias, 1, &k->ndbias);
        if (r <= 0) return r;
        k->dtbias = read_dtype(bias);
        if (k->dtbias == 0) return -1;
    }
    k->act = (uintptr_t)act;
    return 1;
}

static PyObject *none(void) { Py_RETURN_NONE; }

/* None after a Python error met on the way: the Python path meets it again
 * and raises it where it always did. */
static PyObject *none_clearing(void)
{
    PyErr_Clear();
    Py_RETURN_NONE;
}

/* A table entry's part a call uses, held by the call. */
typedef struct hit {
    PyObject *dg, *plan, *lock, *shape;
    Py_ssize_t nshape;
    uintptr_t handle, problem;
} hit;

/* The lock released, an exception in flight kept (NULL: the release failed). */
static PyObject *release(PyObject *lock)
{
    PyObject *rel;
#if PY_VERSION_HEX >= 0x030C0000 /* PyErr_Fetch is deprecated from 3.12 */
    PyObject *exc = PyErr_GetRaisedException();
    rel = PyObject_CallMethodNoArgs(lock, s_release);
    if (rel == NULL)
        Py_XDECREF(exc);
    else
        PyErr_SetRaisedException(exc);
#else
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    rel = PyObject_CallMethodNoArgs(lock, s_release);
    if (rel == NULL)
        Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
    else
        PyErr_Restore(et, ev, tb);
#endif
    return rel;
}

/* The call of a remembered entry: the pointers (None where one is off 16
 * bytes: another alignment class), the stream, D allocated as the Python
 * path does (new_empty of A's dtype and device, the plan's output shape
 * given as separate sizes), cutec_gemm_ex under the handle's lock with the
 * GIL released (as ctypes does). */
static PyObject *call(const hit *h, long long dev, PyObject *a, PyObject *b, PyObject *bias)
{
    PyObject *ts[3] = {a, b, bias};
    unsigned long long p[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (ts[i] == NULL || ts[i] == Py_None) continue;
        p[i] = call_ptr(ts[i]);
        if (p[i] == (unsigned long long)-1 && PyErr_Occurred()) return none_clearing();
    }
    unsigned long long pa = p[0], pb = p[1], pbias = p[2];
    if ((pa | pb | pbias) & 15) return none();
    unsigned long long stream = 0;
    if (dev >= 0) {
        PyObject *idx = PyLong_FromLongLong(dev);
        PyObject *s = idx != NULL ? PyObject_CallOneArg(raw_stream, idx) : NULL;
        Py_XDECREF(idx);
        if (s == NULL) return NULL; /* as the Python path's own query would raise */
        stream = PyLong_AsUnsignedLongLong(s);
        Py_DECREF(s);
        if (PyErr_Occurred()) return NULL;
    }
    PyObject *argv[1 + MAX_DIMS];
    argv[0] = a;
    for (Py_ssize_t i = 0; i < h->nshape; i++) argv[1 + i] = PyTuple_GET_ITEM(h->shape, i);
    PyObject *d =
        PyObject_VectorcallMethod(s_new_empty, argv, (size_t)(1 + h->nshape) | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (d == NULL) return NULL;
    unsigned long long pd = call_ptr(d);
    if (pd == (unsigned long long)-1 && PyErr_Occurred()) {
        Py_DECREF(d);
        return NULL;
    }
    if (pd & 15) { /* never from PyTorch's allocators; the Python path's call then */
        PyObject *res = PyObject_CallFunction(run_slow, "OOKKKKK", h->dg, h->plan, pa, pb, pd, pbias, stream);
        if (res == NULL) {
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(res);
        return d;
    }
    unsigned char args[MAX_ARGS_SIZE] __attribute__((aligned(16)));
    memset(args, 0, (size_t)args_size);
    size_t size = (size_t)args_size;
    memcpy(args, &size, sizeof size);
    uintptr_t ptrs[4] = {(uintptr_t)pa, (uintptr_t)pb, (uintptr_t)pd, (uintptr_t)pbias};
    Py_ssize_t offs[4] = {off_a, off_b, off_d, off_bias};
    for (int i = 0; i < 4; i++) memcpy(args + offs[i], &ptrs[i], sizeof ptrs[i]);
    /* the handle's lock, as DeviceGemm.run holds it: calls on one handle
     * are serialised (its decisions hold per-call state) */
    PyObject *got = PyObject_CallMethodNoArgs(h->lock, s_acquire);
    if (got == NULL) {
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(got);
    void *handle = (void *)h->handle;
    const void *problem = (const void *)h->problem;
    int st;
    Py_BEGIN_ALLOW_THREADS;
    st = gemm_ex(handle, problem, args, (void *)(uintptr_t)stream);
    Py_END_ALLOW_THREADS;
    /* a failure raised as DeviceGemm.run raises it (capi.check: the status
     * and the runtime's message), still under the lock that kept the
     * message this call's */
    if (st != 0) {
        PyObject *raised = PyObject_CallFunction(fail, "Oi", h->dg, st);
        Py_XDECREF(raised);
        if (raised != NULL && !PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "cutec._fast: cutec_gemm_ex failed and fail() raised nothing");
    }
    PyObject *rel = release(h->lock);
    if (rel == NULL || st != 0) {
        Py_XDECREF(rel);
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(rel);
    return d;
}

/* mm or linear: the eager checks, the device, the key, the entry and its
 * handle, then call().  None where it is not this path's. */
static PyObject *run(long long op, PyObject *a, PyObject *b, PyObject *bias, PyObject *act)
{
    if (!ready) return none();
    int r = eager(a, b, bias);
    if (r <= 0) return r < 0 ? none_clearing() : none();
    long long dev = device_of(a, b, bias);
    if (dev < -1) return dev == -3 ? none_clearing() : none();
    fkey k;
    r = make_key(&k, op, a, b, bias, act);
    if (r <= 0) return r < 0 ? none_clearing() : none();
    k.dev = dev;
    fentry *e = table_find(&k, key_hash(&k));
    if (e == NULL) return none();
    /* the handle the Python path would use now: the device's, or the test's */
    PyObject *dg;
    if (dev >= 0) {
        PyObject *idx = PyLong_FromLongLong(dev);
        if (idx == NULL) return none_clearing();
        dg = PyDict_GetItemWithError(devices, idx); /* borrowed */
        Py_DECREF(idx);
    } else {
        dg = PyDict_GetItemWithError(ops_dict, s_host);
    }
    if (dg != e->dg) return PyErr_Occurred() ? none_clearing() : none();
    /* what the call needs of the entry, held: any Python call below (a
     * collection's finalizers) or another thread while the GIL is released
     * may clear the table */
    hit h = {new_ref(e->dg), new_ref(e->plan), new_ref(e->lock), new_ref(e->shape), e->nshape, e->handle, e->problem};
    PyObject *d = call(&h, dev, a, b, bias);
    Py_DECREF(h.dg);
    Py_DECREF(h.plan);
    Py_DECREF(h.lock);
    Py_DECREF(h.shape);
    return d;
}

static PyObject *fast_mm(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) return none();
    return run(OP_MM, args[0], args[1], NULL, NULL);
}

static PyObject *fast_linear(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) return none();
    return run(OP_LINEAR, args[0], args[1], args[2], args[3]);
}

/* remember(op, a, b, bias, act, dg, plan, lock, out_shape, handle,
 * problem): the call just made on the Python path runs here from now on
 * (op 1 mm, 2 linear; the caller checked that the plan copies nothing and
 * has run outside a capture with aligned operands on this handle; lock is
 * the handle's, out_shape the plan's; handle and problem the addresses
 * cutec_gemm_ex takes).  Returns whether it was remembered. */
static PyObject *fast_remember(PyObject *self, PyObject *args)
{
    (void)self;
    long long op;
    PyObject *a, *b, *bias, *act, *dg, *plan, *shape, *lock;
    unsigned long long handle, problem;
    if (!PyArg_ParseTuple(args, "LOOOOOOOOKK", &op, &a, &b, &bias, &act, &dg, &plan, &lock, &shape, &handle, &problem))
        return NULL;
    if (!ready || (op != OP_MM && op != OP_LINEAR) || !PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) < 1 ||
        PyTuple_GET_SIZE(shape) > MAX_DIMS || handle == 0 || problem == 0)
        Py_RETURN_FALSE;
    long long dev = device_of(a, b, op == OP_LINEAR ? bias : NULL);
    if (dev == -3) return NULL;
    if (dev < -1) Py_RETURN_FALSE;
    fkey k;
    int r = make_key(&k, op, a, b, op == OP_LINEAR ? bias : NULL, op == OP_LINEAR ? act : NULL);
    if (r < 0) return NULL;
    if (r == 0) Py_RETURN_FALSE;
    k.dev = dev;
    uint64_t h = key_hash(&k);
    if (table_find(&k, h) != NULL) Py_RETURN_TRUE;
    if ((used + 1) * 2 > TABLE_SIZE) table_clear(); /* a bound for programs with ever new shapes */
    size_t i = (size_t)h & (TABLE_SIZE - 1);
    while (table[i].hash != 0) i = (i + 1) & (TABLE_SIZE - 1);
    fentry *e = &table[i];
    e->key = k;
    e->hash = h;
    e->dg = new_ref(dg);
    e->plan = new_ref(plan);
    e->lock = new_ref(lock);
    e->shape = new_ref(shape);
    e->nshape = PyTuple_GET_SIZE(shape);
    /* the objects the key holds by address */
    PyObject *keep[4] = {(PyObject *)k.dta, (PyObject *)k.dtb, (PyObject *)k.dtbias, (PyObject *)k.act};
    for (int j = 0; j < 4; j++) e->keep[j] = keep[j] != NULL ? new_ref(keep[j]) : NULL;
    e->handle = (uintptr_t)handle;
    e->problem = (uintptr_t)problem;
    used++;
    Py_RETURN_TRUE;
}

static PyObject *fast_clear(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    table_clear();
    Py_RETURN_NONE;
}

static PyObject *fast_size(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyLong_FromSize_t(used);
}

static PyObject *fast_generation(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyLong_FromUnsignedLongLong(generation);
}

/* setup(tensor_type, param_type, dispatch_len, functorch_active,
 * grad_enabled, raw_stream, devices, ops_dict, run_slow, fail,
 * gemm_ex_address, args_size, off_A, off_B, off_D, off_bias) */
static PyObject *fast_setup(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[10];
    unsigned long long fn;
    Py_ssize_t size, oa, ob, od, obias;
    if (!PyArg_ParseTuple(args, "OOOOOOO!O!OOKnnnnn", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &PyDict_Type, &o[6],
                          &PyDict_Type, &o[7], &o[8], &o[9], &fn, &size, &oa, &ob, &od, &obias))
        return NULL;
    if (size < (Py_ssize_t)sizeof(size_t) || size > MAX_ARGS_SIZE || fn == 0) {
        PyErr_SetString(PyExc_ValueError, "cutec._fast.setup: bad args size or function address");
        return NULL;
    }
    Py_ssize_t offs[4] = {oa, ob, od, obias};
    for (int i = 0; i < 4; i++)
        if (offs[i] < (Py_ssize_t)sizeof(size_t) || offs[i] + (Py_ssize_t)sizeof(uintptr_t) > size) {
            PyErr_SetString(PyExc_ValueError, "cutec._fast.setup: a pointer field outside the args");
            return NULL;
        }
    PyObject **slots[10] = {&tensor_type, &param_type, &dispatch_len, &functorch_active, &grad_enabled,
                            &raw_stream,  &devices,    &ops_dict,     &run_slow,         &fail};
    table_clear();
    for (int i = 0; i < 10; i++) {
        PyObject *old = *slots[i];
        *slots[i] = new_ref(o[i]);
        Py_XDECREF(old);
    }
    memcpy(&gemm_ex, &(void *){(void *)(uintptr_t)fn}, sizeof gemm_ex);
    args_size = size, off_a = oa, off_b = ob, off_d = od, off_bias = obias;
    ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"mm", (PyCFunction)(void (*)(void))fast_mm, METH_FASTCALL, "a @ b where remembered, else None"},
    {"linear", (PyCFunction)(void (*)(void))fast_linear, METH_FASTCALL,
     "act(x @ weight.T + bias) where remembered, else None"},
    {"remember", fast_remember, METH_VARARGS, "the call just made on the Python path runs here from now on"},
    {"clear", fast_clear, METH_NOARGS, "forgets every call (a handle closed)"},
    {"size", fast_size, METH_NOARGS, "the calls remembered"},
    {"generation", fast_generation, METH_NOARGS, "how many times the calls were forgotten"},
    {"setup", fast_setup, METH_VARARGS, "the objects and the C layout the calls need"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "cutec._fast", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fast(void);

PyMODINIT_FUNC PyInit__fast(void)
{
    struct {
        PyObject **slot;
        const char *name;
    } names[] = {{&s_shape, "shape"},           {&s_stride, "stride"},
                 {&s_dtype, "dtype"},           {&s_data_ptr, "data_ptr"},
                 {&s_is_cuda, "is_cuda"},       {&s_is_cpu, "is_cpu"},
                 {&s_get_device, "get_device"}, {&s_requires_grad, "requires_grad"},
                 {&s_new_empty, "new_empty"},   {&s_acquire, "acquire"},
                 {&s_release, "release"},       {&s_host, "_host_gemm_for_tests"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (*names[i].slot == NULL && (*names[i].slot = PyUnicode_InternFromString(names[i].name)) == NULL) return NULL;
    return PyModule_Create(&module);
}
