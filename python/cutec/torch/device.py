"""One cutec runtime and GEMM handle per CUDA device, shared by every op on it.

A handle loads the packs (cutec.locate.pack_paths(); a pack for another
architecture is skipped and listed in skipped_packs), takes its cuBLASLt
workspace from PyTorch's caching allocator, and caches a problem struct per
problem.  The runtime tunes a problem class on its first call; during CUDA
graph capture a class that has not run in this process on this handle is
refused (tuning times candidates and synchronises the device, which capture
forbids): the caller warms up first.
"""
import atexit
import ctypes
import importlib.machinery
import importlib.util
import os
import sysconfig
import threading
from ctypes import byref, c_void_p

from .. import capi
from ..errors import CutecError
from ..locate import pack_paths

WORKSPACE_BYTES = 32 << 20  # the runtime's own default size

# CUTEC_OPT_HOST_BOUND_US of every handle made here ($CUTEC_HOST_BOUND_US
# overrides it; 0: device time alone decides): eager PyTorch issues small
# GEMMs back to back, where the host's work per call, not the GPU's, sets
# the pace.  On the H100 a cuBLASLt call took 7-9 us of host time against
# 3.4-3.9 through a pack kernel at 64^3 to 256^3 (device times 5-6 us
# each), so below 30 us of device time the host's share decides
# (docs/python.md, "Host overhead"; the runtime's own default stays 0)
HOST_BOUND_US = 30

# The args' pointers are written through arrays over runs of consecutive
# pointer fields, one slice assignment per call (cheaper than seven ctypes
# attribute stores): A .. aux, and scale_a .. amax (python/tests/test_capi.py
# checks the offsets against the header).
_PTRS = ctypes.c_uint64 * 7  # A, B, D, C, bias, bias_row, aux
_SCALES = ctypes.c_uint64 * 4  # scale_a, scale_b, scale_d, amax
NO_SCALES = (0, 0, 0, 0)


