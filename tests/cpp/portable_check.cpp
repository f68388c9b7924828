// Prints what the core's portable helpers compute (tests/test_portable.py): compiled once as is
// and once with -DPHZ_PORTABLE_ONLY (the plain C++ fallbacks), the two outputs must agree, and
// the deals must be numpy's.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "bits.hpp"
#include "numpy_rng.hpp"
#include "portable.hpp"

int main() {
    std::printf("sse2 %d\n", PHZ_HAVE_SSE2);
    uint64_t x = 0x9E3779B97F4A7C15ull, sum = 0;
    for (int i = 0; i < 200000; ++i) {  // splitmix64 inputs
        x += 0x9E3779B97F4A7C15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        const uint64_t v = z >> (i % 64);  // every bit width
        uint64_t hi = 0;
        const uint64_t lo = phz::mul_64x64_128(z, v | 1, &hi);
        sum = sum * 31 + uint64_t(phz::popcount32(uint32_t(v))) + 7 * hi + 13 * lo;
        if (v != 0) sum = sum * 31 + uint64_t(phz::ctz64(v));
        if (uint32_t(v) != 0) sum = sum * 31 + uint64_t(phz::ctz32(uint32_t(v)));
        phz::Counts hand{};
        for (int k = 0; k < phz::NUM_KINDS; ++k) hand[k] = int((z >> (2 * k)) % 5);
        const phz::LooseBits b = phz::loose_bits(hand);
        sum = sum * 31 + b.P + 3ull * b.ONE + 5ull * b.TWO + 7ull * b.GE2;
    }
    std::printf("sum %llu\n", static_cast<unsigned long long>(sum));
    for (uint64_t seed : {0ull, 1ull, 7ull, 123456789ull, 18446744073709551615ull}) {
        for (int n_wang : {0, 2}) {
            int dealer = -1;
            std::vector<int> deck;
            phz::numpy_deal(seed, n_wang, &dealer, &deck);
            std::printf("deal %llu %d %d", static_cast<unsigned long long>(seed), n_wang, dealer);
            for (int k : deck) std::printf(" %d", k);
            std::printf("\n");
        }
    }
    return 0;
}
