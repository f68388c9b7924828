// The game engine: a port of paohuzi_env.game.engine.Game (docs/rules.md sections 2, 4-8, 10).
//
// One hand of 跑胡子 from the deal to a win or 荒庄. The engine runs every forced move (提, 偎, 跑,
// the forced 天胡, skipped discards) itself and stops only at decisions (view.hpp's Decision:
// tianhu, hu, claim, bi, discard). It must agree with the Python engine decision by decision:
// same decision kind, seat, legal set, events, result and record (tests/test_fast_engine.py).
//
// What it waits for is one of four pending records, as in Python: HuOffers (HU offers still to
// ask and a follow-up tag), ClaimWindow (with each seat's ClaimAnswer), BiChain and ForcedTake.
// A Game is a plain value: copying it clones the hand.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"
#include "rules.hpp"
#include "scoring.hpp"
#include "view.hpp"

namespace phz {

constexpr int WANG_PENALTY = 5;  // engine.WANG_PENALTY (R-WANG-8)

// engine.EventKind, in the order of the Python Literal.
enum EventKind : uint8_t {
    E_LIANG, E_REVEAL, E_WANG, E_DISCARD, E_TO_DISCARDS, E_TI, E_WEI, E_CHOU_WEI, E_PAO, E_PENG,
    E_CHI, E_BI, E_HU, E_HUANGZHUANG, E_NUM_KINDS
};
const char* event_kind_name(EventKind k);

// One entry of Game.events: (kind, seat, data). seat -1 is None. data: a kind id, -1 for None,
// or (chi, bi) the group's three kinds in `cards`; (hu) the win's names, read from the result.
struct Event {
    EventKind kind;
    int8_t seat;
    int8_t data;
    std::array<int8_t, 3> cards;
};

enum Reason : uint8_t { R_HU, R_TIANHU, R_DRAW };
const char* reason_name(Reason r);

struct Result {  // engine.Result
    int winner = -1;  // -1: None (荒庄)
    std::array<int, 3> scores{};
    bool has_win = false;
    Win win;
    Reason reason = R_DRAW;
};

// A table group in placement order (engine.Game.melds entries): type and 3 or 4 kinds, sorted.
struct Meld {
    GroupType type;
    uint8_t n;
    std::array<int8_t, 4> cards;
    int kind0() const { return cards[0]; }
};

enum AfterHu : uint8_t { A_START, A_CARD, A_FORCED, A_WANG };  // engine.AfterHu

struct HuOffers {  // engine.HuOffers: queue[head..n) still to ask
    bool open = false;
    int n = 0, head = 0;
    std::array<int, 3> seat{};
    std::array<Win, 3> win{};  // copies: evaluate()'s pointers are not held (scoring.hpp)
    AfterHu then = A_START;
    // HuOffers{} but keeping win[]'s storage for the next copies (only win[0..n) is ever read)
    void reset() {
        open = false;
        n = head = 0;
        seat = {};
        then = A_START;
    }
};

enum AnswerKind : uint8_t { ANS_NONE, ANS_PENG, ANS_CHI, ANS_PASS };

struct ClaimAnswer {  // engine.ClaimAnswer
    AnswerKind kind = ANS_NONE;
    int n = 0;
    std::array<int8_t, 4> groups{};  // the 吃 group then the 比 groups, action ids
};

struct ClaimWindow {  // engine.ClaimWindow
    bool open = false;
    int card = 0, source = 0, owner = 0;
    std::array<int, 3> order{};
    int n_order = 0, next_index = 0;
    int peng_seat = -1;
    std::array<std::vector<int>, 3> chi_options;  // empty: not in Python's chi_options dict
    std::array<bool, 3> blocked{};
    std::array<int, 3> chi_rank{};  // -1: not a 吃 candidate
    std::array<int, 3> closed{};
    int n_closed = 0;
    std::array<ClaimAnswer, 3> answers{};
    int best_rank = -1, best_seat = -1;  // best None: best_seat -1
    int rank_chi(int seat) const { return 1 + chi_rank[seat]; }
};

struct BiChain {  // engine.BiChain
    bool open = false;
    int seat = 0, card = 0;
    int n = 0;
    std::array<int8_t, 4> ids{};  // the 吃 group and the 比 groups so far, action ids
    Counts usable{};
    int left() const { return usable[card]; }
};

struct ForcedTake {  // engine.ForcedTake
    bool open = false;
    int seat = 0, card = 0;
    GroupType kind = G_TI;
};

// What ends up unexpected in a step: the Python engine raises IllegalActionError; the binding
// turns this into it.
struct IllegalAction : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Game;
// Told of every card about to be taken from the wall (a chance event): the evaluator's control
// variates (chance.hpp) read the state just before it. Bookkeeping only: no rule reads it.
struct DrawHook {
    virtual ~DrawHook() = default;
    // `g` is about to take deck()[wall_pos()] for `seat` (the card is still unrevealed).
    virtual void before_draw(const Game& g, int seat) = 0;
};

class Game {
public:
    // deck: 80 (82 with 王) kind ids in deal order (R-DEAL-1, R-WANG-2); dealer 0..2.
    // Throws std::invalid_argument for a malformed deck or dealer.
    Game(std::shared_ptr<const Rules> rules, const std::vector<int>& deck, int dealer);

