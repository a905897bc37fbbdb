// Enumerating the search space: every shape with its micro batch count and data-parallel degree,
// the ones a rule rules out counted by reason.
#include "ppb/search/search_space.hpp"

#include <map>
#include <numeric>

#include "ppb/core/diagnostics.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/schedule/shape_rules.hpp"

namespace ppb {

namespace {

std::string str(std::int64_t x) { return std::to_string(x); }

}  // namespace

ClusterShare cluster_dp_degree(const SearchCluster& c, int pp, std::int64_t ep) {
  ClusterShare out;
  // world_size divisible by pp x tp x cp, tested one factor at a time so that nothing overflows.
  if (c.world_size % pp != 0 || (c.world_size / pp) % c.tp_degree != 0 ||
      (c.world_size / pp / c.tp_degree) % c.cp_degree != 0) {
    out.group = "world_size is not divisible by pp_degree x tp_degree x cp_degree";
    out.code = "CLUSTER_NOT_DIVISIBLE";
    out.path = "/training/world_size";
    out.message = "world_size " + str(c.world_size) +
                  " is not divisible by pp_degree x tp_degree x cp_degree = " + str(pp) + " x " + str(c.tp_degree) +
                  " x " + str(c.cp_degree) + ".";
    return out;
  }
  const std::int64_t dp = c.world_size / pp / c.tp_degree / c.cp_degree;
  out.dp_degree = dp;
  const std::int64_t etp = c.expert_tp_degree > 0 ? c.expert_tp_degree : c.tp_degree;
  if (!experts_divide(dp, c.tp_degree, c.cp_degree, ep, etp)) {
    out.group = "dp_degree is not divisible by ep_degree";
    out.code = "DP_NOT_DIVISIBLE_BY_EP";
    out.path = "/training/ep_degree";
    out.message = "the experts' ranks, ep_degree " + str(ep) + " x expert tp " + str(etp) +
                  ", do not divide the ranks of a stage, dp_degree " + str(dp) +
                  " (world_size / (pp_degree x tp_degree x cp_degree)) x cp_degree " + str(c.cp_degree) +
                  " x tp_degree " + str(c.tp_degree) + ".";
  }
  return out;
}

bool experts_divide(std::int64_t dp, std::int64_t tp, std::int64_t cp, std::int64_t ep, std::int64_t expert_tp) {
  // ep x expert tp divides dp x tp x cp when removing each factor's common part leaves 1 (no product
  // of three degrees up to 10^9 each is formed).
  std::int64_t experts = std::max<std::int64_t>(1, ep) * std::max<std::int64_t>(1, expert_tp);
  for (const std::int64_t factor : {dp, tp, cp}) experts /= std::gcd(experts, std::max<std::int64_t>(1, factor));
  return experts == 1;
}

ClusterShare cluster_share(const SearchCluster& c, int pp, std::int64_t ep) {
  ClusterShare out = cluster_dp_degree(c, pp, ep);
  if (!out.group.empty()) return out;
  // The estimate's own rule, so that a candidate's micro batches are what its plan would derive.
  Diagnostics d;
  Training training;
  training.global_batch_size = c.global_batch_size;
  training.micro_batch_size = c.micro_batch_size;
  training.dp_degree = out.dp_degree;
  out.micro_batch_num = resolve_micro_batch_num(training, PipelineSpec{}, d);
  if (!out.micro_batch_num && !d.errors().empty()) {
    const Diagnostic& e = d.errors().front();
    out.group = "global_batch_size is not divisible by micro_batch_size x dp_degree";
    out.code = e.code;
    out.path = e.path;
    out.message = e.message;
  }
  return out;
}

SearchEnumeration enumerate_search_space(const SearchSpace& space, std::int64_t max_combinations) {
  SearchEnumeration out;
  out.stated = space;
  std::map<std::string, std::int64_t> skipped;
  const std::int64_t free_counts = static_cast<std::int64_t>(space.micro_batch_nums.size());
  for (int pp : space.pp_degrees)
    for (int vpp : space.vpp_degrees)
      for (Schedule schedule : space.schedules) {
        struct Batch {
          std::int64_t micro_batch_num;
          std::optional<std::int64_t> dp_degree;
        };
        if (!vpp_runs(vpp, schedule)) continue;  // not a combination
        std::vector<Batch> batches;
        std::string skip;
        if (space.cluster) {
          const ClusterShare share = cluster_share(*space.cluster, pp, space.ep_degree);
          if (!share.group.empty())
            skip = share.group;
          else
            batches.push_back({*share.micro_batch_num, share.dp_degree});
        } else {
          if (space.dp_degree && !experts_divide(*space.dp_degree, space.tp_degree, space.cp_degree, space.ep_degree,
                                                 space.expert_tp_degree))
            skip = "dp_degree is not divisible by ep_degree";
          else
            for (std::int64_t m : space.micro_batch_nums) batches.push_back({m, space.dp_degree});
        }
        const std::int64_t count =
            !skip.empty() ? (space.cluster ? 1 : free_counts) : static_cast<std::int64_t>(batches.size());
        out.space += count;
        if (!skip.empty()) {
          skipped[skip] += count;
          continue;
        }
        for (const Batch& b : batches) {
          const PipelineShape shape{pp, vpp, b.micro_batch_num, schedule, space.max_in_flight};
          if (auto broken = shape_rule_broken(shape)) {
            ++skipped[broken->group];
            continue;
          }
          if (static_cast<std::int64_t>(out.combinations.size()) >= max_combinations) {
            out.over_limit = true;
            return out;
          }
          out.combinations.push_back({shape, b.dp_degree});
        }
      }
  for (auto& [reason, count] : skipped) out.skipped.push_back({reason, count});
  return out;
}

}  // namespace ppb