def _load_fast():
    """The optional C module cutec._fast (python/cutec/_fast.c: the cached
    eager call of mm and linear), or None: $CUTEC_FAST names its file (the
    tests' build), 0 turns it off; else the one the wheel was built with,
    where a compiler was present.  Without it the Python path does the same."""
    path = os.environ.get("CUTEC_FAST", "")
    if path == "0" or sysconfig.get_config_var("Py_GIL_DISABLED"):  # its table relies on the GIL
        return None
    try:
        if not path:
            from .. import _fast  # noqa: F401 (absent where the wheel was built without a compiler)

            return _fast
        loader = importlib.machinery.ExtensionFileLoader("cutec._fast", path)
        spec = importlib.util.spec_from_file_location("cutec._fast", path, loader=loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        return mod
    except ImportError:
        return None


fast = _load_fast()


def host_bound_us():
    """The host-bound limit for new handles: $CUTEC_HOST_BOUND_US (an
    integer number of microseconds) or HOST_BOUND_US."""
    env = os.environ.get("CUTEC_HOST_BOUND_US", "")
    if env == "":
        return HOST_BOUND_US
    try:
        return int(env)
    except ValueError:
        raise CutecError("CUTEC_ERR_INVALID_ARGUMENT", f"CUTEC_HOST_BOUND_US={env!r} is not an integer") from None


def _align(ptr):
    """The largest power of two dividing ptr, at most 16 (0: absent), as the
    runtime's problem class counts it."""
    return min(ptr & -ptr, 16) if ptr else 0


class DeviceGemm:
    """A cutec runtime on one device with its GEMM handle and packs."""

    def __init__(self, device_index, packs=None, workspace=None, cache_dir=None):
        self.lib = lib = capi.load()
        self.device_index = device_index
        self._rt, self._h, self._packs = c_void_p(), c_void_p(), []
        self.skipped_packs = []  # (path, status name, message) of packs not used
        self._workspace = workspace  # kept alive: the handle holds its pointer
        self._args = capi.GemmArgs()
        self._args_ref = ctypes.byref(self._args)
        self._args_at = ctypes.addressof(self._args)
        self._ptrs = _PTRS.from_buffer(self._args, capi.GemmArgs.A.offset)
        self._scale_ptrs = _SCALES.from_buffer(self._args, capi.GemmArgs.scale_a.offset)
        self._gemm_ex = lib.cutec_gemm_ex
        self._gemm_ex_raw = capi.raw_gemm_ex()  # the same function taking plain addresses (cheaper conversions)
        self._hv = 0  # the handle's address (0 once closed: the call then fails as for a NULL handle)
        self._ends = 0  # args.group_ends as last set (a Python int is cheaper to compare than the field to set)
        self._scales = NO_SCALES  # args.scale_a .. amax as last set (NO_SCALES: zeros)
        self._lock = threading.Lock()
        try:
            capi.check(lib.cutec_runtime_create(byref(self._rt), device_index), self._rt,
                       f"cutec runtime on device {device_index}")
            capi.check(lib.cutec_gemm_create(self._rt, byref(self._h)), self._rt, "cutec_gemm_create")
            self._hv = self._h.value
            capi.check(lib.cutec_gemm_set_option(self._h, capi.OPT_HOST_BOUND_US, host_bound_us()), self._rt,
                       "CUTEC_HOST_BOUND_US")
            if cache_dir is not None:
                capi.check(lib.cutec_gemm_set_cache_dir(self._h, cache_dir.encode()), self._rt, "cache directory")
            for path in pack_paths() if packs is None else packs:
                self._use_pack(path)
            if workspace is not None:
                nbytes = workspace.numel() * workspace.element_size()
                capi.check(lib.cutec_gemm_set_workspace(self._h, workspace.data_ptr(), nbytes), self._rt, "workspace")
        except CutecError:
            self.close()
            raise

    def _use_pack(self, path):
        lib, pack = self.lib, c_void_p()
        st = lib.cutec_pack_load_file(self._rt, path.encode(), byref(pack))
        if st == capi.OK:
            self._packs.append(pack)
            capi.check(lib.cutec_gemm_use_pack(self._h, pack), self._rt, f"using pack {path}")
        elif capi.status_name(st) == "CUTEC_ERR_PACK_ARCH":  # packs for other GPUs travel together
            self.skipped_packs.append((path, "CUTEC_ERR_PACK_ARCH", lib.cutec_runtime_message(self._rt).decode()))
        else:
            capi.check(st, self._rt, f"loading pack {path}")

    def close(self):
        """Destroys the handle, the packs and the runtime (idempotent)."""
        lib = self.lib
        self._hv = 0
        if fast is not None:
            fast.clear()  # its calls hold this handle's address
        if self._h:
            lib.cutec_gemm_destroy(self._h)
            self._h = c_void_p()
        for pack in self._packs:
            lib.cutec_pack_unload(pack)
        self._packs = []
        if self._rt:
            lib.cutec_runtime_destroy(self._rt)
            self._rt = c_void_p()

    @property
    def pack_count(self):
        return len(self._packs)

    def set_option(self, option, value):
        capi.check(self.lib.cutec_gemm_set_option(self._h, option, value), self._rt, "cutec_gemm_set_option")

    def get_option(self, option):
        value = ctypes.c_longlong()
        capi.check(self.lib.cutec_gemm_get_option(self._h, option, byref(value)), self._rt, "cutec_gemm_get_option")
        return value.value

    def cublas_version(self):
        """cuBLASLt's version as the runtime loaded it (0: none)."""
        return self.lib.cutec_gemm_cublas_version(self._h)

    def message(self):
        return self.lib.cutec_runtime_message(self._rt).decode(errors="replace")

    def choice(self, plan):
        """The candidate the handle chose for the plan's class (its operands
        16-byte aligned), or None when the class has not been tuned here."""
        buf = ctypes.create_string_buffer(capi.CANDIDATE_NAME_LEN)
        st = self.lib.cutec_gemm_choice(self._h, plan.problem_ref(), buf, len(buf))
        return buf.value.decode() if st == capi.OK else None

    def run(self, plan, ptrs, stream, capturing=None, group_ends=0, scales=NO_SCALES):
        """cutec_gemm_ex over ptrs (A, B, D, C, bias, bias_row, aux; 0 where
        absent) on stream (an int, 0: the default stream); capturing: whether
        the stream is capturing a CUDA graph (None: asked of PyTorch, and only
        when the plan's class has not run on this handle); group_ends: a
        grouped plan's row ends (device int32), else 0; scales: (scale_a,
        scale_b, scale_d, amax) of an fp8 plan, else NO_SCALES."""
        A, B, D, C, bias, bias_row, aux = ptrs
        # None: every operand 16-byte aligned (the usual case, cheap to tell)
        aligns = None if (A | B | D | C | bias | bias_row | aux) & 15 == 0 else tuple(_align(p) for p in ptrs)
        key = (self, aligns)
        ready = key in plan.ready
        if not ready and capturing is None:
            capturing = _capturing()
        with self._lock:
            if not ready and capturing:
                self._refuse_untuned(plan, aligns)
            self._ptrs[:] = ptrs
            if group_ends != self._ends:
                self._args.group_ends = self._ends = group_ends
            if scales is not self._scales:  # plain calls pass NO_SCALES itself
                self._scale_ptrs[:] = self._scales = scales
            st = self._gemm_ex_raw(self._hv, plan._at or plan.problem_at(), self._args_at, stream)
            if st:  # not CUTEC_OK
                capi.check(st, self._rt)
            if not ready and not capturing:
                plan.ready.add(key)

    def _refuse_untuned(self, plan, aligns):
        # a class tuned with other scales, or loaded from disk, is fine when
        # the runtime has its decision: cutec_gemm_choice asks it (for
        # 16-byte aligned operands, hence only for those)
        if aligns is None and self.choice(plan) is not None:
            return
        f = plan.fields
        raise CutecError(
            "CUTEC_ERR_KERNEL_NOT_FOUND",
            f"cutec: no tuned kernel for this GEMM (M={f['m']} N={f['n']} K={f['k']}"
            f"{', batch ' + str(f['batch']) if f.get('batch') else ''}"
            f"{', groups ' + str(f['groups']) if f.get('groups') else ''}, "
            f"activation '{f.get('act', b'').decode() or 'identity'}') on cuda:{self.device_index} yet, and tuning "
            "cannot run during CUDA graph capture: run the model once outside the capture with the same shapes, "
            "strides and dtypes (a warm-up) before capturing")


def _capturing():
    import torch

    return torch.cuda.is_current_stream_capturing()


_devices = {}
_devices_lock = threading.Lock()


def device_gemm(index):
    """The shared DeviceGemm of cuda:index (created on first use)."""
    dg = _devices.get(index)
    if dg is None:
        import torch

        with _devices_lock:
            dg = _devices.get(index)
            if dg is None:
                workspace = torch.empty(WORKSPACE_BYTES, dtype=torch.uint8, device=torch.device("cuda", index))
                dg = _devices[index] = DeviceGemm(index, workspace=workspace)
    return dg


def reset():
    """Closes every device's handle (the next op creates a new one); for
    tests and for changing CUTEC_PACKS in a running process."""
    with _devices_lock:
        for dg in _devices.values():
            dg.close()
        _devices.clear()


atexit.register(reset)