    // ---- public surface (engine.Game)
    bool done() const { return has_result_; }
    int wall_left() const { return num_cards_ - wall_pos_; }
    int current_player() const { return current_; }
    int decision() const { return decision_; }
    const std::vector<int>& legal() const { return legal_; }
    bool is_legal(int a) const;
    // Apply the current player's action. Throws IllegalAction if not legal (no state change).
    void step(int a);

    const Rules& rules() const { return *rules_; }
    const std::shared_ptr<const Rules>& rules_ptr() const { return rules_; }
    const std::vector<int>& deck() const { return deck_; }
    int dealer() const { return dealer_; }
    int num_cards() const { return num_cards_; }
    int wall_pos() const { return wall_pos_; }
    int liang() const { return liang_; }
    const std::vector<int>& actions() const { return actions_; }
    const std::vector<Event>& events() const { return events_; }
    const Result& result() const { return result_; }
    bool has_offer() const { return offer_kind_ >= 0; }
    int offer_kind() const { return offer_kind_; }
    int offer_source() const { return offer_source_; }
    int offer_from() const { return offer_from_; }
    int win_card() const { return win_card_; }
    const Counts& hand(int s) const { return hands_[s]; }
    int wang(int s) const { return wang_[s]; }
    int wang_shown(int s) const { return wang_shown_[s]; }
    const std::vector<Meld>& melds(int s) const { return melds_[s]; }
    const std::vector<int>& discards(int s) const { return discards_[s]; }
    uint32_t chou(int s) const { return chou_[s]; }
    uint32_t chi_closed(int s) const { return chi_closed_[s]; }
    uint32_t declined_peng(int s) const { return declined_peng_[s]; }
    uint32_t hu_blocked(int s) const { return hu_blocked_[s]; }
    bool played(int s) const { return played_[s]; }
    // The wall positions of the draws that made `s`'s 偎 still on the table face down (kind
    // hidden from the others): public facts (everyone saw the draw and the 偎), for samplers of
    // the hidden cards (agents/search.py). Bookkeeping only: no rule reads it.
    std::vector<int> hidden_wei_positions(int s) const;
    int n_paoti(int s) const { return n_paoti_[s]; }
    int table_cards(int s) const { return table_cards_[s]; }
    int table_huxi(int s) const { return table_huxi_[s]; }
    // Game.held: hand (王 included) and table cards (R-GROUP-3).
    int held(int s) const;
    // Game.table_groups: the seat's table groups in Python's sorted order.
    const std::vector<Group>& table_groups(int s) const;
    // Game.view into `v` (its vectors' storage is reused).
    void fill_view(int seat, View& v) const;
    View view(int seat) const { View v; fill_view(seat, v); return v; }
    // The card on offer as `seat` sees it (Game._visible_offer): false when hidden or none.
    bool visible_offer(int seat, int* kind, int* source, int* from) const;
    // The 比 chain of the acting seat (for the view): empty when none.
    const BiChain& bi() const { return bi_; }
    // Tell `hook` (not owned; nullptr: nobody) of every draw from the wall from now on. A copy of
    // the game shares the pointer: set it on a game you own and clear it before the hook dies.
    void set_draw_hook(DrawHook* hook) { draw_hook_ = hook; }
    // For the evaluator's control variates (chance.cpp), on a copy made inside a DrawHook: put a
    // wall card of `kind` on top of the wall and go on drawing as the game was about to, for
    // `seat`. Throws std::invalid_argument if no card of that kind is left in the wall.
    void draw_for_chance(int seat, int kind);
    // For a chance model that fixes the wall one card at a time (the OpenSpiel game,
    // envs/openspiel.py): put a wall card of `kind` at undrawn position `pos` (swapped with the
    // first card of that kind at or after `pos`). Only the order of the undrawn cards changes, and
    // nothing before a draw reads it. Throws std::invalid_argument if `pos` is not an undrawn
    // position or no card of that kind lies at or after it.
    void put_on_wall(int pos, int kind);

private:
    // ---- helpers (engine.Game, same names)
    bool owes_discard(int seat, int extra = 0) const;
    void add_meld(int seat, GroupType t, int kind_or_group, bool chi);
    void upgrade_meld(int seat, int kind, GroupType t);
    void table_changed(int seat);
    int meld_type_of(int seat, int kind) const;  // -1: none
    const Win* win_of(int seat, int card, bool self_drawn, bool from_discard = false);
    void pose(int seat, int decision, std::vector<int>&& legal);
    void pose2(int seat, int decision, int a, int b);
    void finish(int winner, const Win* win, Reason reason);
    void event(EventKind k, int seat, int data);
    void event_group(EventKind k, int seat, int action);

