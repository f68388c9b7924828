// The observation encoders paohuzi-obs-v1 / v2 (paohuzi_env.encode.observation.encode) and the
// full-information state (paohuzi_env.encode.state: state_extra, encode_state), bit-identical float32.
//
// Python computes each entry in double and rounds it to float32 on store; `x[i] += 0.25` reads
// the float back first. The port does the same (every value is formed in double, then cast).
#pragma once

#include "engine.hpp"
#include "view.hpp"

namespace phz {

constexpr int OBS_SIZE = 763;     // observation.OBS_SIZE (v1)
constexpr int OBS_SIZE_V2 = 771;  // observation.OBS_SIZE_V2 (with 王)
constexpr int OBS_UNSEEN = 740;  // observation.UNSEEN: the unseen copies of each kind, / 4
constexpr int STATE_EXTRA_SIZE = 160;     // state.STATE_EXTRA_SIZE
constexpr int STATE_EXTRA_SIZE_V2 = 166;  // state._STATE_EXTRA_SIZE_V2

inline int obs_size(const Rules& r) { return r.wang ? OBS_SIZE_V2 : OBS_SIZE; }
inline int obs_size_of(const View& v) { return v.jokers > 0 ? OBS_SIZE_V2 : OBS_SIZE; }
inline int state_extra_size(const Rules& r) { return r.wang ? STATE_EXTRA_SIZE_V2 : STATE_EXTRA_SIZE; }
inline int state_size(const Rules& r) { return obs_size(r) + state_extra_size(r); }

// observation.encode: writes obs_size_of(v) floats to out (all of them: zeros included).
void encode(const View& v, float* out);
// state.state_extra(game, seat): writes state_extra_size(rules) floats.
void state_extra(const Game& g, int seat, float* out);
// state.encode_state(game, seat): the observation of view(seat), then state_extra; writes
// state_size(rules) floats. `scratch` (optional) is a View whose storage is reused.
void encode_state(const Game& g, int seat, float* out, View* scratch = nullptr);

}  // namespace phz
