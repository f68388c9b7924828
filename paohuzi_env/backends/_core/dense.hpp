// The inner loop of the compiled networks' dense layers (netpolicy.cpp, chance.cpp), which add
// one row of transposed weights per non-zero input.
#pragma once

#include <cstddef>

namespace phz {

// The block length of axpy (netpolicy.cpp pads its layers to a multiple of it).
constexpr size_t DENSE_LANES = 8;

// y[0, n) += a x[0, n). In blocks of DENSE_LANES through unaliased pointers: at the build's -O2
// (setup.py) GCC's cheap vectoriser neither versions a loop for aliasing nor adds an epilogue,
// so a plain loop over n stays scalar, while a block of fixed length becomes SIMD; the tail (none
// when n is a multiple of DENSE_LANES) one value at a time. The same sums as the plain loop.
inline void axpy(float* __restrict y, const float* __restrict x, float a, size_t n) {
    const size_t blocks = n / DENSE_LANES * DENSE_LANES;
    for (size_t i = 0; i < blocks; i += DENSE_LANES)
        for (size_t k = 0; k < DENSE_LANES; ++k) y[i + k] += a * x[i + k];
    for (size_t i = blocks; i < n; ++i) y[i] += a * x[i];
}

}  // namespace phz
