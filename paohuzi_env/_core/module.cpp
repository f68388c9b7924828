// The extension module paohuzi_env._fast: each part of the core binds itself.
#include <pybind11/pybind11.h>

#include "portable.hpp"

namespace py = pybind11;

namespace phz {
// Parts not yet built are weak (absent) while the core is assembled.
PHZ_WEAK void bind_scoring(py::module_& m);
PHZ_WEAK void bind_engine(py::module_& m);
PHZ_WEAK void bind_bots(py::module_& m);
}  // namespace phz

PYBIND11_MODULE(_fast, m) {
    m.doc() = "paohuzi-env compiled core (see paohuzi_env.fast for the Python API)";
    if (phz::bind_scoring) phz::bind_scoring(m);
    if (phz::bind_engine) phz::bind_engine(m);
    if (phz::bind_bots) phz::bind_bots(m);
}
