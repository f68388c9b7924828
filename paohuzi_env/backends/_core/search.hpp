// The search agent in the core: a port of paohuzi_env.agents.search (determinised Monte Carlo).
//
// At a decision of seat `me` with a choice, worlds (complete deals) are sampled that agree with
// everything the seat knows — its own dealt cards and moves and every public fact of the hand —
// by dealing the unseen cards at random under the facts the rules make certain and keeping a
// deal only if replaying the hand's public course on it reproduces that course exactly. Each
// legal action is played out in every world with a bot in all seats, and the bot's own choice
// is left only for a gain whose lower confidence bound clears a margin.
//
// The Python module stays the readable reference (docs/SEARCH.md, design (a)): with the same
// generator state, knowledge(), sample_deck() and world() draw and decide exactly as
// _knowledge, _sample_deck and _world do (numpy's PCG64, Generator.choice/permutation/integers
// ported bit for bit), and search() with `prune` off takes the Python agent's decision, worlds,
// attempts and means (tests/test_fast_search.py). The options beyond the reference (pruning,
// threads) are documented on SearchOptions.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine.hpp"
#include "netpolicy.hpp"
#include "numpy_rng.hpp"
#include "vector.hpp"

namespace phz {

using Pcg64 = NumpyPcg64;  // numpy_rng.hpp

// A generator keyed by (seed, a, b) through splitmix64 (not numpy's seeding): the batched
// search's per-hand generators.
Pcg64 keyed_pcg64(uint64_t seed, uint64_t a, uint64_t b);

// What one seat knows at one decision (agents/search.py's _Knowledge).
struct Knowledge {
    int me = 0, dealer = 0, num_cards = 0, wall_pos = 0;
    std::vector<int> deck;                      // known positions hold their kind; others -1
    std::array<int, NUM_KINDS + 1> pool{};      // counts of the unseen cards (王 last)
    std::array<std::array<int, NUM_KINDS + 1>, 3> region_known{};
    std::array<std::vector<int>, 3> region_free;
    std::array<int, 3> hidden_size{};
    std::array<std::vector<int>, 3> hidden_wei;
    int force_liang = -1;
    std::array<std::array<int, NUM_KINDS>, 3> cap{};
    std::vector<int> holes;
    std::vector<Event> events;
    std::vector<int> mine;
    int decision = D_NONE;
    std::vector<int> legal;
    std::array<int, 2> others{};  // the two other seats, ascending
};

// The seat's knowledge in `real` (at `me`'s decision). Reads the full state only for public
// quantities and the seat's own cards (as _knowledge does).
Knowledge knowledge(const Game& real, int me);

// One deal consistent with the knowledge before the replay check (_sample_deck); false: gave up.
bool sample_deck(const Knowledge& kn, Pcg64& rng, std::vector<int>* deck, int tries = 20);

// Replay the public course on `deck` (_world): true and the game at the seat's decision in
// `out`, or false when the deck cannot have produced that course.
bool replay_world(const Knowledge& kn, const std::vector<int>& deck,
                  const std::shared_ptr<const Rules>& rules, Game* out);

// The opponent models a world can be weighted by (SearchOptions::weight).
enum WeightModel : int { W_NONE = 0, W_EXPERT = 1 };
// The default temperature of the softened expert (SearchOptions::weight_t), in the expert's own
// value units (bots.cpp: a group is worth 10, a hu xi point about 1).
constexpr double DEFAULT_WEIGHT_T = 5.0;

// The log-probability the softened expert gives the action `a` at `g`'s decision (its acting
// seat's view): log softmax(values / t)[a] over the legal actions, with the expert's own values
// (bots.hpp bot_action_values). 0 with a single legal action; -inf for an action the expert does
// not weigh (value -inf) while it weighs another; uniform (-log n) where it weighs none (its
// values all 0, as at a win on offer, or all -inf).
double expert_log_prob(const Game& g, int a, double t);

// The log-weight of the world `deck` (ln of the product, over the decisions another seat takes in
// the replay of the public course on it, of expert_log_prob at temperature t; the seat's own
// decisions are not weighted): true and the log-weight in `*logw`, with the number of weighted
// decisions (more than one legal action) in `*decisions` when given; false when the deck does
// not replay the course (replay_world).
bool world_log_weight(const Knowledge& kn, const std::vector<int>& deck,
                      const std::shared_ptr<const Rules>& rules, double t, double* logw,
                      int* decisions = nullptr);

struct SearchOptions {
    int samples = 32;       // worlds per decision
    int playouts = 256;     // at most this many playouts: fewer worlds with many actions (>= 2)
    Policy rollout = P_EXPERT;
    // A trained policy network (netpolicy.hpp) instead of `rollout`: it plays the worlds out in
    // every seat and gives the choice the search keeps unless an action clears the bar. It
    // must read the observation of the hand's rules (std::invalid_argument otherwise).
    std::shared_ptr<const NetPolicy> net;
    double z = 2.0;         // the significant-gain rule: mean gain - z se > margin
    double margin = 0.0;
    double budget_ms = 0.0; // stop sampling after this long (0: no limit)
    int tries = 8;          // sampled deals per wanted world
    // Beyond the reference. prune > 0: after every `prune` worlds, stop playing out an action
    // whose gain over the rollout bot's choice has an upper bound (mean + prune_z se) at or
    // below the margin — it can no longer be chosen in practice; the search ends when only the
    // bot's choice is left. 0: every action in every world (the reference).
    int prune = 0;
    double prune_z = 1.0;
    // With prune_bar, the bound is compared with the bar the action must clear at the end
    // (margin + z se at the worlds wanted, se estimated from the worlds so far) instead of the
    // margin alone: an action whose upper bound is below that bar would not be chosen.
    bool prune_bar = false;
    // top > 0: play out at most `top` actions: the rollout bot's choice and the next best by the
    // bot's own value of each action (bots.hpp bot_action_values; ties in legal order). The
    // others are never played (played 0, mean NaN). 0: every legal action (the reference). Not
    // with rollout random, which weighs no action.
    int top = 0;
    // Threads for the playouts of a round of worlds (the worlds are sampled in order on the
    // calling thread; results do not depend on the thread count).
    int threads = 1;
    // A guide network (beyond the reference): a trained policy (netpolicy.hpp) read once at the
    // decision. Its masked argmax is the choice the search keeps unless another candidate clears
    // the bar (the role the rollout bot's choice has otherwise), and the candidates played out
    // are that choice, the rollout's own choice, and every legal action the guide gives a
    // probability (softmax of its masked logits over the legal actions) of at least guide_p
    // (with rollout random, the rollout's choice is the first legal action, as it is without a
    // guide). When these are one action, it is taken with no world sampled, the generator
    // untouched. The worlds wanted are still min(samples, max(2, playouts / legal actions)), as
    // without a guide, so that a guide offering every action is the unguided search. Not with
    // `top`.
    std::shared_ptr<const NetPolicy> guide;
    double guide_p = 1.0;
    // A critic at the leaves (beyond the reference; truncated playouts): a candidate is played
    // on with the rollout only until `seat` is to act for the leaf_depth-th time after it, and
    // valued there by the critic (NetValue::value); a hand that ends first by its points
    // (NetValue::terminal: less the world's deal's expert points, one expert playout from the
    // deal, where the critic was trained against that baseline). The means and the margin are
    // then in the critic's points. The deal's points are the same for every candidate of a
    // world, so the differences the choice rests on are differences of points as without it.
    // It must read the observation of the hand's rules (std::invalid_argument otherwise).
    std::shared_ptr<const NetValue> leaf;
    int leaf_depth = 1;
    // Worlds weighted by the opponents' observed decisions (beyond the reference; docs/SEARCH.md,
    // "Weighted worlds"). W_NONE (default): every world counts the same, the reference's
    // statistics untouched. W_EXPERT: world i gets w_i = exp(world_log_weight at weight_t) (the
    // generator is not touched: the worlds are the unweighted search's), and every mean and
    // standard error below — the gains the choice and the pruning rest on, the reported means
    // and ses — is the self-normalised one: with v_i = w_i / sum w over the worlds it is taken
    // over, mean = sum v_i x_i, ess = 1 / sum v_i^2, se = sqrt(ess / (ess - 1) * sum v_i^2
    // (x_i - mean)^2) (+inf for ess <= 1: no gain is then significant, nothing is pruned). With
    // equal weights these are the unweighted mean and se (ddof 1). Where every world of an
    // estimate has weight 0 the worlds count equally (SearchResult::weight_fallback).
    WeightModel weight = W_NONE;
    double weight_t = DEFAULT_WEIGHT_T;
    // The searching seat's own decisions in the playouts (beyond the reference; docs/SEARCH.md,
    // "The searching seat plays on as itself"): when set, this network plays them (its masked
    // argmax), and the other seats keep `net` or `rollout`. Unset (default): every seat plays
    // the rollout. With the leaf critic it plays the seat's own moves before the leaf (with
    // leaf_depth > 1). Without it, the playouts of a round advance in lockstep and the forward
    // passes of those at the seat's decision are one batch (NetPolicy::actions). It must read
    // the observation of the hand's rules (std::invalid_argument otherwise).
    std::shared_ptr<const NetPolicy> own;
    // Keep each world's deck and per-action scores in the result (for tests and inspection).
    bool keep_worlds = false;
};

struct SearchResult {
    int choice = -1;
    int worlds = 0, attempts = 0, playouts = 0;
    std::vector<int> legal;
    std::vector<double> means;  // per legal action over the worlds it was played in (empty: none)
    std::vector<int> played;    // per legal action: worlds it was played in
    std::vector<double> ses;    // per legal action: standard error of its mean (NaN: < 2 worlds)
    // With a weight model: each world's log-weight (in sampling order), the effective sample
    // size (sum w)^2 / sum w^2 over all worlds (NaN: no world), and whether every world had
    // weight 0, so that they counted equally.
    std::vector<double> log_weights;
    double ess = NAN;
    bool weight_fallback = false;
    // With keep_worlds: each world's deck and its scores per legal action (NaN: not played).
    std::vector<std::vector<int>> decks;
    std::vector<std::vector<double>> scores;
};

// The search's action for `seat`, which must be the seat to act (std::invalid_argument else).
// Advances `rng` exactly as SearchAgent.act_game advances its generator.
SearchResult search_action(const Game& g, int seat, const SearchOptions& opt, Pcg64& rng);

}  // namespace phz
