#include "numpy_rng.hpp"

#include "common.hpp"

namespace phz {
namespace {

// SeedSequence constants (numpy/random/bit_generator.pyx).
constexpr uint32_t INIT_A = 0x43b0d7e5u, MULT_A = 0x931e8875u;
constexpr uint32_t INIT_B = 0x8b51f9ddu, MULT_B = 0x58f38dedu;
constexpr uint32_t MIX_MULT_L = 0xca01f9ddu, MIX_MULT_R = 0x4973f715u;
constexpr int XSHIFT = 16;
constexpr int POOL = 4;

uint32_t hashmix(uint32_t value, uint32_t* hash_const) {
    value ^= *hash_const;
    *hash_const *= MULT_A;
    value *= *hash_const;
    value ^= value >> XSHIFT;
    return value;
}

uint32_t mix(uint32_t x, uint32_t y) {
    uint32_t r = MIX_MULT_L * x - MIX_MULT_R * y;
    r ^= r >> XSHIFT;
    return r;
}

// SeedSequence(seed).generate_state(8, uint32), i.e. generate_state(4, uint64) as 32-bit words.
void seed_sequence_state(uint64_t seed, uint32_t out[8]) {
    // _coerce_to_uint32_array(int): little-endian 32-bit words; 0 is one word.
    uint32_t entropy[2];
    int n = 0;
    uint64_t s = seed;
    do {
        entropy[n++] = uint32_t(s);
        s >>= 32;
    } while (s != 0);
    uint32_t pool[POOL];
    uint32_t hc = INIT_A;
    for (int i = 0; i < POOL; ++i) pool[i] = hashmix(i < n ? entropy[i] : 0u, &hc);
    for (int src = 0; src < POOL; ++src)
        for (int dst = 0; dst < POOL; ++dst)
            if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], &hc));
    // (entropy longer than the pool would be mixed in here; a uint64 is at most 2 words.)
    uint32_t hb = INIT_B;
    for (int i = 0; i < 8; ++i) {
        uint32_t v = pool[i % POOL];
        v ^= hb;
        hb *= MULT_B;
        v *= hb;
        v ^= v >> XSHIFT;
        out[i] = v;
    }
}

constexpr U128 PCG_MULT = {0x2360ED051FC65DA4ull, 0x4385DF649FCCF645ull};  // {hi, lo}

}  // namespace

NumpyPcg64::NumpyPcg64(uint64_t seed) {
    uint32_t w[8];
    seed_sequence_state(seed, w);
    const uint64_t v0 = uint64_t(w[0]) | uint64_t(w[1]) << 32, v1 = uint64_t(w[2]) | uint64_t(w[3]) << 32;
    const uint64_t v2 = uint64_t(w[4]) | uint64_t(w[5]) << 32, v3 = uint64_t(w[6]) | uint64_t(w[7]) << 32;
    const U128 initstate = {v0, v1};  // PCG_128BIT_CONSTANT(hi, lo)
    // pcg_setseq_128_srandom_r: inc = (initseq << 1) | 1 with initseq = {v2, v3}
    state = U128{};
    inc = U128{(v2 << 1) | (v3 >> 63), (v3 << 1) | 1};
    state = add(mul(state, PCG_MULT), inc);
    state = add(state, initstate);
    state = add(mul(state, PCG_MULT), inc);
}

uint64_t NumpyPcg64::next64() {
    state = add(mul(state, PCG_MULT), inc);  // step, then output the new state (XSL-RR)
    const uint64_t hi = state.hi, lo = state.lo;
    const unsigned rot = unsigned(hi >> 58);
    const uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((64 - rot) & 63));
}

uint32_t NumpyPcg64::next32() {
    if (has32) {
        has32 = false;
        return buf32;
    }
    const uint64_t n = next64();
    has32 = true;
    buf32 = uint32_t(n >> 32);
    return uint32_t(n);
}

double NumpyPcg64::random() { return double(next64() >> 11) * (1.0 / 9007199254740992.0); }

uint64_t NumpyPcg64::integers(uint64_t n) {
    const uint32_t rng = uint32_t(n - 1);  // numpy's inclusive range
    if (rng == 0) return 0;
    if (rng == 0xFFFFFFFFu) return next32();
    const uint32_t excl = rng + 1;
    uint64_t m = uint64_t(next32()) * excl;
    uint32_t leftover = uint32_t(m);
    if (leftover < excl) {
        const uint32_t threshold = (UINT32_MAX - rng) % excl;
        while (leftover < threshold) {
            m = uint64_t(next32()) * excl;
            leftover = uint32_t(m);
        }
    }
    return m >> 32;
}

uint64_t NumpyPcg64::interval(uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t v;
    if (max <= 0xffffffffull) {
        while ((v = (next32() & mask)) > max) {
        }
    } else {
        while ((v = (next64() & mask)) > max) {
        }
    }
    return v;
}

void numpy_deal(uint64_t seed, int n_wang, int* dealer, std::vector<int>* deck) {
    NumpyPcg64 rng(seed);
    if (*dealer < 0) *dealer = int(rng.integers(NUM_SEATS));
    deck->clear();
    for (int k = 0; k < NUM_KINDS; ++k)
        for (int j = 0; j < COPIES; ++j) deck->push_back(k);
    for (int j = 0; j < n_wang; ++j) deck->push_back(WANG);
    for (int i = int(deck->size()) - 1; i > 0; --i) {
        const int j = int(rng.interval(uint64_t(i)));
        std::swap((*deck)[i], (*deck)[j]);
    }
}

}  // namespace phz
