"""cutec: the runtime of the cutec GEMM compiler from Python.

`cutec.capi` loads libcutec_rt (ctypes) and mirrors its C structs;
`cutec.torch` holds the PyTorch ops (imported on demand, so that this
package imports without PyTorch).  docs/python.md is the manual.
"""
from .errors import CutecError
from .locate import bundle_dir, library_path, pack_paths

__version__ = "0.1.0"
__all__ = ["CutecError", "bundle_dir", "library_path", "pack_paths", "__version__"]