    void start();
    void after_start_hu();
    void after_take_in(int seat);
    bool pose_discard_if_owed(int seat);
    void draw(int seat);
    void draw_wang(int seat);
    bool apply_own_forced(int seat, int c, GroupType forced);
    void offer_card(int c, int source, int owner);
    void after_card_hu();
    void ask_hu(AfterHu then, int decision);  // hu_ already filled
    void answer_hu(int a);
    void after_forced_hu();
    bool peng_ok(int seat, int c) const;
    void open_claim(int c, int source, int owner);
    void ask_next_claimant();
    void answer_claim(int seat, int a);
    void continue_bi();
    void answer_bi(int a);
    void resolve_claim();
    void to_discard_area(int c, int owner);
    void discard(int seat, int k);
    void set_offer(int kind, int source, int from) {
        offer_kind_ = kind; offer_source_ = source; offer_from_ = from;
    }
    void clear_offer() { offer_kind_ = -1; }

    std::shared_ptr<const Rules> rules_;
    std::vector<int> deck_;
    int num_cards_ = NUM_CARDS;
    int dealer_ = 0;
    std::vector<int> actions_;
    std::vector<Event> events_;
    std::array<Counts, 3> hands_{};
    std::array<int, 3> wang_{}, wang_shown_{};
    int liang_ = 0;
    int wall_pos_ = 61;
    std::array<std::vector<Meld>, 3> melds_;
    std::array<uint32_t, 3> same_kind_melds_{};  // bit k: the seat has a non-吃 group of kind k
    mutable std::array<std::vector<Group>, 3> meld_key_;
    mutable std::array<bool, 3> meld_key_ok_{};
    std::array<int, 3> n_paoti_{}, table_cards_{}, table_huxi_{};
    std::array<std::vector<int>, 3> discards_;
    std::array<uint32_t, 3> chou_{}, chi_closed_{}, declined_peng_{}, hu_blocked_{};
    std::array<bool, 3> played_{};
    std::array<std::array<int8_t, NUM_KINDS>, 3> wei_pos_{};  // per seat and kind; 0: none
    int current_ = -1;
    int decision_ = D_NONE;
    std::vector<int> legal_;
    bool has_result_ = false;
    Result result_;
    int win_card_ = -1;
    int offer_kind_ = -1, offer_source_ = 0, offer_from_ = 0;
    HuOffers hu_;
    ClaimWindow claim_;
    BiChain bi_;
    ForcedTake forced_;
    DrawHook* draw_hook_ = nullptr;
};

// engine.wang_payments (R-WANG-8).
std::array<int, 3> wang_payments(const std::array<int, 3>& wang);

// Python's sorted() order of group types by name (Group::operator<, without building strings).
bool group_less(const Group& a, const Group& b);

}  // namespace phz
