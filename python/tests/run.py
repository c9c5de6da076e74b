"""Runs unittest modules of python/tests for CTest: exit 0 when they pass, 1
when one fails, 77 (CTest's skip code) when a module they need is missing
or every test skipped itself.

    run.py [--need MODULE]... TEST_MODULE...
"""
import importlib
import os
import sys
import unittest


def main(argv):
    need, mods = [], []
    it = iter(argv)
    for a in it:
        if a == "--need":
            need.append(next(it))
        else:
            mods.append(a)
    for m in need:
        try:
            importlib.import_module(m)
        except Exception as e:  # ImportError, or a torch whose libraries are missing
            print(f"skipped: cannot import {m} ({type(e).__name__}: {e})")
            return 77
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    suite = unittest.defaultTestLoader.loadTestsFromNames(mods)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    # a test module skipped whole (no GPU) runs nothing: skipped, not passed
    return 77 if result.testsRun == len(result.skipped) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
