"""Build of the compiled core ``paohuzi_env._fast`` (C++17, pybind11); everything else is in
pyproject.toml.

The extension is optional: where no C++ compiler exists the install still succeeds and the
package runs on the Python engine (``paohuzi_env.backends.fast.available()`` is then False, with one
warning at import).

Flags per compiler (pybind11's ``Pybind11Extension`` adds the C++17 switch, ``/EHsc`` and
``/bigobj`` on MSVC, hidden visibility elsewhere): MSVC ``/O2 /utf-8`` (the sources hold UTF-8
string literals), GCC and Clang ``-O2``. The sources compile in parallel, one job per CPU
(``PAOHUZI_BUILD_JOBS=N`` for N jobs).

Environment switches:

* ``PAOHUZI_WERROR=1``: GCC/Clang only, adds ``-Wall -Wextra -Werror`` (CI's warning check);
  a warning then fails the build (otherwise a failed build is skipped);
* ``PAOHUZI_SANITIZE=1``: ``-O0 -g -fsanitize=address,undefined`` (CI's sanitizer step);
* ``PAOHUZI_NO_EXT=1``: no extension.
"""

from __future__ import annotations

import glob
import os

from setuptools import setup

ext_modules = []
cmdclass = {}
if not os.environ.get("PAOHUZI_NO_EXT"):
    try:
        from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
    except ImportError:  # pybind11 is a build requirement; a plain `python setup.py` may lack it
        Pybind11Extension = None
    if Pybind11Extension is not None:
        ParallelCompile("PAOHUZI_BUILD_JOBS", default=0).install()

        class BuildExt(build_ext):
            """Adds the flags of the compiler in use (known only once the build runs)."""

            def build_extensions(self) -> None:
                if self.compiler.compiler_type == "msvc":
                    flags, link = ["/O2", "/utf-8"], []
                else:
                    flags, link = ["-O2"], []
                    if os.environ.get("PAOHUZI_WERROR"):
                        flags += ["-Wall", "-Wextra", "-Werror"]
                    if os.environ.get("PAOHUZI_SANITIZE"):
                        flags = [f for f in flags if f != "-O2"]
                        # -O0: the ASan build of the pybind11 bindings takes a quarter of the
                        # time it takes at -O1 (1:35 against 5:38 on 2 cores), and -O0 hides
                        # nothing from the sanitizers
                        flags += ["-O0", "-g", "-fno-omit-frame-pointer",
                                  "-fsanitize=address,undefined"]
                        link = ["-fsanitize=address,undefined"]
                for ext in self.extensions:
                    ext.extra_compile_args = [*ext.extra_compile_args, *flags]
                    ext.extra_link_args = [*ext.extra_link_args, *link]
                super().build_extensions()

        cmdclass["build_ext"] = BuildExt
        ext_modules.append(Pybind11Extension(
            "paohuzi_env._fast",
            sorted(glob.glob("paohuzi_env/backends/_core/*.cpp")),
            cxx_std=17,
            # a failed build leaves the pure-Python package working; not so the warning check
            optional=not os.environ.get("PAOHUZI_WERROR"),
        ))

setup(ext_modules=ext_modules, cmdclass=cmdclass)
