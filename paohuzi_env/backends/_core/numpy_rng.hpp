// numpy's default generator, bit for bit, for the one thing the engine draws with it: the deal of
// `numpy.random.default_rng(seed)` for an int seed (R-DEAL-1/4, R-WANG-2), as
// paohuzi_env.game.engine.draw_deal does it — the dealer first (`integers(3)`), then
// `permutation(deck)`. So fast.Game(rules, seed=s) deals the hand engine.Game(rules, seed=s) deals
// without a round trip through numpy (whose seeding costs ~40 µs a hand).
//
// What is ported (numpy 1.17+, unchanged since; tests/test_fast_engine.py checks it against the
// installed numpy on many seeds):
// * SeedSequence(entropy).generate_state(4, uint64): the entropy as little-endian 32-bit words,
//   mixed into a 4-word pool (hashmix/mix, O'Neill's seed_seq_fe), then 8 output words;
// * PCG64 seeded from those words (state words 0-1, increment words 2-3; pcg64_set_seed) and its
//   XSL-RR 128/64 output, with numpy's buffered 32-bit draws (next_uint32 hands out the low half
//   of a 64-bit draw, then the high half);
// * Generator.integers(0, n) for small n: Lemire's method on 32-bit draws;
// * Generator.shuffle of a 1-d array: Fisher-Yates from the end, j = random_interval(i) (masked
//   rejection on 32-bit draws).
#pragma once

#include <cstdint>
#include <vector>

#include "portable.hpp"

namespace phz {

// numpy.random.PCG64 with its buffered 32-bit draws. Seeded from an int (numpy_deal) or loaded
// from an explicit state (the search takes `Generator.bit_generator.state` in and hands the
// advanced state back: bind_search.cpp).
struct NumpyPcg64 {
    NumpyPcg64() = default;               // the zero state; set the fields below to load one
    explicit NumpyPcg64(uint64_t seed);  // numpy.random.default_rng(seed) for 0 <= seed < 2**64
    uint64_t next64();
    uint32_t next32();
    double random();                     // Generator.random(): a 53-bit double in [0, 1)
    uint64_t integers(uint64_t n);       // Generator.integers(n) for 1 <= n <= 2**32
    uint64_t interval(uint64_t max);     // random_interval: uniform in [0, max]

    U128 state, inc;  // 128-bit PCG state and increment (portable.hpp)
    bool has32 = false;
    uint32_t buf32 = 0;
};

// The (dealer, deck) engine.draw_deal draws from default_rng(seed): `dealer` < 0 draws it,
// otherwise it is kept and only the deck is drawn. The deck: 80 kind ids then `n_wang` 王.
void numpy_deal(uint64_t seed, int n_wang, int* dealer, std::vector<int>* deck);

}  // namespace phz
