// The hand evaluator: a port of paohuzi_env.game.scoring.evaluate_counts (R-WIN-*, R-SCORE-*,
// R-WANG-4..7), memoised like the Python one.
#pragma once

#include <memory>
#include <optional>

#include "common.hpp"
#include "rules.hpp"

namespace phz {

struct Win {  // scoring.Win
    int huxi = 0, tun = 0, fan = 0, score = 0;
    std::vector<std::string> names;   // UTF-8, in the Python order
    std::vector<Group> groups;        // table groups then hand groups, as Python
    int red = 0, big = 0, small = 0;
    std::vector<std::pair<int, int>> wang_as;  // (group index, kind)
};

struct EvalArgs {
    bool self_drawn = false, haidi = false, tianhu = false, dihu = false, from_discard = false;
    int wang = 0;
};

// evaluate_counts(hand, melds, win_card, rules, ...): `melds` sorted as Python sorts them
// (Group::operator<); win_card -1 for None. Returns the same Win as Python, or nullptr.
// The returned pointer is owned by the memo (valid for the life of the process).
//
// Precisely: the memo keeps at least the WIN_MEMO_CAP (2^14) most recent distinct answers (two
// generations of WIN_MEMO_CAP), so a returned pointer stays valid for at least WIN_MEMO_CAP further
// calls with other inputs (fewer after set_scoring_memo_caps with a smaller cap), and until
// clear_scoring_caches(); copy what you need before holding it longer (the engine copies at once).
// (Inputs eval_key cannot encode, which the engine never makes, keep their answer only until
// the next such call.)
// Throws std::invalid_argument (pybind11: ValueError) on hand counts outside 0..4, meld cards
// outside 0..19, win_card outside -1..19, or a.wang outside 0..rules.wang.
// Thread safety: one internal mutex; calls from several threads are serialised.
const Win* evaluate(const Counts& hand, const std::vector<Group>& melds, int win_card,
                    const Rules& rules, const EvalArgs& a);

// True only when evaluate() would return nullptr for these arguments (a quick, sound test that
// most holdings that cannot win fail; false says nothing). The arguments must be valid (as
// evaluate() checks them): the engine asks it before it gathers its table groups.
bool surely_loses(const Counts& hand, int win_card, const EvalArgs& a);

// The kinds c for which surely_loses(hand, c, a) can be false when a.wang is 0 (bit c): every
// other card surely does not win this holding, whatever the flags (a forced 天胡 has no card).
uint32_t maybe_winning_cards(const Counts& hand);

// Whether the holding wins, and its score in *score: evaluate()'s answer without its memo of
// whole answers (for callers that memoise above it, as the bots' win_scores does: a lookup in
// a large table that mostly misses costs more than it saves). The decomposition memos are used.
// evaluate()'s argument checks alone (std::invalid_argument naming what is allowed).
void check_eval_args(const Counts& hand, const std::vector<Group>& melds, int win_card);

// Throws as evaluate() for bad input. `screened`: the caller has checked the arguments and
// asked surely_loses (or maybe_winning_cards) already; both are then skipped.
bool evaluate_score(const Counts& hand, const std::vector<Group>& melds, int win_card,
                    const Rules& rules, const EvalArgs& a, int* score, bool screened = false);

void clear_scoring_caches();

// The built-in memo caps, in entries. Memo caps change speed only, never answers. They are far
// below the Python lru_caches' maxsizes (2^20, 2^16, 2^18, which were the caps before), so that
// every table reaches its largest size within the first ~10% of a long run (the soak's warm-up:
// `python -m paohuzi_env.dev.bench soak`) and the resident memory is flat after that. At these caps
// the tables hold some tens of MiB at most; the compiled expert and search ran as fast as with
// the old caps, within the measurement noise (docs/hardening.md: the sizes and the figures).
constexpr size_t SOLVE_MEMO_CAP = size_t(1) << 16;  // _solve (emptied with _solve_wild past it)
constexpr size_t WILD_MEMO_CAP = size_t(1) << 12;   // _solve_wild
constexpr size_t WIN_MEMO_CAP = size_t(1) << 14;    // whole answers, per generation (two kept);
                                                    // also the binding's cache of Python Wins
// The memo tables' sizes (entries; 0: the built-in caps above). Small caps exercise the
// eviction paths in tests.
void set_scoring_memo_caps(size_t solve, size_t wild, size_t win);

// The canonical memo key of one evaluate() call (added: the binding keys its cache of Python
// Win objects on it). eval_key returns false for inputs it cannot encode (more than 8 melds,
// a meld that is no valid group, counts above 7); such calls are not memoised.
struct EvalKey {
    uint64_t hand = 0, melds = 0;
    uint32_t misc = 0, rules_id = 0;
    bool operator==(const EvalKey& o) const {
        return hand == o.hand && melds == o.melds && misc == o.misc && rules_id == o.rules_id;
    }
};
struct EvalKeyHash {
    size_t operator()(const EvalKey& k) const {
        uint64_t x = k.hand * 0x9E3779B97F4A7C15ull ^ k.melds * 0xC2B2AE3D27D4EB4Full ^
                     (uint64_t(k.misc) << 32 | k.rules_id) * 0x165667B19E3779F9ull;
        x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
        return size_t(x);
    }
};
bool eval_key(const Counts& hand, const std::vector<Group>& melds, int win_card,
              const Rules& rules, const EvalArgs& a, EvalKey* out);
// The same with `rules_id` as given (no lock needed: content_id is not consulted).
bool eval_key_tagged(const Counts& hand, const std::vector<Group>& melds, int win_card,
                     const EvalArgs& a, uint32_t rules_id, EvalKey* out);

}  // namespace phz
