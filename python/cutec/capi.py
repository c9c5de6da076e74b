"""libcutec_rt through ctypes: the C structs of cutec/gemm.h mirrored field by
field (python/tests/test_capi.py compares them with the header's offsets and
sizes), the prototypes of the functions used, and statuses as CutecError.

The library is loaded on first use (load()); it opens the CUDA driver only
when a runtime is created, so everything here but a runtime works on a
machine without a GPU.
"""
import ctypes
import threading
from ctypes import POINTER, c_char, c_char_p, c_double, c_float, c_int, c_longlong, c_size_t, c_void_p

from .errors import CutecError
from .locate import library_path

# enum values of cutec/gemm.h (checked against the header by the tests)
DTYPE_BF16, DTYPE_F16, DTYPE_F32, DTYPE_E4M3, DTYPE_E5M2 = 1, 2, 3, 4, 5
LAYOUT_ROW, LAYOUT_COL = 0, 1
SCALE_NONE, SCALE_TENSOR, SCALE_ROW, SCALE_BLOCK = 0, 1, 2, 3
OPT_TUNE_RUNS, OPT_TUNE_WARMUP, OPT_CUBLAS_ALGOS, OPT_DISK_CACHE, OPT_FLUSH_L2, OPT_TUNE_FINALISTS = 1, 2, 3, 4, 5, 6
OPT_TUNE_SHORTLIST, OPT_TUNE_MODE, OPT_DEVICE_CHECK, OPT_HOST_BOUND_US, OPT_TUNE_SHORTLIST_FILL = 7, 8, 9, 10, 11
OK = 0


class GemmProblem(ctypes.Structure):
    """cutec_gemm_problem (cutec/gemm.h); struct_size is this mirror's size."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("m", c_longlong),
        ("n", c_longlong),
        ("k", c_longlong),
        ("a_type", c_int),
        ("b_type", c_int),
        ("c_type", c_int),
        ("a_layout", c_int),
        ("b_layout", c_int),
        ("c_layout", c_int),
        ("lda", c_longlong),
        ("ldb", c_longlong),
        ("ldc", c_longlong),
        ("alpha", c_float),
        ("beta", c_float),
        ("epilogue", c_int),
        ("act", c_char * 32),
        ("act_gated", c_int),
        ("bias", c_int),
        ("bias_row", c_int),
        ("bias_type", c_int),
        ("c_source", c_int),
        ("ld_csrc", c_longlong),
        ("aux", c_int),
        ("ld_aux", c_longlong),
        ("scalars_on_device", c_int),
        ("scale_mode", c_int),
        ("batch", c_longlong),
        ("stride_a", c_longlong),
        ("stride_b", c_longlong),
        ("stride_c", c_longlong),
        ("stride_d", c_longlong),
        ("groups", c_longlong),
        ("clamp", c_int),  # D clamped to GemmArgs' clamp_lo, clamp_hi
    ]

    def __init__(self, **fields):
        super().__init__(struct_size=ctypes.sizeof(GemmProblem), **fields)


class GemmArgs(ctypes.Structure):
    """cutec_gemm_args: the device pointers of one call."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("A", c_void_p),
        ("B", c_void_p),
        ("D", c_void_p),
        ("C", c_void_p),
        ("bias", c_void_p),
        ("bias_row", c_void_p),
        ("aux", c_void_p),
        ("alpha", c_void_p),
        ("beta", c_void_p),
        ("scale_a", c_void_p),
        ("scale_b", c_void_p),
        ("scale_d", c_void_p),
        ("amax", c_void_p),
        ("group_ends", c_void_p),
        ("group_list", c_void_p),  # the general grouped GEMM's rows (cutec_gemm_list_row)
        ("clamp_lo", c_float),  # with GemmProblem.clamp: the bounds, by value
        ("clamp_hi", c_float),
    ]

    def __init__(self):
        super().__init__(struct_size=ctypes.sizeof(GemmArgs))


# cutec/gemm.h's CUTEC_CANDIDATE_NAME_LEN: the longest candidate name with its zero
CANDIDATE_NAME_LEN = 320


class TuneCandidate(ctypes.Structure):
    """cutec_tune_candidate."""

    _fields_ = [
        ("name", c_char * CANDIDATE_NAME_LEN),
        ("is_cublas", c_int),
        ("ms", c_double),
        ("tflops", c_double),
        ("note", c_char * 160),
        ("screened", c_int),
        ("round_ms", c_double),
        ("algo_rank", c_int),
        ("pack", c_int),
    ]


class TuneReport(ctypes.Structure):
    """cutec_tune_report."""

    _fields_ = [
        ("count", c_int),
        ("candidates", POINTER(TuneCandidate)),
        ("winner", c_int),
        ("cublas_ms", c_double),
        ("seconds", c_double),
        ("from_cache", c_int),
    ]


