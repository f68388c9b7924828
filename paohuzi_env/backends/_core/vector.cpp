// VectorGame, the seeded generator and playouts (vector.hpp). Rewards port
// paohuzi_env/encode/rewards.py (reward_from_scores); observations and states port
// paohuzi_env/encode/observation.py and paohuzi_env/encode/state.py (observation.cpp).
#include "vector.hpp"

#include <algorithm>
#include <stdexcept>

namespace phz {

// ---------------------------------------------------------------------------- generator

namespace {
inline uint64_t mix64(uint64_t z) {  // the splitmix64 finaliser
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
constexpr uint64_t GOLDEN = 0x9E3779B97F4A7C15ull;
constexpr uint64_t TAG_DEAL = 1, TAG_RANDOM = 2;
}  // namespace

Rng::Rng(uint64_t seed, uint64_t a, uint64_t b, uint64_t tag) {
    uint64_t s = mix64(seed + GOLDEN * (tag + 1));
    s = mix64(s ^ (a + GOLDEN));
    s = mix64(s ^ (b * GOLDEN + 0x632BE59BD9B4E019ull));
    s_ = s;
}

uint64_t Rng::next() {
    s_ += GOLDEN;
    return mix64(s_);
}

uint32_t Rng::below(uint32_t n) {
    // Lemire's multiply-shift with rejection: exactly uniform.
    uint64_t m = uint64_t(uint32_t(next() >> 32)) * n;
    uint32_t low = uint32_t(m);
    if (low < n) {
        const uint32_t t = uint32_t(-n) % n;
        while (low < t) {
            m = uint64_t(uint32_t(next() >> 32)) * n;
            low = uint32_t(m);
        }
    }
    return uint32_t(m >> 32);
}

// R-DEAL-4 (the dealer drawn at random), R-DEAL-1 / R-WANG-2 (a shuffled 80- or 82-card deck).
void make_deal(uint64_t seed, uint64_t index, int n_wang, std::vector<int>* deck, int* dealer) {
    Rng rng(seed, index, 0, TAG_DEAL);
    *dealer = int(rng.below(NUM_SEATS));
    deck->clear();
    for (int k = 0; k < NUM_KINDS; ++k)
        for (int j = 0; j < COPIES; ++j) deck->push_back(k);
    for (int j = 0; j < n_wang; ++j) deck->push_back(WANG);
    for (int i = int(deck->size()) - 1; i > 0; --i) {
        const int j = int(rng.below(uint32_t(i + 1)));
        std::swap((*deck)[i], (*deck)[j]);
    }
}

// rewards.reward_from_scores: score (the points), win (+1 / -0.5 / 0 after 荒庄), normalized
// (points / 64 clipped to [-1, 1]); computed in double like Python, stored as float32.
void rewards_of(const Result& r, RewardMode mode, float* out) {
    for (int s = 0; s < NUM_SEATS; ++s) {
        double x;
        if (mode == RW_SCORE) x = double(r.scores[s]);
        else if (mode == RW_WIN) x = r.winner < 0 ? 0.0 : (r.winner == s ? 1.0 : -0.5);
        else x = std::max(-1.0, std::min(1.0, r.scores[s] / 64.0));
        out[s] = float(x);
    }
}

int policy_action(const Game& g, Policy policy, uint64_t seed, uint64_t deal, View* scratch) {
    if (g.done()) throw std::invalid_argument("the hand is over; no action is legal");
    const auto& legal = g.legal();
    if (policy == P_RANDOM) {
        Rng rng(seed, deal, g.actions().size(), TAG_RANDOM);
        return legal[rng.below(uint32_t(legal.size()))];
    }
    if (!bots_linked())
        throw std::logic_error("the compiled bots (greedy_action, expert_action) are not built");
    g.fill_view(g.current_player(), *scratch);
    const int a = policy == P_GREEDY ? greedy_action(*scratch, g.rules())
                                     : expert_action(*scratch, g.rules());
    if (!g.is_legal(a)) throw std::logic_error("a bot chose an illegal action");
    return a;
}

void playout(Game* g, Policy policy, uint64_t seed, uint64_t deal) {
    View scratch;
    while (!g->done()) g->step(policy_action(*g, policy, seed, deal, &scratch));
}

// ---------------------------------------------------------------------------- VectorGame

VectorGame::VectorGame(int num_hands, std::shared_ptr<const Rules> rules, uint64_t seed,
                       RewardMode mode)
    : rules_(std::move(rules)), seed_(seed), mode_(mode) {
    if (num_hands <= 0) throw std::invalid_argument("num_hands must be a positive int");
    if (!rules_) throw std::invalid_argument("rules must not be null");
    games_.reserve(num_hands);
    deal_.resize(num_hands);
    last_.resize(num_hands);
    last_deal_.resize(num_hands);
    for (int i = 0; i < num_hands; ++i) games_.push_back(fresh(&deal_[i]));
}

// The next deal that needs a decision (a deal won at the deal, R-START-1, is dealt past).
Game VectorGame::fresh(uint64_t* deal) {
    while (true) {
        const uint64_t idx = next_deal_++;
        int dealer = 0;
        make_deal(seed_, idx, rules_->wang, &deck_scratch_, &dealer);
        Game g(rules_, deck_scratch_, dealer);
        if (!g.done()) {
            *deal = idx;
            return g;
        }
        skipped_++;
    }
}

void VectorGame::observe(float* obs, int8_t* mask, int64_t* seat, int64_t* decision) const {
    const int n = size(), no = obs_size();
    View view;
    for (int i = 0; i < n; ++i) {
        const Game& g = games_[i];
        const int s = g.current_player();
        if (obs) {
            g.fill_view(s, view);
            encode(view, obs + size_t(i) * no);
        }
        if (mask) {
            int8_t* m = mask + size_t(i) * NUM_ACTIONS;
            std::fill(m, m + NUM_ACTIONS, int8_t(0));
            for (int a : g.legal()) m[a] = 1;
        }
        if (seat) seat[i] = s;
        if (decision) decision[i] = g.decision();
    }
}

int VectorGame::first_illegal(const int64_t* actions) const {
    for (int i = 0; i < size(); ++i) {
        const int64_t a = actions[i];
        if (a < 0 || a >= NUM_ACTIONS || !games_[i].is_legal(int(a))) return i;
    }
    return -1;
}

void VectorGame::step(const int64_t* actions, float* rewards, uint8_t* done) {
    for (int i = 0; i < size(); ++i) {
        Game& g = games_[i];
        g.step(int(actions[i]));
        if (g.done()) {
            rewards_of(g.result(), mode_, rewards + 3 * size_t(i));
            done[i] = 1;
            finished_++;
            last_deal_[i] = deal_[i];
            last_[i] = std::move(g);
            games_[i] = fresh(&deal_[i]);
        } else {
            rewards[3 * i] = rewards[3 * i + 1] = rewards[3 * i + 2] = 0.0f;
            done[i] = 0;
        }
    }
}

void VectorGame::actions_of(Policy p, int64_t* out, const uint8_t* which) const {
    View view;
    for (int i = 0; i < size(); ++i)
        if (which == nullptr || which[i]) out[i] = policy_action(games_[i], p, seed_, deal_[i], &view);
}

void VectorGame::state(float* out) const {
    const int ns = state_size();
    View view;
    for (int i = 0; i < size(); ++i)
        encode_state(games_[i], games_[i].current_player(), out + size_t(i) * ns, &view);
}

void VectorGame::playout_all(Policy policy, uint64_t seed, float* rewards) const {
    for (int i = 0; i < size(); ++i) {
        Game g = games_[i];
        playout(&g, policy, seed, deal_[i]);
        rewards_of(g.result(), mode_, rewards + 3 * size_t(i));
    }
}

void VectorGame::playout_after(const int64_t* actions, const uint8_t* which, Policy policy,
                               uint64_t seed, float* rewards) const {
    for (int i = 0; i < size(); ++i) {
        if (!which[i]) continue;
        const int64_t a = actions[i];
        if (a < 0 || a >= NUM_ACTIONS || !games_[i].is_legal(int(a)))
            throw std::invalid_argument("playout_after: action " + std::to_string(a) +
                                        " is not legal in hand " + std::to_string(i));
    }
    for (int i = 0; i < size(); ++i) {
        if (!which[i]) continue;
        Game g = games_[i];
        g.step(int(actions[i]));
        playout(&g, policy, seed, deal_[i]);
        rewards_of(g.result(), mode_, rewards + 3 * size_t(i));
    }
}

void VectorGame::set_hand(int i, const Game& g, uint64_t deal) {
    if (i < 0 || i >= size()) throw std::out_of_range("hand index out of range");
    if (g.done()) throw std::invalid_argument("a VectorGame holds live hands only; this one is over");
    if (g.rules().id != rules_->id || g.rules().wang != rules_->wang)
        throw std::invalid_argument("the hand's rules differ from the VectorGame's");
    games_[i] = g;
    deal_[i] = deal;
}

}  // namespace phz
