// 吃/比 legality: a port of paohuzi_env/chi.py (RULES.md section 6: R-CHI-1..4, R-CHOU-4;
// R-GROUP-1, R-GROUP-3). Every function names the Python one it ports.
//
// Memo: bi_completable is memoised like the Python lru_cache, in a hash map on the packed counts
// (3 bits a kind), a flat table (flat.hpp); chi_groups is not (random hands seldom repeat; its
// recursion is). One mutex guards the map (taken once per public call), so calls from several
// threads are safe; the map is emptied when it outgrows its cap.
#include "chi.hpp"

#include <mutex>

#include "flat.hpp"

namespace phz {

namespace {

// Key of a memo entry: the counts packed 3 bits a kind (a count above 7 is not memoised), and
// the small arguments.
struct Key {
    uint64_t packed = 0;
    uint32_t rest = 0;
    bool operator==(const Key& o) const { return packed == o.packed && rest == o.rest; }
};
struct KeyHash {
    size_t operator()(const Key& k) const {
        uint64_t x = k.packed ^ (uint64_t(k.rest) * 0x9E3779B97F4A7C15ull);
        x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29;
        return size_t(x);
    }
};

bool pack3(const Counts& c, uint64_t* out) {
    uint64_t p = 0;
    for (int k = 0; k < NUM_KINDS; ++k) {
        if (c[k] < 0 || c[k] > 7) return false;
        p |= uint64_t(c[k]) << (3 * k);
    }
    *out = p;
    return true;
}

constexpr size_t CAP = size_t(1) << 16;  // the Python lru_cache maxsize

std::mutex mu;
FlatMap<Key, bool, KeyHash> bi_memo;

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

// chi.bi_completable (the recursion; the caller holds `mu`).
bool bi_completable_locked(const Counts& u, int c, bool keep_one) {
    if (u[c] == 0) {
        if (!keep_one) return true;
        for (int n : u) if (n) return true;  // any(usable)
        return false;
    }
    uint64_t packed = 0;
    const bool memo = pack3(u, &packed);
    const Key key{packed, uint32_t(c) << 1 | uint32_t(keep_one)};
    if (memo) {
        if (const bool* hit = bi_memo.find(key)) return *hit;
    }
    bool result = false;
    for (int a : GROUPS_WITH[c]) {
        const Counts& g = GROUP_COUNTS[a - GROUP_BASE];
        bool ok = true;
        for (int k : CHI_GROUPS[a - GROUP_BASE])
            if (u[k] < g[k]) { ok = false; break; }
        if (ok && bi_completable_locked(take(u, g), c, keep_one)) { result = true; break; }
    }
    if (memo) bi_memo.insert(key, result);
    return result;
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
        if (bi_completable_locked(take(u, need), c, keep_one)) legal->push_back(a);
    }
    if (fits) *fits = any_fits;
}

void check_caps() {
    if (bi_memo.size() > CAP) bi_memo.clear();
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
    std::lock_guard<std::mutex> lock(mu);
    check_caps();
    return bi_completable_locked(u, c, keep_one);
}

// chi.chi_groups (lru_cache): legal 吃 groups of the offered card c (R-CHI-1..4) and whether any
// group could hold c at all (R-CHOU-4).
void chi_groups_into(const Counts& hand, int c, bool owes_after, bool* fits, std::vector<int>* out) {
    out->clear();
    // Most offers fit no group of the hand at all: answered without the memo (the same answer
    // next_groups gives: nothing legal, nothing fits).
    bool any = false;
    for (int a : GROUPS_WITH[c]) {
        const Counts& g = GROUP_COUNTS[a - GROUP_BASE];
        bool ok = true;
        for (int k : CHI_GROUPS[a - GROUP_BASE]) {
            const int have = hand[k] < 3 ? hand[k] : 0;  // usable(): no 坎 card
            if (have < g[k] - (k == c)) { ok = false; break; }
        }
        if (ok) { any = true; break; }
    }
    if (!any) {
        if (fits) *fits = false;
        return;
    }
    // Not memoised on the whole hand (random hands seldom repeat, and a miss in a large table
    // costs more than the search): the 比 recursion below is, and it returns at once when the
    // hand holds no copy of c (the common case).
    std::lock_guard<std::mutex> lock(mu);
    check_caps();
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
    std::lock_guard<std::mutex> lock(mu);
    check_caps();
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

void clear_chi_caches() {
    std::lock_guard<std::mutex> lock(mu);
    bi_memo.clear(true);  // released, not only emptied
}

}  // namespace phz
