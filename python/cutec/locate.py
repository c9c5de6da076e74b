"""Where the runtime library, the kernel packs and the binaries come from.

Run-time variables win over what the package bundles (scripts/stage.py puts
a cutec install into cutec/_bundle/ before the wheel is built):
  CUTEC_LIB      path of libcutec_rt.so
  CUTEC_PACKS    pack files and directories of packs (*.pack), separated by ':'
  CUTEC_BIN_DIR  directory holding the `cutec` and `cutec-tune` binaries
"""
import os


def bundle_dir():
    """The directory the package bundles its runtime, packs and binaries in."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bundle")


def library_path():
    """libcutec_rt.so: $CUTEC_LIB, else the bundled one; None where neither is."""
    env = os.environ.get("CUTEC_LIB")
    if env:
        return env
    bundled = os.path.join(bundle_dir(), "lib", "cutec", "libcutec_rt.so")
    return bundled if os.path.isfile(bundled) else None


def _expand(entries):
    out = []
    for e in entries:
        if os.path.isdir(e):
            out += sorted(os.path.join(e, f) for f in os.listdir(e) if f.endswith(".pack"))
        elif e:
            out.append(e)
    return out


def pack_paths():
    """The kernel packs to use: $CUTEC_PACKS, else the bundled ones."""
    env = os.environ.get("CUTEC_PACKS")
    if env is not None:
        return _expand(env.split(os.pathsep))
    return _expand([os.path.join(bundle_dir(), "packs")])


def binary_path(name):
    """A bundled binary (`cutec`, `cutec-tune`): $CUTEC_BIN_DIR/name, else the
    bundle's; None where it is absent.  PATH is not searched: there the name
    is this package's own console script."""
    env = os.environ.get("CUTEC_BIN_DIR")
    for d in ([env] if env else []) + [os.path.join(bundle_dir(), "bin")]:
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None