class ActInfo(ctypes.Structure):
    """The leading fields of a row of the epilogue table (contract/epilogue.h,
    cutec_act_info): its name and whether it is gated.  Only read through
    pointers the library returns, so the rest of the row need not be here."""

    _fields_ = [("name", c_char_p), ("gated", c_int)]


_P = c_void_p
_PROTOTYPES = {
    # name: (result, argument types)
    "cutec_version_string": (c_char_p, []),
    "cutec_status_name": (c_char_p, [c_int]),
    "cutec_status_string": (c_char_p, [c_int]),
    "cutec_runtime_create": (c_int, [POINTER(_P), c_int]),
    "cutec_runtime_destroy": (None, [_P]),
    "cutec_runtime_message": (c_char_p, [_P]),
    "cutec_device_info": (c_int, [_P, c_char_p, c_size_t, POINTER(c_int), POINTER(c_int), POINTER(c_int)]),
    "cutec_pack_load_file": (c_int, [_P, c_char_p, POINTER(_P)]),
    "cutec_pack_unload": (None, [_P]),
    "cutec_pack_arch": (c_char_p, [_P]),
    "cutec_pack_entry_count": (c_int, [_P]),
    "cutec_gemm_create": (c_int, [_P, POINTER(_P)]),
    "cutec_gemm_destroy": (None, [_P]),
    "cutec_gemm_use_pack": (c_int, [_P, _P]),
    "cutec_gemm_ex": (c_int, [_P, POINTER(GemmProblem), POINTER(GemmArgs), _P]),
    "cutec_gemm_tune_ex": (c_int, [_P, POINTER(GemmProblem), POINTER(GemmArgs), _P, POINTER(POINTER(TuneReport))]),
    "cutec_tune_report_free": (None, [POINTER(TuneReport)]),
    "cutec_gemm_choice": (c_int, [_P, POINTER(GemmProblem), c_char_p, c_size_t]),
    "cutec_gemm_set_option": (c_int, [_P, c_int, c_longlong]),
    "cutec_gemm_get_option": (c_int, [_P, c_int, POINTER(c_longlong)]),
    "cutec_gemm_set_cache_dir": (c_int, [_P, c_char_p]),
    "cutec_gemm_cache_dir": (c_char_p, [_P]),
    "cutec_gemm_set_workspace": (c_int, [_P, _P, c_size_t]),
    "cutec_gemm_cublas_version": (c_int, [_P]),
    # the epilogue table (contract/epilogue.h), compiled into the library
    "cutec_act_count": (c_int, []),
    "cutec_act_at": (POINTER(ActInfo), [c_int]),
}

_lock = threading.Lock()
_lib = None


def load():
    """The loaded library (ctypes.CDLL with prototypes); CutecError when it
    cannot be found or loaded."""
    global _lib
    with _lock:
        if _lib is None:
            path = library_path()
            if path is None:
                raise CutecError("CUTEC_ERR_IO", "libcutec_rt.so not found: set CUTEC_LIB to its path, or install a "
                                 "cutec package that bundles it (python/scripts/stage.py, docs/python.md)")
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                raise CutecError("CUTEC_ERR_IO", f"cannot load {path}: {e}") from None
            for name, (res, args) in _PROTOTYPES.items():
                fn = getattr(lib, name)
                fn.restype = res
                fn.argtypes = args
            _lib = lib
    return _lib


def raw_gemm_ex():
    """cutec_gemm_ex as a second function object whose four arguments are
    plain addresses (ints): ctypes converts ints to void pointers faster
    than it checks typed pointers, which the per-call path notices."""
    fn = load()["cutec_gemm_ex"]  # indexing makes a new function object: the prototype above stays as it is
    fn.restype = c_int
    fn.argtypes = [c_void_p, c_void_p, c_void_p, c_void_p]
    return fn


def status_name(code):
    return load().cutec_status_name(code).decode()


def status_names():
    """Every status's name, by value (from the library: one list)."""
    lib, out, code = load(), {}, 0
    while True:
        name = lib.cutec_status_name(code).decode()
        if name == "CUTEC_STATUS_UNKNOWN":
            return out
        out[code] = name
        code += 1


def check(code, runtime=None, what=""):
    """Raises CutecError for a status other than OK, with the runtime's message."""
    if code == OK:
        return
    lib = load()
    msg = lib.cutec_runtime_message(runtime).decode(errors="replace") if runtime else ""
    if not msg:
        msg = lib.cutec_status_string(code).decode()
    raise CutecError(lib.cutec_status_name(code).decode(), f"{what}: {msg}" if what else msg, code)


_acts = None


def activations():
    """{name: gated} of every activation of the epilogue table."""
    global _acts
    if _acts is None:
        lib = load()
        _acts = {}
        for i in range(lib.cutec_act_count()):
            row = lib.cutec_act_at(i).contents
            _acts[row.name.decode()] = bool(row.gated)
    return _acts


def version():
    return load().cutec_version_string().decode()

