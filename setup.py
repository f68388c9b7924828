"""Build of the compiled core ``paohuzi_env._fast`` (C++17, pybind11); everything else is in
pyproject.toml.

The extension is optional: where no C++ compiler exists the install still succeeds and the
package runs on the Python engine (``paohuzi_env.fast.available()`` is then False, with one
warning at import). ``PAOHUZI_SANITIZE=1`` builds it with ``-fsanitize=address,undefined`` (CI's
sanitizer step); ``PAOHUZI_NO_EXT=1`` skips it.
"""

from __future__ import annotations

import glob
import os

from setuptools import setup

ext_modules = []
if not os.environ.get("PAOHUZI_NO_EXT"):
    try:
        from pybind11.setup_helpers import Pybind11Extension
    except ImportError:  # pybind11 is a build requirement; a plain `python setup.py` may lack it
        Pybind11Extension = None
    if Pybind11Extension is not None:
        flags = ["-O2"]
        link = []
        if os.environ.get("PAOHUZI_SANITIZE"):
            flags = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined"]
            link = ["-fsanitize=address,undefined"]
        ext_modules.append(Pybind11Extension(
            "paohuzi_env._fast",
            sorted(glob.glob("paohuzi_env/_core/*.cpp")),
            cxx_std=17,
            extra_compile_args=flags,
            extra_link_args=link,
            optional=True,  # a failed build leaves the pure-Python package working
        ))

setup(ext_modules=ext_modules)
