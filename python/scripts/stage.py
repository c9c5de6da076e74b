"""Puts a cutec build into the package before its wheel is built (or before
the tree is used through PYTHONPATH): cutec/_bundle/ gets the runtime
library, the binaries, the compiler's standard library and kernel packs.

    python scripts/stage.py --prefix PREFIX [--pack FILE]...    # a `cmake --install` tree
    python scripts/stage.py --lib build/runtime/libcutec_rt.so \\
        [--bin build/runtime/cutec-tune]... [--pack FILE]...      # a build tree
    python scripts/stage.py --clean                               # empties the bundle

--dest DIR stages elsewhere than this tree's cutec/_bundle.  Layout: lib/cutec/libcutec_rt.so,
bin/cutec-tune and bin/cutec, share/cutec/ (the compiler's stdlib, where
the prefix has it: bin/cutec finds it at ../share/cutec), packs/*.pack.
"""
import argparse
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(src, dst)
    print(f"stage: {src} -> {dst}")


def main(argv):
    ap = argparse.ArgumentParser(description="stage a cutec build into the Python package")
    ap.add_argument("--prefix", help="an install prefix (cmake --install build --prefix PREFIX)")
    ap.add_argument("--lib", help="libcutec_rt.so of a build tree")
    ap.add_argument("--bin", action="append", default=[], help="a binary to bundle (cutec, cutec-tune)")
    ap.add_argument("--pack", action="append", default=[], help="a kernel pack to bundle (repeatable)")
    ap.add_argument("--dest", default=os.path.join(HERE, "cutec", "_bundle"), help="the bundle directory")
    ap.add_argument("--clean", action="store_true", help="empty the bundle first (alone: only that)")
    args = ap.parse_args(argv)
    if args.clean and os.path.isdir(args.dest):
        shutil.rmtree(args.dest)
        print(f"stage: removed {args.dest}")
    lib, bins, share = args.lib, list(args.bin), None
    if args.prefix:
        libs = [os.path.join(args.prefix, d, "cutec", "libcutec_rt.so") for d in ("lib", "lib64")]
        lib = lib or next((p for p in libs if os.path.isfile(p)), None)
        if lib is None:
            sys.exit(f"stage: no lib/cutec/libcutec_rt.so under {args.prefix} (an install of a build with the "
                     "shared runtime, cutec_rt_shared)")
        bins += [p for p in (os.path.join(args.prefix, "bin", b) for b in ("cutec", "cutec-tune")) if os.path.isfile(p)]
        share = os.path.join(args.prefix, "share", "cutec")
    if not (lib or bins or args.pack or args.clean):
        ap.error("nothing to stage: give --prefix, --lib, --bin or --pack")
    for f in [lib] + bins + args.pack:
        if f and not os.path.isfile(f):
            sys.exit(f"stage: {f}: no such file")
    if lib:
        _copy(lib, os.path.join(args.dest, "lib", "cutec", "libcutec_rt.so"))
    for b in bins:
        _copy(b, os.path.join(args.dest, "bin", os.path.basename(b)))
    if share and os.path.isdir(share):
        dst = os.path.join(args.dest, "share", "cutec")
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(share, dst)
        print(f"stage: {share} -> {dst}")
    for p in args.pack:
        _copy(p, os.path.join(args.dest, "packs", os.path.basename(p)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
