// The search space: the pipeline shapes a strategy search tries (pp_degree x vpp_degree x
// schedule x micro_batch_num), with the data-parallel degree of each, and the enumeration of the
// combinations that can run. A vpp_degree pairs only with the schedules that run it (shape_rules.hpp):
// other pairs are not combinations at all. Combinations that break a rule of their own (a world size
// the degrees do not divide, micro batches a schedule cannot group) are counted by reason, never
// dropped silently.
//
//   SearchSpace space;
//   space.pp_degrees = {1, 2, 4};
//   space.micro_batch_nums = {8};
//   const SearchEnumeration e = enumerate_search_space(space);  // 3 combinations of 1f1b, vpp 1
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ppb/core/limits.hpp"
#include "ppb/model/pipeline_shape.hpp"
#include "ppb/model/schedule_names.hpp"

namespace ppb {

// The cluster a search is coupled to: each pp_degree gets dp_degree = world_size / (pp x tp x cp)
// and micro_batch_num = global_batch_size / (micro_batch_size x dp_degree).
struct SearchCluster {
  std::int64_t world_size = 1;  // devices
  std::int64_t tp_degree = 1;
  std::int64_t cp_degree = 1;
  std::int64_t global_batch_size = 1;
  std::int64_t micro_batch_size = 1;
  std::int64_t expert_tp_degree = 0;  // the experts' tensor parallelism; 0: tp_degree
};

// Megatron-LM's rule for expert layers (MoE parallel folding): the ep x expert tp ranks of one copy of
// the experts divide the dp x cp x tp ranks of a pipeline stage.
//   experts_divide(16, 2, 1, 32, 1)  // true: Qwen3-235B as NVIDIA runs it (tp 2, ep 32, expert tp 1)
bool experts_divide(std::int64_t dp, std::int64_t tp, std::int64_t cp, std::int64_t ep, std::int64_t expert_tp);

// What a cluster gives one pp_degree (the one rule the search and the `cluster` command share):
// dp_degree = world_size / (pp x tp x cp), whose ranks the experts must divide (experts_divide), and
// micro_batch_num = global_batch_size / (micro_batch_size x dp_degree) (resolve_micro_batch_num).
//   cluster_share({.world_size = 256, .tp_degree = 8, .global_batch_size = 256}, 8, 1)
//     // dp_degree 4, micro_batch_num 64
struct ClusterShare {
  std::optional<std::int64_t> dp_degree;        // none: the degrees do not divide the cluster
  std::optional<std::int64_t> micro_batch_num;  // none: no dp_degree, or the batch does not divide
  // The rule broken, empty when none: `group` as a category (the search's skipped reasons), `code`,
  // `path` (the request field) and `message` (with the numbers) as a problem a person can act on.
  std::string group;
  std::string code;
  std::string path;
  std::string message;
};
// The dp_degree alone (for a cluster whose global batch is not known).
ClusterShare cluster_dp_degree(const SearchCluster& cluster, int pp_degree, std::int64_t ep_degree);
// The dp_degree and the micro batch count.
ClusterShare cluster_share(const SearchCluster& cluster, int pp_degree, std::int64_t ep_degree);

struct SearchSpace {
  std::vector<int> pp_degrees;
  std::vector<int> vpp_degrees = {1};  // each pairs with the schedules that run it
  std::vector<Schedule> schedules = {Schedule::one_f_one_b};
  // Without a cluster: the micro batch counts to try, each with every shape.
  std::vector<std::int64_t> micro_batch_nums;
  std::optional<SearchCluster> cluster;
  // Without a cluster: every candidate's data-parallel degree (none: not known).
  std::optional<std::int64_t> dp_degree;
  // Expert parallelism is folded into a stage's dp x cp x tp ranks (Megatron-LM): it takes no
  // devices of its own, but its ranks (ep x expert tp) must divide them (experts_divide).
  std::int64_t ep_degree = 1;
  std::int64_t tp_degree = 1, cp_degree = 1;
  std::int64_t expert_tp_degree = 1;
  int max_in_flight = 0;  // zb_auto's cap for every candidate (pipeline.max_in_flight; 0: 2 x its pp_degree)
};

// One point of the space: a pipeline shape and its data-parallel degree.
struct SearchCombination {
  PipelineShape shape;
  std::optional<std::int64_t> dp_degree;  // none: not known
};

struct ReasonCount {
  std::string reason;
  std::int64_t count = 0;
};

struct SearchEnumeration {
  SearchSpace stated;                           // the space as stated, to try other shapes of it
  std::vector<SearchCombination> combinations;  // in the order pp, vpp, schedule, micro_batch_num
  std::vector<ReasonCount> skipped;             // by reason, in the order of the reasons' text
  // Combinations, skipped ones included: a shape skipped before its micro batches are known counts
  // once per micro_batch_num it would have run with (once when coupled to a cluster).
  std::int64_t space = 0;
  // More than `max_combinations` would be left to evaluate; `combinations` stops there.
  bool over_limit = false;
};

SearchEnumeration enumerate_search_space(const SearchSpace& space,
                                         std::int64_t max_combinations = limits::max_search_candidates);

}  // namespace ppb
