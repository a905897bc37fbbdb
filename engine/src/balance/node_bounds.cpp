// The branch and bound's node bounds with several chunks per stage: each physical stage's own work
// from the chunks chosen so far (levels) and the fill of the stages not started yet (water_level).
// See branch_and_bound.hpp.
#include "branch_and_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ppb::balancer {

// Several chunks per stage: the own-work bound of every physical stage other than virtual stage v's
// that still takes a chunk after v, from the chunks chosen before v (their recompute included once
// their stage is complete), and the stages not started yet (water_level bounds their fill).
void BranchAndBound::levels(int v) {
  const int s_now = p_.stage_of(v);
  level_.assign(static_cast<std::size_t>(p_.pp), 0);
  open_.assign(static_cast<std::size_t>(p_.pp), 0);
  std::vector<char> started(static_cast<std::size_t>(p_.pp), 0);
  for (int u = 0; u < p_.V; ++u) {
    const auto s = static_cast<std::size_t>(p_.stage_of(u));
    if (u < v) {
      const VirtualStageCost& c = costs_[static_cast<std::size_t>(u)];
      level_[s] += p_.m * (c.forward_ms + c.backward_ms - (p_.overlaps ? c.forward_comm_ms + c.backward_comm_ms : 0));
      started[s] = 1;
    } else if (u > v) {
      open_[s] = 1;
    }
  }
  others_.clear();
  unstarted_.clear();
  for (int s = 0; s < p_.pp; ++s) {
    const auto us = static_cast<std::size_t>(s);
    if (s == s_now || !open_[us]) continue;
    if (started[us])
      others_.push_back(level_[us] + stage_pf_[us] + (p_.split ? 0 : stage_pb_[us]));
    else
      unstarted_.push_back(s);
  }
  v_ = v;
}

// A lower bound of every completion when virtual stage v ends at b: the layers from b on add m times
// their work to the stages that still take a chunk, so the largest own-work bound is at least the
// level that work fills them to (water filling over the stages' bounds so far). `current` is v's
// stage's bound with [a, b) when that stage takes a later chunk too, negative when it does not.
double BranchAndBound::water_level(int b, double current) {
  const double water = p_.m * work(b, p_.L);
  if (water <= 0) return 0;
  filling_ = others_;
  if (current >= 0) filling_.push_back(current);
  // A stage not started yet starts its chunk 0 (virtual stage s) after v's end b and the virtual
  // stages between, each of at least min_size layers: its fill, and its drain when counted, are at
  // least those layers' forward and backward and s of the cheapest transfers.
  for (const int s : unstarted_) {
    const auto start = static_cast<std::size_t>(std::min(p_.L, b + (s - v_ - 1) * p_.min_size));
    const double sends = s * p_.min_send;
    filling_.push_back(p_.prefix_f[start] + sends + (p_.split ? 0 : p_.prefix_b[start] + sends));
  }
  std::sort(filling_.begin(), filling_.end());
  if (filling_.empty()) return kInf;  // no stage can take the remaining layers
  double filled = 0, level = filling_[0];
  for (std::size_t k = 1; k <= filling_.size(); ++k) {
    const double next = k < filling_.size() ? filling_[k] : kInf;
    const double n = static_cast<double>(k);  // stages under the water
    if (filled + n * (next - level) >= water) return level + (water - filled) / n;
    filled += n * (next - level);
    level = next;
  }
  return level;
}

}  // namespace ppb::balancer
