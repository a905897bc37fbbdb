// What the engine runs, as JSON, for a page that must not keep rules of its own: every schedule by its
// contract name with the chunk counts it runs (from the schedule's own conditions, vpp_rule_broken),
// the one it runs when none is given, whether it runs weight gradients apart from their backward (so
// that its span differs from its step time) and whether it places its chunks in a V.
//   schedules_json()  // {"schedules": [{"name": "gpipe", "vpp_degree": {"min": 1, "max": 1,
//                     //   "default": 1}, "weight_apart": false, "v_shape": false}, ...]}
#pragma once

#include <string>

namespace ppb {

// Every schedule in the contract's order; vpp_degree.max is the largest chunk count it runs up to the
// cap on vpp_degree (limits::max_vpp_degree).
std::string schedules_json();

}  // namespace ppb
