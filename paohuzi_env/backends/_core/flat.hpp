// A flat (open-addressing, linear-probing) hash map for the memo tables: one array of slots, no
// node per entry, no erase. The memos store plain values or pointers into stable storage, so a
// rehash (which moves slots) never invalidates what a caller holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace phz {

inline uint64_t mix64(uint64_t x) {  // the splitmix64 finaliser
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27; x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

struct U64Hash {
    size_t operator()(uint64_t k) const { return size_t(mix64(k)); }
};

template <class Key, class Value, class Hash>
class FlatMap {
public:
    // The value of `k`, or nullptr. The pointer is valid until the next insert() or clear().
    Value* find(const Key& k) {
        if (slots_.empty()) return nullptr;
        for (size_t i = Hash()(k) & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (!s.used) return nullptr;
            if (s.key == k) return &s.value;
        }
    }
    // Adds `k` (which must not be present); grows at half load.
    Value* insert(const Key& k, const Value& v) {
        if (2 * (size_ + 1) > slots_.size()) grow();
        Slot* s = place(k);
        s->used = true;
        s->key = k;
        s->value = v;
        ++size_;
        return &s->value;
    }
    size_t size() const { return size_; }
    // Empties the map; keeps its memory unless `release`.
    void clear(bool release = false) {
        if (release) {
            std::vector<Slot>().swap(slots_);
            mask_ = 0;
        } else {
            for (Slot& s : slots_) s.used = false;
        }
        size_ = 0;
    }
    template <class F> void for_each(F&& f) {
        for (Slot& s : slots_)
            if (s.used) f(s.key, s.value);
    }

private:
    struct Slot {
        Key key{};
        Value value{};
        bool used = false;
    };
    Slot* place(const Key& k) {
        for (size_t i = Hash()(k) & mask_;; i = (i + 1) & mask_)
            if (!slots_[i].used) return &slots_[i];
    }
    void grow() {
        std::vector<Slot> old;
        old.swap(slots_);
        const size_t n = old.empty() ? 1024 : old.size() * 2;
        slots_.assign(n, Slot{});
        mask_ = n - 1;
        for (Slot& s : old)
            if (s.used) *place(s.key) = s;
    }
    std::vector<Slot> slots_;
    size_t size_ = 0, mask_ = 0;
};

}  // namespace phz
