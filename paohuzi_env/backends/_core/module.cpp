// The extension module paohuzi_env._fast: each part of the core binds itself.
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace phz {
void bind_scoring(py::module_& m);
void bind_engine(py::module_& m);
void bind_bots(py::module_& m);
void bind_search(py::module_& m);
void bind_chance(py::module_& m);
}  // namespace phz

PYBIND11_MODULE(_fast, m) {
    m.doc() = "paohuzi-env compiled core (see paohuzi_env.backends.fast for the Python API)";
    phz::bind_scoring(m);
    phz::bind_engine(m);
    phz::bind_bots(m);
    phz::bind_search(m);
    phz::bind_chance(m);
}
