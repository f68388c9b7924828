// Many hands stepped per call (VectorGame), the seeded generator of the core, and playouts.
//
// A VectorGame holds n live hands. observe() writes each hand's acting seat's observation
// (paohuzi-obs-v1/v2), action mask, seat and decision kind; step() applies one action per hand,
// returns the finished hands' rewards (paohuzi_env.encode.rewards modes) and deals them afresh.
//
// Deals: deal number i (0, 1, 2, ...) of seed s is a function of (s, i) alone (splitmix64
// keyed by both; the dealer first, then a Fisher-Yates shuffle), and slots take the next deal
// number when they (re)start, so the same seed gives the same sequence of deals whatever the
// batch size. A deal that ends at the deal itself (R-START-1's forced 天胡: nobody decides
// anything) is dealt past and counted in skipped_deals(). The random actions are keyed by (seed,
// deal number, decisions so far in the hand), so a deal plays the same whatever the batch.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "bots.hpp"
#include "engine.hpp"
#include "observation.hpp"
#include "portable.hpp"

namespace phz {

// The bots may not be linked into the extension yet: weak references, tested by bots_linked().
PHZ_WEAK int greedy_action(const View& v, const Rules& rules);
PHZ_WEAK int expert_action(const View& v, const Rules& rules);
inline bool bots_linked() { return &greedy_action != nullptr && &expert_action != nullptr; }

// splitmix64 (Steele, Lea, Flood 2014): the core's only generator, keyed by up to three numbers.
class Rng {
public:
    Rng(uint64_t seed, uint64_t a, uint64_t b, uint64_t tag);
    uint64_t next();
    uint32_t below(uint32_t n);  // uniform in [0, n), n > 0 (Lemire, unbiased)

private:
    uint64_t s_;
};

// The deck and dealer of deal number `index` under `seed` (R-DEAL-1/4, R-WANG-2).
void make_deal(uint64_t seed, uint64_t index, int n_wang, std::vector<int>* deck, int* dealer);

enum RewardMode : int { RW_SCORE, RW_WIN, RW_NORMALIZED };
// rewards.reward_from_scores for the three seats, as float32.
void rewards_of(const Result& r, RewardMode mode, float* out3);

enum Policy : int { P_RANDOM, P_GREEDY, P_EXPERT };
// The compiled bots by name: the one table the binding reads policy, rollout and prior names
// from, exported as _fast.POLICIES. Its Python twin is paohuzi_env/bots/registry.py (the bots
// with compiled=True); tests/test_bot_registry.py checks that both list the same names.
struct PolicyName {
    const char* name;
    Policy policy;
};
inline constexpr PolicyName POLICY_NAMES[] = {{"random", P_RANDOM}, {"greedy", P_GREEDY}, {"expert", P_EXPERT}};
// The action of `policy` for g's acting seat. P_RANDOM draws from Rng(seed, deal, decisions
// so far, tag 2). `scratch` holds the view for the bots. Throws std::logic_error if the bots are
// not linked, std::invalid_argument if the hand is over.
int policy_action(const Game& g, Policy policy, uint64_t seed, uint64_t deal, View* scratch);
// Play `g` to its end with `policy` (random actions keyed as above).
void playout(Game* g, Policy policy, uint64_t seed, uint64_t deal);

class VectorGame {
public:
    VectorGame(int num_hands, std::shared_ptr<const Rules> rules, uint64_t seed, RewardMode mode);

    int size() const { return int(games_.size()); }
    int obs_size() const { return phz::obs_size(*rules_); }
    int state_size() const { return phz::state_size(*rules_); }
    const Rules& rules() const { return *rules_; }
    const std::shared_ptr<const Rules>& rules_ptr() const { return rules_; }
    uint64_t seed() const { return seed_; }
    RewardMode reward_mode() const { return mode_; }

    // Any pointer may be null (that output is skipped). obs: (n, obs_size), mask: (n, 61),
    // seat/decision: (n,).
    void observe(float* obs, int8_t* mask, int64_t* seat, int64_t* decision) const;
    // The first hand whose action is illegal, or -1.
    int first_illegal(const int64_t* actions) const;
    // Apply one action per hand (all legal: check first_illegal). rewards: (n, 3), done: (n,).
    void step(const int64_t* actions, float* rewards, uint8_t* done);
    // random / greedy / expert action per hand; with `which` (n flags), only where it is set
    // (out is left as it is elsewhere).
    void actions_of(Policy p, int64_t* out, const uint8_t* which = nullptr) const;
    void state(float* out) const;                 // (n, state_size), relative to the acting seat
    // Play a copy of every hand to its end with `policy`; rewards (n, 3). The hands stay as
    // they are.
    void playout_all(Policy policy, uint64_t seed, float* rewards) const;
    // Where which[i] is set: a copy of hand i takes actions[i] (which must be legal: checked,
    // std::invalid_argument naming the hand otherwise), then `policy` plays it to its end;
    // rewards (n, 3) of that copy (rows where which[i] is 0 are left as they are). A duplicate
    // rollout on the same deck; the hands stay as they are.
    void playout_after(const int64_t* actions, const uint8_t* which, Policy policy, uint64_t seed,
                       float* rewards) const;

    const Game& hand(int i) const { return games_.at(i); }
    // Replace hand i (its rules must be this VectorGame's rule set, and it must be live).
    void set_hand(int i, const Game& g, uint64_t deal);
    uint64_t deal_index(int i) const { return deal_.at(i); }
    // The last finished hand of slot i (its deal number), if any.
    bool has_last(int i) const { return last_.at(i).has_value(); }
    const Game& last_hand(int i) const { return *last_.at(i); }
    uint64_t last_deal_index(int i) const { return last_deal_.at(i); }
    uint64_t deals_dealt() const { return next_deal_; }
    uint64_t skipped_deals() const { return skipped_; }
    uint64_t hands_finished() const { return finished_; }
    // The binding holds this while it works on the hands (the GIL is released then), so calls
    // from several Python threads on one VectorGame are serialised. A copy gets its own.
    std::mutex& mutex() const { return *lock_.m; }

private:
    Game fresh(uint64_t* deal);

    std::shared_ptr<const Rules> rules_;
    uint64_t seed_;
    RewardMode mode_;
    std::vector<Game> games_;
    std::vector<uint64_t> deal_;
    std::vector<std::optional<Game>> last_;
    std::vector<uint64_t> last_deal_;
    uint64_t next_deal_ = 0, skipped_ = 0, finished_ = 0;
    std::vector<int> deck_scratch_;
    struct Lock {
        std::unique_ptr<std::mutex> m{new std::mutex};
        Lock() = default;
        Lock(const Lock&) : m(new std::mutex) {}
        Lock& operator=(const Lock&) { return *this; }
    };
    mutable Lock lock_;
};

}  // namespace phz
