// Bit sets over the 20 kinds (bit k: kind k) of a hand's loose cards, for quick tests that
// would otherwise loop over the kinds: scoring.cpp's surely_no_win, chi.cpp's 吃 fit test.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "portable.hpp"

#if PHZ_HAVE_SSE2
#include <emmintrin.h>
#endif

namespace phz {

// The loose cards (a 坎, 3 or 4 of a kind, is not loose: R-GROUP-1): P has a copy, ONE / TWO /
// GE2 exactly one / two / at least two.
struct LooseBits {
    uint32_t P = 0, ONE = 0, TWO = 0, GE2 = 0;
};

inline LooseBits loose_bits(const Counts& hand) {
    LooseBits b;
#if PHZ_HAVE_SSE2
    static_assert(sizeof(hand[0]) == 4 && NUM_KINDS == 20, "five SSE2 loads of four ints");
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi32(1), two = _mm_set1_epi32(2),
                  three = _mm_set1_epi32(3);
    auto bits = [](__m128i m) { return uint32_t(_mm_movemask_ps(_mm_castsi128_ps(m))); };
    for (int i = 0; i < 5; ++i) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(hand.data() + 4 * i));
        v = _mm_and_si128(v, _mm_cmplt_epi32(v, three));  // a 坎 (3 or 4) is not loose
        b.P |= bits(_mm_cmpgt_epi32(v, zero)) << (4 * i);
        b.ONE |= bits(_mm_cmpeq_epi32(v, one)) << (4 * i);
        b.TWO |= bits(_mm_cmpeq_epi32(v, two)) << (4 * i);
        b.GE2 |= bits(_mm_cmpgt_epi32(v, one)) << (4 * i);
    }
#else
    for (int k = 0; k < NUM_KINDS; ++k) {
        const int n = hand[k] < 3 ? hand[k] : 0;
        b.P |= uint32_t(n > 0) << k;
        b.ONE |= uint32_t(n == 1) << k;
        b.TWO |= uint32_t(n == 2) << k;
        b.GE2 |= uint32_t(n >= 2) << k;
    }
#endif
    return b;
}

}  // namespace phz
