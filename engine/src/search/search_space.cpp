// Enumerating the search space: every shape with its micro batch count and data-parallel degree,
// the ones a rule rules out counted by reason.
#include "ppb/search/search_space.hpp"

#include <map>

#include "ppb/schedule/shape_rules.hpp"

namespace ppb {

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
        if (vpp_rule_broken(vpp, schedule)) continue;  // not a combination
        std::vector<Batch> batches;
        std::string skip;
        if (space.cluster) {
          const SearchCluster& c = *space.cluster;
          // world_size divisible by pp x tp x cp, tested one factor at a time so that nothing overflows.
          if (c.world_size % pp != 0 || (c.world_size / pp) % c.tp_degree != 0 ||
              (c.world_size / pp / c.tp_degree) % c.cp_degree != 0) {
            skip = "world_size is not divisible by pp_degree x tp_degree x cp_degree";
          } else {
            const std::int64_t dp = c.world_size / pp / c.tp_degree / c.cp_degree;
            if (dp % space.ep_degree != 0)
              skip = "dp_degree is not divisible by ep_degree";
            else if (c.global_batch_size % (c.micro_batch_size * dp) != 0)
              skip = "global_batch_size is not divisible by micro_batch_size x dp_degree";
            else
              batches.push_back({c.global_batch_size / (c.micro_batch_size * dp), dp});
          }
        } else {
          if (space.dp_degree && *space.dp_degree % space.ep_degree != 0)
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
          const PipelineShape shape{pp, vpp, b.micro_batch_num, schedule};
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
