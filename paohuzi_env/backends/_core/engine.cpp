// The game engine: a port of paohuzi_env/game/engine.py (class Game), function by function; each
// method names the Python one it ports and the rules (docs/rules.md) it implements.
#include "engine.hpp"

#include "bits.hpp"

#include <algorithm>
#include <cstring>

#include "chi.hpp"

namespace phz {

namespace {

inline int next_seat(int s) { return (s + 1) % NUM_SEATS; }  // engine._next (R-SEAT-1)
inline int prev_seat(int s) { return (s + 2) % NUM_SEATS; }  // engine._prev
inline bool in(uint32_t set, int k) { return (set >> k) & 1u; }
inline uint32_t bit(int k) { return uint32_t(1) << k; }

const char* const EVENT_NAMES[E_NUM_KINDS] = {
    "liang", "reveal", "wang", "discard", "to_discards", "ti", "wei", "chou_wei", "pao", "peng",
    "chi", "bi", "hu", "huangzhuang",
};

// The rank of each group type's name in Python's string order (tuples sort by type name first).
struct TypeRank {
    std::array<int, G_NUM_TYPES> rank{};
    TypeRank() {
        std::array<int, G_NUM_TYPES> ids{};
        for (int t = 0; t < G_NUM_TYPES; ++t) ids[t] = t;
        std::sort(ids.begin(), ids.end(), [](int a, int b) {
            return std::strcmp(group_type_name(GroupType(a)), group_type_name(GroupType(b))) < 0;
        });
        for (int i = 0; i < G_NUM_TYPES; ++i) rank[ids[i]] = i;
    }
};
const TypeRank& type_rank() {
    static const TypeRank r;
    return r;
}

int meld_huxi(const Meld& m) {  // groups.group_huxi of a table group
    std::vector<int> cards(m.cards.begin(), m.cards.begin() + m.n);
    return group_huxi(m.type, cards);
}

}  // namespace

const char* event_kind_name(EventKind k) { return k < E_NUM_KINDS ? EVENT_NAMES[k] : "?"; }

const char* reason_name(Reason r) {
    switch (r) {
        case R_HU: return "hu";
        case R_TIANHU: return "tianhu";
        default: return "draw";
    }
}

bool group_less(const Group& a, const Group& b) {
    const auto& r = type_rank().rank;
    if (a.type != b.type) return r[a.type] < r[b.type];
    return a.cards < b.cards;
}

// engine.wang_payments: R-WANG-8 (荒庄): each 王 still in a hand costs its holder WANG_PENALTY
// points to every seat holding none (zero-sum).
std::array<int, 3> wang_payments(const std::array<int, 3>& wang) {
    std::array<int, 3> scores{};
    for (int s = 0; s < NUM_SEATS; ++s)
        for (int t = 0; t < NUM_SEATS; ++t)
            if (wang[s] && !wang[t]) {
                scores[s] -= WANG_PENALTY * wang[s];
                scores[t] += WANG_PENALTY * wang[s];
            }
    return scores;
}

// ---------------------------------------------------------------------------- construction

// Game.__init__ with a given deck and dealer (the binding draws them like Python when needed).
// R-DEAL-1/2 (block deal, 亮张 = deck[20]), R-WANG-2/3 (dealt 王 hidden, a 亮张 王 shown).
Game::Game(std::shared_ptr<const Rules> rules, const std::vector<int>& deck, int dealer)
    : rules_(std::move(rules)) {
    if (!rules_) throw std::invalid_argument("rules must not be null");
    if (dealer < 0 || dealer >= NUM_SEATS)
        throw std::invalid_argument("dealer must be a seat 0, 1 or 2, got " + std::to_string(dealer));
    const int n_wang = rules_->wang;
    num_cards_ = NUM_CARDS + n_wang;
    // engine._checked_deck: a permutation of the 80 (82) cards.
    std::array<int, NUM_KINDS + 1> cnt{};
    bool ok = int(deck.size()) == num_cards_;
    for (int k : deck) {
        if (k < 0 || k > WANG || (k == WANG && !n_wang)) { ok = false; break; }
        cnt[k]++;
    }
    if (ok) {
        for (int k = 0; k < NUM_KINDS; ++k) ok = ok && cnt[k] == COPIES;
        ok = ok && cnt[WANG] == n_wang;
    }
    if (!ok)
        throw std::invalid_argument(
            "deck must be a permutation of the " + std::to_string(num_cards_) +
            " cards: kind ids 0..19, each 4 times" +
            (n_wang ? ", and " + std::to_string(n_wang) + " 王 (id 20)" : std::string()));
    deck_ = deck;
    dealer_ = dealer;
    events_.reserve(96);   // a hand logs about 60 events and 30 actions: no regrowth mid-hand
    actions_.reserve(48);
    const int d = dealer_;
    const int seats[3] = {d, next_seat(d), prev_seat(d)};
    const int lo[3] = {0, 21, 41}, hi[3] = {21, 41, 61};
    for (int i = 0; i < 3; ++i)
        for (int j = lo[i]; j < hi[i]; ++j) {
            const int k = deck_[j];
            if (k == WANG) wang_[seats[i]] += 1;
            else hands_[seats[i]][k] += 1;
        }
    liang_ = deck_[20];  // R-DEAL-2
    if (liang_ == WANG) wang_shown_[d] = 1;  // R-WANG-3: a 亮张 王 is shown and kept
    wall_pos_ = 61;
    for (auto& c : claim_.chi_rank) c = -1;
    events_.reserve(64);
    actions_.reserve(64);
    start();
}

// ---------------------------------------------------------------------------- public surface

bool Game::is_legal(int a) const {
    return std::binary_search(legal_.begin(), legal_.end(), a);
}

// Game.step: apply the current player's action; forced moves that follow run at once.
void Game::step(int a) {
    if (has_result_) throw IllegalAction("the hand is over; no action is legal");
    if (!is_legal(a))
        throw IllegalAction("action " + std::to_string(a) + " is not legal for seat " +
                            std::to_string(current_));
    actions_.push_back(a);
    const int seat = current_, dec = decision_;
    if (dec == D_TIANHU || dec == D_HU) answer_hu(a);
    else if (dec == D_CLAIM) answer_claim(seat, a);
    else if (dec == D_BI) answer_bi(a);
    else discard(seat, a);
}

int Game::held(int s) const {
    int n = wang_[s] + table_cards_[s];
    for (int k = 0; k < NUM_KINDS; ++k) n += hands_[s][k];
    return n;
}

// Game.table_groups: canonical (sorted) order, cached until the table changes.
const std::vector<Group>& Game::table_groups(int s) const {
    if (!meld_key_ok_[s]) {
        auto& key = meld_key_[s];
        key.clear();
        for (const Meld& m : melds_[s])
            key.push_back(Group{m.type, std::vector<int>(m.cards.begin(), m.cards.begin() + m.n)});
        std::sort(key.begin(), key.end(), group_less);
        meld_key_ok_[s] = true;
    }
    return meld_key_[s];
}

// Game._visible_offer: R-FLOW-2: a card about to be 提'd or 偎'd is not shown; while its drawer
// is asked HU (win_on_own_ti_wei) only the drawer may see it.
bool Game::visible_offer(int seat, int* kind, int* source, int* from) const {
    if (forced_.open && seat != forced_.seat) return false;
    if (offer_kind_ < 0) return false;
    *kind = offer_kind_;
    *source = offer_source_;
    *from = offer_from_;
    return true;
}

// Game.view: what `seat` may know (PlayerView); another seat's 偎 is hidden.
void Game::fill_view(int seat, View& v) const {
    v.seat = seat;
    v.hand = hands_[seat];
    for (int s = 0; s < NUM_SEATS; ++s) {
        auto& tab = v.table[s];
        tab.resize(melds_[s].size());
        for (size_t i = 0; i < melds_[s].size(); ++i) {
            const Meld& m = melds_[s][i];
            TableGroup& g = tab[i];
            g.type = m.type;
            if (m.type == G_WEI && s != seat) {
                g.hidden = true;
                g.cards.clear();
            } else {
                g.hidden = false;
                g.cards.assign(m.cards.begin(), m.cards.begin() + m.n);
            }
        }
        v.discards[s] = discards_[s];
        int n = wang_[s];
        for (int k = 0; k < NUM_KINDS; ++k) n += hands_[s][k];
        v.hand_sizes[s] = n;
    }
    v.wall = wall_left();
    v.dealer = dealer_;
    v.liang = liang_;
    v.chou = chou_[seat];
    v.chi_closed = chi_closed_[seat];
    v.declined_peng = declined_peng_[seat];
    v.hu_blocked = hu_blocked_[seat];
    const bool acting = current_ == seat && !has_result_;
    v.decision = acting ? decision_ : D_NONE;
    int k = 0, src = 0, from = 0;
    v.has_offer = visible_offer(seat, &k, &src, &from);
    v.offer_kind = v.has_offer ? k : 0;
    v.offer_source = v.has_offer ? src : 0;
    v.offer_from = v.has_offer ? from : 0;
    v.bi_groups.clear();
    v.bi_left = 0;
    if (acting && decision_ == D_BI && bi_.open) {
        for (int i = 0; i < bi_.n; ++i) v.bi_groups.push_back(CHI_GROUPS[bi_.ids[i] - GROUP_BASE]);
        v.bi_left = bi_.left();
    }
    if (acting) v.legal = legal_;
    else v.legal.clear();
    v.to_act = current_;
    v.done = has_result_;
    v.wang = wang_[seat];
    v.wang_shown = wang_shown_;
    v.jokers = rules_->wang;
}

// ---------------------------------------------------------------------------- counts and helpers

// Game._owes_discard: R-GROUP-3: would `seat` owe a discard holding `extra` more cards?
bool Game::owes_discard(int seat, int extra) const {
    return held(seat) + extra > discard_target(n_paoti_[seat]);
}

// Game._add_meld. chi: kind_or_group is the group action id; else the kind (3 or 4 copies).
void Game::add_meld(int seat, GroupType t, int kind_or_group, bool chi) {
    Meld m{};
    m.type = t;
    if (chi) {
        const auto& g = CHI_GROUPS[kind_or_group - GROUP_BASE];
        m.n = 3;
        for (int i = 0; i < 3; ++i) m.cards[i] = int8_t(g[i]);
    } else {
        m.n = (t == G_PAO || t == G_TI) ? 4 : 3;
        for (int i = 0; i < m.n; ++i) m.cards[i] = int8_t(kind_or_group);
    }
    melds_[seat].push_back(m);
    if (!chi) same_kind_melds_[seat] |= 1u << kind_or_group;
    table_cards_[seat] += m.n;
    if (t == G_PAO || t == G_TI) n_paoti_[seat] += 1;
    table_changed(seat);
}

// Game._upgrade_meld: turn a 偎/臭偎/碰 of `kind` into a 跑 or 提 (one more card).
void Game::upgrade_meld(int seat, int kind, GroupType t) {
    for (Meld& m : melds_[seat]) {
        if (m.type != G_CHI && m.cards[0] == kind) {
            m.type = t;
            m.n = 4;
            m.cards = {int8_t(kind), int8_t(kind), int8_t(kind), int8_t(kind)};
            table_cards_[seat] += 1;
            n_paoti_[seat] += 1;
            table_changed(seat);
            return;
        }
    }
    throw std::logic_error("no meld to upgrade");
}

// Game._table_changed: R-CHOU-5: a changed table huxi lifts the 臭胡 blocks.
void Game::table_changed(int seat) {
    meld_key_ok_[seat] = false;
    int huxi = 0;
    for (const Meld& m : melds_[seat]) huxi += meld_huxi(m);
    if (huxi != table_huxi_[seat]) {
        table_huxi_[seat] = huxi;
        hu_blocked_[seat] = 0;
    }
}

// Game._meld_type_of: the type of the seat's non-吃 group of `kind`, or -1.
int Game::meld_type_of(int seat, int kind) const {
    if (!((same_kind_melds_[seat] >> kind) & 1u)) return -1;  // the usual answer, at once
    for (const Meld& m : melds_[seat])
        if (m.type != G_CHI && m.cards[0] == kind) return m.type;
    return -1;
}

// Game._win_of: the best win of `seat` on `card` (self_drawn / from_discard as Python; tianhu
// False and dihu = not yet discarded, the only way the engine calls it).
const Win* Game::win_of(int seat, int card, bool self_drawn, bool from_discard) {
    if (card >= 0 && in(hu_blocked_[seat], card)) return nullptr;  // R-CHOU-5
    if (wang_[seat] && !self_drawn) return nullptr;  // R-WANG-5
    EvalArgs a;
    a.self_drawn = self_drawn;
    // R-WIN-5: 海底 is a win on the last *wall* card, never on a discard made after it.
    a.haidi = card >= 0 && !from_discard && wall_pos_ == num_cards_;
    a.tianhu = false;
    a.dihu = !played_[seat];  // 地胡 (section 9): the winner has not discarded yet
    a.from_discard = from_discard;
    a.wang = wang_[seat];
    if (surely_loses(hands_[seat], card, a)) return nullptr;  // most offers: no table groups
    return evaluate(hands_[seat], table_groups(seat), card, *rules_, a);
}

// Game._pose
void Game::pose(int seat, int decision, std::vector<int>&& legal) {
    current_ = seat;
    decision_ = decision;
    legal_ = std::move(legal);
}

void Game::pose2(int seat, int decision, int a, int b) {
    current_ = seat;
    decision_ = decision;
    legal_.assign({a, b});
}

void Game::event(EventKind k, int seat, int data) {
    events_.push_back(Event{k, int8_t(seat), int8_t(data), {-1, -1, -1}});
}

void Game::event_group(EventKind k, int seat, int action) {
    const auto& g = CHI_GROUPS[action - GROUP_BASE];
    events_.push_back(Event{k, int8_t(seat), -1, {int8_t(g[0]), int8_t(g[1]), int8_t(g[2])}});
}

// Game._finish: winner +2×score, each loser −score; 荒庄: R-WANG-8's payments (0 without 王).
void Game::finish(int winner, const Win* win, Reason reason) {
    std::array<int, 3> scores{};
    if (winner >= 0 && win != nullptr) {
        for (int s = 0; s < NUM_SEATS; ++s) scores[s] = s == winner ? 2 * win->score : -win->score;
        event(E_HU, winner, -1);  // data: the win's names (Result.win.names)
        result_.has_win = true;
        result_.win = *win;
    } else {
        event(E_HUANGZHUANG, -1, -1);
        scores = wang_payments(wang_);
        result_.has_win = false;
    }
    result_.winner = winner;
    result_.scores = scores;
    result_.reason = reason;
    has_result_ = true;
    current_ = -1;
    decision_ = D_NONE;
    legal_.clear();
    if (offer_kind_ >= 0 && offer_source_ != S_LIANG && offer_kind_ != WANG)
        win_card_ = offer_kind_;  // the won card lies in no hand, table or area
    clear_offer();
}

// ---------------------------------------------------------------------------- start (R-START-*)

// Game._start
void Game::start() {
    const int d = dealer_;
    const int order[3] = {d, next_seat(d), prev_seat(d)};
    event(E_LIANG, d, liang_);
    static const std::vector<Group> no_melds;
    // R-START-1: forced 天胡 (3 four-of-a-kinds, or 5 坎/提 together); a 王 counts as neither
    // (R-WANG-4).
    for (int s : order) {
        const Counts& h = hands_[s];
        int n4 = 0, n3 = 0;
        for (int k = 0; k < NUM_KINDS; ++k) {
            n4 += h[k] == 4;
            n3 += h[k] == 3;
        }
        if (n4 >= 3 || n4 + n3 >= 5) {
            EvalArgs a;
            a.tianhu = true;
            a.wang = wang_[s];
            const Win* win = evaluate(h, no_melds, -1, *rules_, a);
            if (win == nullptr) throw std::logic_error("forced 天胡 without a win");
            finish(s, win, R_TIANHU);
            return;
        }
    }
    // R-START-2: the 亮张 win, asked in order dealer, next, prev. A non-dealer's 亮张 win is 天胡
    // in classic and zipai, elsewhere 地胡 (section 9, R-WANG-7).
    const bool liang_tianhu = rules_->scoring == F_CLASSIC || rules_->scoring == F_ZIPAI;
    hu_.reset();
    for (int s : order) {
        const Win* win = nullptr;
        EvalArgs a;
        if (s == d) {
            a.tianhu = true;
            a.wang = wang_[s];
            win = evaluate(hands_[s], no_melds, -1, *rules_, a);
        } else if (liang_ == WANG || wang_[s]) {
            win = nullptr;  // R-WANG-3/5: nobody else wins on a 王; a 王 holder only on its draw
        } else {
            a.tianhu = liang_tianhu;
            a.dihu = !liang_tianhu;
            win = evaluate(hands_[s], no_melds, liang_, *rules_, a);
        }
        if (win != nullptr) {
            hu_.seat[hu_.n] = s;
            hu_.win[hu_.n] = *win;
            hu_.n++;
        }
    }
    set_offer(liang_, S_LIANG, d);
    if (hu_.n) {
        ask_hu(A_START, D_TIANHU);
        return;
    }
    after_start_hu();
}

// Game._after_start_hu
void Game::after_start_hu() {
    clear_offer();
    // R-START-3: every four-of-a-kind becomes a 提, shown at once.
    for (int s = 0; s < NUM_SEATS; ++s)
        for (int k = 0; k < NUM_KINDS; ++k)
            if (hands_[s][k] == 4) {
                hands_[s][k] = 0;
                add_meld(s, G_TI, k, false);
                event(E_TI, s, k);
            }
    // R-START-4: the dealer discards if it owes one, else its next player draws.
    after_take_in(dealer_);
}

// ---------------------------------------------------------------------------- turn flow

// Game._after_take_in: R-GROUP-3 / R-FLOW-6/7: the seat discards if it owes one, else next(seat)
// draws.
void Game::after_take_in(int seat) {
    if (!pose_discard_if_owed(seat)) draw(next_seat(seat));
}

// Game._pose_discard_if_owed + Game._discard_options: R-GROUP-3, R-DISC-1 (no 坎 card),
// R-DISC-2 (only 坎 cards: break one; an empty hand skips the discard).
bool Game::pose_discard_if_owed(int seat) {
    if (!owes_discard(seat)) return false;
    const Counts& h = hands_[seat];
    std::vector<int>& legal = legal_;  // posed in place (its storage reused)
    legal.clear();
    for (uint32_t m = loose_bits(h).P; m != 0; m &= m - 1)  // the kinds held once or twice
        legal.push_back(ctz32(m));
    if (legal.empty())
        for (int k = 0; k < NUM_KINDS; ++k)
            if (h[k]) legal.push_back(k);
    if (legal.empty()) return false;
    current_ = seat;
    decision_ = D_DISCARD;
    return true;
}

// For chance.cpp's control variates, on a copy: a card of `kind` to the top, then draw().
void Game::draw_for_chance(int seat, int kind) {
    for (int j = wall_pos_; j < num_cards_; ++j)
        if (deck_[size_t(j)] == kind) {
            std::swap(deck_[size_t(j)], deck_[size_t(wall_pos_)]);
            draw(seat);
            return;
        }
    throw std::invalid_argument("draw_for_chance: no card of kind " + std::to_string(kind) +
                                " is left in the wall");
}

// For the OpenSpiel game's chance nodes: a card of `kind` to undrawn position `pos`.
void Game::put_on_wall(int pos, int kind) {
    if (pos < wall_pos_ || pos >= num_cards_)
        throw std::invalid_argument("put_on_wall: position " + std::to_string(pos) +
                                    " is not an undrawn wall position (" +
                                    std::to_string(wall_pos_) + ".." +
                                    std::to_string(num_cards_ - 1) + ")");
    for (int j = pos; j < num_cards_; ++j)
        if (deck_[size_t(j)] == kind) {
            std::swap(deck_[size_t(j)], deck_[size_t(pos)]);
            return;
        }
    throw std::invalid_argument("put_on_wall: no card of kind " + std::to_string(kind) +
                                " lies at or after position " + std::to_string(pos));
}

// Game._draw: R-FLOW-1/2/3: `seat` draws the top wall card.
void Game::draw(int seat) {
    while (true) {
        if (wall_pos_ >= num_cards_) {
            finish(-1, nullptr, R_DRAW);  // R-END-2 荒庄
            return;
        }
        if (draw_hook_ != nullptr) draw_hook_->before_draw(*this, seat);
        const int c = deck_[wall_pos_];
        wall_pos_ += 1;
        if (c == WANG) {
            draw_wang(seat);
            return;
        }
        const Counts& h = hands_[seat];
        const int mt = meld_type_of(seat, c);
        int forced = -1;
        if (h[c] == 3 || mt == G_WEI || mt == G_CHOU_WEI) forced = G_TI;
        else if (h[c] == 2) forced = in(declined_peng_[seat], c) ? G_CHOU_WEI : G_WEI;
        if (forced < 0) {
            event(E_REVEAL, seat, c);
            offer_card(c, S_DRAW, seat);
            return;
        }
        // R-FLOW-2: compulsory 提/偎 of the own draw; no win on it unless the switch.
        if (rules_->win_on_own_ti_wei) {
            const Win* win = win_of(seat, c, true);
            if (win != nullptr) {
                forced_ = ForcedTake{true, seat, c, GroupType(forced)};
                set_offer(c, S_DRAW, seat);
                hu_.reset();
                hu_.n = 1;
                hu_.seat[0] = seat;
                hu_.win[0] = *win;
                ask_hu(A_FORCED, D_HU);
                return;
            }
        }
        if (apply_own_forced(seat, c, GroupType(forced))) return;
        seat = next_seat(seat);
    }
}

// Game._draw_wang: R-WANG-3: a drawn 王 is shown and kept; its drawer alone may win (自摸);
// then the counts rule decides as after any take-in.
void Game::draw_wang(int seat) {
    wang_[seat] += 1;
    wang_shown_[seat] += 1;
    event(E_WANG, seat, -1);
    const Win* win = nullptr;
    if (!in(hu_blocked_[seat], WANG)) {  // R-CHOU-5 on a declined 王 win
        EvalArgs a;
        a.self_drawn = true;
        a.haidi = wall_pos_ == num_cards_;
        a.dihu = !played_[seat];
        a.wang = wang_[seat];
        win = evaluate(hands_[seat], table_groups(seat), -1, *rules_, a);
    }
    if (win != nullptr) {
        set_offer(WANG, S_DRAW, seat);
        hu_.reset();
        hu_.n = 1;
        hu_.seat[0] = seat;
        hu_.win[0] = *win;
        ask_hu(A_WANG, D_HU);
        return;
    }
    after_take_in(seat);
}

// Game._apply_own_forced: make the forced 提/偎 of `seat`'s own draw `c`; true if it now owes a
// discard (and is asked for it), false if its next player draws.
bool Game::apply_own_forced(int seat, int c, GroupType forced) {
    Counts& h = hands_[seat];
    if (forced == G_TI) {
        if (h[c] == 3) {
            h[c] = 0;
            add_meld(seat, G_TI, c, false);
        } else {
            upgrade_meld(seat, c, G_TI);
        }
        event(E_TI, seat, c);
    } else {
        h[c] = 0;
        add_meld(seat, forced, c, false);
        wei_pos_[seat][c] = int8_t(wall_pos_ - 1);  // the draw just taken (draw / forced HU)
        event(forced == G_CHOU_WEI ? E_CHOU_WEI : E_WEI, seat, forced == G_CHOU_WEI ? c : -1);
    }
    if (pose_discard_if_owed(seat)) return true;
    decision_ = D_NONE;
    return false;
}

// Game._offer_card: R-FLOW-3 (a revealed draw) or R-FLOW-4 (a discard): HU, 跑, claims, discard
// area.
void Game::offer_card(int c, int source, int owner) {
    set_offer(c, source, owner);
    const bool from_discard = source == S_DISCARD;
    // 1. HU offers (R-FLOW-3.1; R-FLOW-4.1 only with hu_on_discard).
    if (!from_discard || rules_->hu_on_discard) {
        int order[3];
        int n = 0;
        if (!from_discard) order[n++] = owner;
        order[n++] = next_seat(owner);
        order[n++] = prev_seat(owner);
        hu_.reset();
        for (int i = 0; i < n; ++i) {
            const int s = order[i];
            const Win* win = win_of(s, c, s == owner && !from_discard, from_discard);
            if (win != nullptr) {
                hu_.seat[hu_.n] = s;
                hu_.win[hu_.n] = *win;
                hu_.n++;
            }
        }
        if (hu_.n) {
            ask_hu(A_CARD, D_HU);
            return;
        }
    }
    after_card_hu();
}

// Game._after_card_hu: 2. 跑 (forced, R-FLOW-3.2 / 4.2), then 3. the claim window.
void Game::after_card_hu() {
    const int c = offer_kind_, source = offer_source_, owner = offer_from_;
    const bool from_discard = source == S_DISCARD;
    const int seats[3] = {next_seat(owner), prev_seat(owner), owner};
    for (int s : seats) {
        const int mt = meld_type_of(s, c);
        if ((s != owner && (hands_[s][c] == 3 || mt == G_WEI || mt == G_CHOU_WEI)) ||
            (mt == G_PENG && !from_discard)) {
            clear_offer();
            if (hands_[s][c] == 3) {
                hands_[s][c] = 0;
                add_meld(s, G_PAO, c, false);
            } else {
                upgrade_meld(s, c, G_PAO);
            }
            event(E_PAO, s, c);
            after_take_in(s);
            return;
        }
    }
    open_claim(c, source, owner);
}

// ---------------------------------------------------------------------------- HU answers

// Game._ask_hu: offer HU to each queued seat in order; `then` says what follows if all pass.
void Game::ask_hu(AfterHu then, int decision) {
    hu_.open = true;
    hu_.head = 0;
    hu_.then = then;
    pose2(hu_.seat[0], decision, HU, PASS);
}

// Game._answer_hu
void Game::answer_hu(int a) {
    const int s = hu_.seat[hu_.head];
    const Win* win = &hu_.win[hu_.head];
    hu_.head++;
    if (a == HU) {
        hu_.open = false;
        finish(s, win, decision_ == D_TIANHU ? R_TIANHU : R_HU);
        return;
    }
    if (offer_kind_ >= 0) hu_blocked_[s] |= bit(offer_kind_);  // R-CHOU-5 臭胡
    if (hu_.head < hu_.n) {
        pose2(hu_.seat[hu_.head], decision_, HU, PASS);
        return;
    }
    hu_.open = false;
    decision_ = D_NONE;
    switch (hu_.then) {
        case A_START: after_start_hu(); break;
        case A_CARD: after_card_hu(); break;
        case A_FORCED: after_forced_hu(); break;
        default: {
            const int seat = offer_from_;
            clear_offer();
            after_take_in(seat);
        }
    }
}

// Game._after_forced_hu
void Game::after_forced_hu() {
    const ForcedTake f = forced_;
    forced_.open = false;
    clear_offer();
    decision_ = D_NONE;
    if (!apply_own_forced(f.seat, f.card, f.kind)) draw(next_seat(f.seat));
}

// ---------------------------------------------------------------------------- claims (R-CLAIM)

// Game._peng_ok: R-CHOU-2 (臭 blocks 碰 where the preset says so), R-CHI-4.
bool Game::peng_ok(int seat, int c) const {
    const Counts& h = hands_[seat];
    if (h[c] != 2) return false;
    if (rules_->chou_blocks_peng && in(chou_[seat], c)) return false;  // R-CHOU-2
    if (owes_discard(seat, 1)) {
        // R-CHI-4: something other than a 坎 must be left to discard.
        bool any = false;
        for (int k = 0; k < NUM_KINDS && !any; ++k)
            if (k != c && h[k] > 0 && h[k] < 3) any = true;
        if (!any) return false;
    }
    return true;
}

// Game._open_claim: the 碰 candidate, then the 吃 candidates (R-FLOW-3.3, R-FLOW-4.3).
void Game::open_claim(int c, int source, int owner) {
    const bool from_discard = source == S_DISCARD;
    int peng_seat = -1;
    for (int s : {next_seat(owner), prev_seat(owner)})
        if (peng_ok(s, c)) peng_seat = s;
    int chi_seats[2];
    int n_chi = 0;
    if (from_discard) {  // R-FLOW-4.3: 吃 by next(P) only, and not at all without chi_on_discard
        if (rules_->chi_on_discard) chi_seats[n_chi++] = next_seat(owner);
    } else {
        chi_seats[n_chi++] = owner;  // R-FLOW-3.3
        chi_seats[n_chi++] = next_seat(owner);
    }
    ClaimWindow& cl = claim_;
    cl.open = true;
    cl.card = c;
    cl.source = source;
    cl.owner = owner;
    cl.peng_seat = peng_seat;
    cl.next_index = 0;
    cl.n_closed = 0;
    cl.best_rank = -1;
    cl.best_seat = -1;
    for (int s = 0; s < NUM_SEATS; ++s) {
        cl.chi_options[s].clear();
        cl.blocked[s] = false;
        cl.chi_rank[s] = -1;
        cl.answers[s] = ClaimAnswer{};
    }
    for (int i = 0; i < n_chi; ++i) {
        const int s = chi_seats[i];
        cl.chi_rank[s] = i;
        if (in(chou_[s], c) || in(chi_closed_[s], c)) continue;  // R-CHOU-2, R-CHOU-4
        bool groupable = false;
        chi_groups_into(hands_[s], c, owes_discard(s, 1), &groupable, &cl.chi_options[s]);
        if (cl.chi_options[s].empty() && groupable && rules_->chou_when_chi_blocked)
            cl.blocked[s] = true;
    }
    cl.n_order = 0;
    if (peng_seat >= 0) cl.order[cl.n_order++] = peng_seat;
    for (int i = 0; i < n_chi; ++i) {
        const int s = chi_seats[i];
        if (s != peng_seat && (!cl.chi_options[s].empty() || cl.blocked[s]))
            cl.order[cl.n_order++] = s;
    }
    ask_next_claimant();
}

// Game._ask_next_claimant: a seat is skipped once nothing it could answer would take the card.
void Game::ask_next_claimant() {
    ClaimWindow& cl = claim_;
    while (cl.next_index < cl.n_order) {
        const int s = cl.order[cl.next_index];
        cl.next_index++;
        const bool can_peng = s == cl.peng_seat;
        const std::vector<int>& chi = cl.chi_options[s];
        int could[2];
        int n_could = 0;
        if (can_peng) could[n_could++] = 0;
        if (!chi.empty() || cl.blocked[s]) could[n_could++] = cl.rank_chi(s);
        if (cl.best_seat >= 0) {
            bool all_ge = true;
            for (int i = 0; i < n_could; ++i) all_ge = all_ge && could[i] >= cl.best_rank;
            if (all_ge) continue;  // nothing it could answer would take the card
        }
        // R-CHOU-4: reached, its grouping illegal. Applied when the window closes (R-CLAIM).
        if (cl.blocked[s]) {
            cl.closed[cl.n_closed++] = s;
            if (chi.empty() && !can_peng) continue;
        }
        legal_.assign(chi.begin(), chi.end());  // group ids < PENG < PASS: sorted
        if (can_peng) legal_.push_back(PENG);
        legal_.push_back(PASS);
        current_ = s;
        decision_ = D_CLAIM;
        return;
    }
    resolve_claim();
}

// Game._answer_claim
void Game::answer_claim(int seat, int a) {
    ClaimWindow& cl = claim_;
    if (a == PASS) {
        cl.answers[seat] = ClaimAnswer{ANS_PASS, 0, {}};
        ask_next_claimant();
    } else if (a == PENG) {
        cl.answers[seat] = ClaimAnswer{ANS_PENG, 0, {}};
        cl.best_rank = 0;
        cl.best_seat = seat;
        ask_next_claimant();
    } else {
        const int c = cl.card;
        const Counts u = usable(hands_[seat]);
        const Counts need = chi_need(a, c);
        bi_ = BiChain{};
        bi_.open = true;
        bi_.seat = seat;
        bi_.card = c;
        bi_.n = 1;
        bi_.ids[0] = int8_t(a);
        for (int k = 0; k < NUM_KINDS; ++k) bi_.usable[k] = u[k] - need[k];
        continue_bi();
    }
}

// Game._continue_bi: ask for the next 比 group (R-CHI-2), or end the chain: the 吃 is the answer.
void Game::continue_bi() {
    ClaimWindow& cl = claim_;
    if (bi_.left() == 0) {
        bi_.open = false;
        ClaimAnswer ans{ANS_CHI, bi_.n, {}};
        for (int i = 0; i < bi_.n; ++i) ans.groups[i] = bi_.ids[i];
        cl.answers[bi_.seat] = ans;
        const int rank = cl.rank_chi(bi_.seat);
        if (cl.best_seat < 0 || rank < cl.best_rank) {
            cl.best_rank = rank;
            cl.best_seat = bi_.seat;
        }
        ask_next_claimant();
        return;
    }
    std::vector<int> legal = bi_groups(bi_.usable, bi_.card, owes_discard(bi_.seat, 1));
    legal.push_back(PASS);
    pose(bi_.seat, D_BI, std::move(legal));
}

// Game._answer_bi: R-CHI-3: PASS cancels the whole 吃; c counts as passed.
void Game::answer_bi(int a) {
    ClaimWindow& cl = claim_;
    if (a == PASS) {
        bi_.open = false;
        cl.answers[bi_.seat] = ClaimAnswer{ANS_PASS, 0, {}};
        ask_next_claimant();
        return;
    }
    const Counts g = group_counts(a);
    for (int k = 0; k < NUM_KINDS; ++k) bi_.usable[k] -= g[k];
    if (bi_.n >= 4) throw std::logic_error("比 chain too long");
    bi_.ids[bi_.n++] = int8_t(a);
    continue_bi();
}

// Game._resolve_claim: the window closes; its effects apply now (R-CLAIM, R-CHOU-1/3/4).
void Game::resolve_claim() {
    ClaimWindow& cl = claim_;
    cl.open = false;
    const int c = cl.card, owner = cl.owner;
    for (int i = 0; i < cl.n_closed; ++i) chi_closed_[cl.closed[i]] |= bit(c);  // R-CHOU-4
    for (int s = 0; s < NUM_SEATS; ++s) {
        const ClaimAnswer& ans = cl.answers[s];
        if (ans.kind == ANS_NONE) continue;
        if (ans.kind == ANS_PASS && (!rules_->chou_rule_chi || !cl.chi_options[s].empty()))
            chou_[s] |= bit(c);  // R-CHOU-1 (chou_rule chi: only a passed 吃)
        if (s == cl.peng_seat && ans.kind != ANS_PENG)
            declined_peng_[s] |= bit(c);  // R-CHOU-3 忍碰; also when it answered 吃 instead
    }
    clear_offer();
    if (cl.best_seat < 0) {
        to_discard_area(c, owner);
        return;
    }
    const int s = cl.best_seat;
    const ClaimAnswer ans = cl.answers[s];
    Counts& h = hands_[s];
    if (ans.kind == ANS_PENG) {
        h[c] -= 2;
        add_meld(s, G_PENG, c, false);
        event(E_PENG, s, c);
    } else {
        for (int i = 0; i < ans.n; ++i) {
            const int a = ans.groups[i];
            const Counts need = i == 0 ? chi_need(a, c) : group_counts(a);
            for (int k = 0; k < NUM_KINDS; ++k) h[k] -= need[k];
            add_meld(s, G_CHI, a, true);
            event_group(i == 0 ? E_CHI : E_BI, s, a);
        }
    }
    after_take_in(s);
}

// Game._to_discard_area: R-FLOW-3.4 / 4.4: nobody took c.
void Game::to_discard_area(int c, int owner) {
    clear_offer();
    discards_[owner].push_back(c);
    event(E_TO_DISCARDS, owner, c);
    draw(next_seat(owner));
}

// ---------------------------------------------------------------------------- discards (R-FLOW-4)

// Game._discard
void Game::discard(int seat, int k) {
    hands_[seat][k] -= 1;
    played_[seat] = true;
    if (!rules_->chou_rule_chi) chou_[seat] |= bit(k);  // R-CHOU-1: one's own discard
    event(E_DISCARD, seat, k);
    decision_ = D_NONE;
    offer_card(k, S_DISCARD, seat);
}

}  // namespace phz

namespace phz {

std::vector<int> Game::hidden_wei_positions(int s) const {
    std::vector<int> out;
    for (const Meld& m : melds_[s])
        if (m.type == G_WEI) out.push_back(wei_pos_[s][m.kind0()]);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace phz
