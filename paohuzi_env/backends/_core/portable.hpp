// What the core needs beyond standard C++17, each with a portable fallback: bit scans and
// counts, a 64x64 -> 128-bit multiply, SSE2 detection and weak symbols. GCC and Clang use their
// builtins, MSVC its intrinsics, anything else plain C++. Defining PHZ_PORTABLE_ONLY selects the
// plain C++ of every helper (tests/test_portable.py compiles both and compares them).
#pragma once

#include <cstdint>

#if defined(_MSC_VER) && !defined(__clang__) && !defined(PHZ_PORTABLE_ONLY)
#include <intrin.h>
#endif

// SSE2: always there on x86-64 (GCC/Clang define __SSE2__; MSVC defines _M_X64, or
// _M_IX86_FP >= 2 on 32-bit x86 with /arch:SSE2); never on ARM, where bits.hpp loops instead.
#if !defined(PHZ_PORTABLE_ONLY) && \
    (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define PHZ_HAVE_SSE2 1
#else
#define PHZ_HAVE_SSE2 0
#endif

// A weak declaration (a part of the core that may be absent at link time) where the toolchain
// has them (ELF and Mach-O); elsewhere (MSVC) a plain declaration: every part is then required.
#if defined(__GNUC__) || defined(__clang__)
#define PHZ_WEAK __attribute__((weak))
#else
#define PHZ_WEAK
#endif

namespace phz {

// The index of the lowest set bit; x must not be 0.
inline int ctz32(uint32_t x) {
#if (defined(__GNUC__) || defined(__clang__)) && !defined(PHZ_PORTABLE_ONLY)
    return __builtin_ctz(x);
#elif defined(_MSC_VER) && !defined(PHZ_PORTABLE_ONLY)
    unsigned long i;
    _BitScanForward(&i, x);
    return int(i);
#else
    int n = 0;
    while (!(x & 1u)) {
        x >>= 1;
        ++n;
    }
    return n;
#endif
}

inline int ctz64(uint64_t x) {
#if (defined(__GNUC__) || defined(__clang__)) && !defined(PHZ_PORTABLE_ONLY)
    return __builtin_ctzll(x);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64)) && !defined(PHZ_PORTABLE_ONLY)
    unsigned long i;
    _BitScanForward64(&i, x);
    return int(i);
#else
    const uint32_t lo = uint32_t(x);
    return lo ? ctz32(lo) : 32 + ctz32(uint32_t(x >> 32));
#endif
}

// The number of set bits.
inline int popcount32(uint32_t x) {
#if (defined(__GNUC__) || defined(__clang__)) && !defined(PHZ_PORTABLE_ONLY)
    return __builtin_popcount(x);
#else  // SWAR (MSVC's __popcnt needs the POPCNT instruction, which not every x86-64 has)
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return int((x * 0x01010101u) >> 24);
#endif
}

// a * b as 128 bits: the low 64 returned, the high 64 in *hi.
inline uint64_t mul_64x64_128(uint64_t a, uint64_t b, uint64_t* hi) {
#if defined(__SIZEOF_INT128__) && !defined(PHZ_PORTABLE_ONLY)
    __extension__ typedef unsigned __int128 u128;  // __extension__: no -Wpedantic warning
    const u128 p = u128(a) * b;
    *hi = uint64_t(p >> 64);
    return uint64_t(p);
#elif defined(_MSC_VER) && defined(_M_X64) && !defined(PHZ_PORTABLE_ONLY)
    return _umul128(a, b, hi);
#else
    const uint64_t a0 = uint32_t(a), a1 = a >> 32, b0 = uint32_t(b), b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + uint32_t(p01) + uint32_t(p10);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return (mid << 32) | uint32_t(p00);
#endif
}

// An unsigned 128-bit integer with the operations PCG64 needs (numpy_rng.cpp), all mod 2**128.
struct U128 {
    uint64_t hi = 0, lo = 0;
};

inline U128 add(U128 a, U128 b) {
    U128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo ? 1 : 0);
    return r;
}

inline U128 mul(U128 a, U128 b) {
    U128 r;
    r.lo = mul_64x64_128(a.lo, b.lo, &r.hi);
    r.hi += a.hi * b.lo + a.lo * b.hi;
    return r;
}

}  // namespace phz
