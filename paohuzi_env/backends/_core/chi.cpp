// 吃/比 legality: a port of paohuzi_env/game/chi.py (docs/rules.md section 6: R-CHI-1..4, R-CHOU-4;
// R-GROUP-1, R-GROUP-3). Every function names the Python one it ports.
//
// No memo: chi.py memoises bi_completable with an lru_cache, but here its recursion is cheaper
// than a lookup. Each level takes at least one copy of c, over the at most six groups that hold
// c, and a hand may use at most two (a 坎 is not usable): a call visits a few dozen counts at
// most. Everything here is a pure function of its arguments, safe from any thread.
#include "chi.hpp"

#include "bits.hpp"

namespace phz {

namespace {

// chi.GROUP_COUNTS
const std::array<Counts, NUM_GROUPS> GROUP_COUNTS = [] {
    std::array<Counts, NUM_GROUPS> out{};
    for (int i = 0; i < NUM_GROUPS; ++i) {
        out[i].fill(0);
        for (int k : CHI_GROUPS[i]) out[i][k] += 1;
    }
    return out;
}();

Counts take(const Counts& cards, const Counts& group) {  // chi.take
    Counts out;
    for (int k = 0; k < NUM_KINDS; ++k) out[k] = cards[k] - group[k];
    return out;
}

// chi.bi_completable (the recursion).
bool bi_completable_rec(const Counts& u, int c, bool keep_one) {
    if (u[c] == 0) {
        if (!keep_one) return true;
        for (int n : u) if (n) return true;  // any(usable)
        return false;
    }
    for (int a : GROUPS_WITH[c]) {
        const Counts& g = GROUP_COUNTS[a - GROUP_BASE];
        bool ok = true;
        for (int k : CHI_GROUPS[a - GROUP_BASE])
            if (u[k] < g[k]) { ok = false; break; }
        if (ok && bi_completable_rec(take(u, g), c, keep_one)) return true;
    }
    return false;
}

// chi._next_groups: the groups containing c that may be named next, and whether any fits.
void next_groups(const Counts& u, int c, bool keep_one, bool offered, bool* fits,
                 std::vector<int>* legal) {
    legal->clear();
    bool any_fits = false;
    for (int a : GROUPS_WITH[c]) {
        Counts need = GROUP_COUNTS[a - GROUP_BASE];
        if (offered) need[c] -= 1;
        bool ok = true;
        for (int k : CHI_GROUPS[a - GROUP_BASE])
            if (u[k] < need[k]) { ok = false; break; }
        if (!ok) continue;
        any_fits = true;
        if (bi_completable_rec(take(u, need), c, keep_one)) legal->push_back(a);
    }
    if (fits) *fits = any_fits;
}

// What a 吃 group of the offered card c needs of the usable cards, as bit sets of kinds: at
// least one copy (`one`) and at least two (`two`); one entry per group of GROUPS_WITH[c].
struct NeedBits {
    uint32_t one = 0, two = 0;
};

const std::array<std::vector<NeedBits>, NUM_KINDS>& need_bits() {
    static const std::array<std::vector<NeedBits>, NUM_KINDS> table = [] {
        std::array<std::vector<NeedBits>, NUM_KINDS> out;
        for (int c = 0; c < NUM_KINDS; ++c)
            for (int a : GROUPS_WITH[c]) {
                Counts need = GROUP_COUNTS[a - GROUP_BASE];
                need[c] -= 1;  // the offered card
                NeedBits n;
                for (int k = 0; k < NUM_KINDS; ++k) {
                    if (need[k] >= 1) n.one |= 1u << k;
                    if (need[k] >= 2) n.two |= 1u << k;
                }
                out[c].push_back(n);
            }
        return out;
    }();
    return table;
}

}  // namespace

// chi.usable: the hand's cards that may go into 吃/比 groups, no 坎 (R-GROUP-1, R-CHI-1).
Counts usable(const Counts& hand) {
    Counts out;
    for (int k = 0; k < NUM_KINDS; ++k) out[k] = hand[k] < 3 ? hand[k] : 0;
    return out;
}

// chi.bi_completable: can every copy of c in `usable` go out in 比 groups (R-CHI-2/3), with
// `keep_one` also leaving a card to discard (R-CHI-4)?
bool bi_completable(const Counts& u, int c, bool keep_one) {
    return bi_completable_rec(u, c, keep_one);
}

// chi.chi_groups (lru_cache): legal 吃 groups of the offered card c (R-CHI-1..4) and whether any
// group could hold c at all (R-CHOU-4).
void chi_groups_into(const Counts& hand, int c, bool owes_after, bool* fits, std::vector<int>* out) {
    out->clear();
    // Most offers fit no group of the hand at all: answered at once (the same answer next_groups
    // gives: nothing legal, nothing fits), on bit sets of the usable cards (no 坎 card).
    const LooseBits b = loose_bits(hand);
    bool any = false;
    for (const NeedBits& n : need_bits()[c])
        if ((n.one & ~b.P) == 0 && (n.two & ~b.GE2) == 0) {
            any = true;
            break;
        }
    if (!any) {
        if (fits) *fits = false;
        return;
    }
    // Not memoised (random hands seldom repeat, and a miss in a large table costs more than the
    // search); the 比 recursion below returns at once when the hand holds no other copy of c.
    bool f = false;
    next_groups(usable(hand), c, owes_after, true, &f, out);
    if (fits) *fits = f;
}

std::vector<int> chi_groups(const Counts& hand, int c, bool owes_after, bool* fits) {
    std::vector<int> out;
    chi_groups_into(hand, c, owes_after, fits, &out);
    return out;
}

// chi.bi_groups: the legal next 比 groups of a chain for c (R-CHI-2..4).
std::vector<int> bi_groups(const Counts& u, int c, bool owes_after) {
    std::vector<int> legal;
    next_groups(u, c, owes_after, false, nullptr, &legal);
    return legal;
}

// chi.chi_need: the hand cards a 吃 of c with group `action` uses (the group less c).
Counts chi_need(int action, int c) {
    Counts g = GROUP_COUNTS[action - GROUP_BASE];
    g[c] -= 1;
    return g;
}

// chi.GROUP_COUNTS[action - GROUP_BASE]
Counts group_counts(int action) { return GROUP_COUNTS[action - GROUP_BASE]; }

void clear_chi_caches() {}  // nothing to clear: no memo (see the top of this file)

}  // namespace phz
