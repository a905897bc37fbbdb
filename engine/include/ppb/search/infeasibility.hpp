// Why no plan fits, and what would: a lower bound on the largest stage peak that every plan of a
// pipeline shape must reach, a decision whether some plan of a shape fits, and, for a plan over the
// memory limit, the explanation a person can act on (the smallest pp_degree that fits, a recompute
// option that would make this one fit, the memory the plan needs).
//
// The bound (docs/search.md, "Infeasibility explained"): a stage's peak is its static memory,
// reserved memory, its components' memory and at least the activation of one micro batch of one of
// its chunks (held from the start of a forward). Averaged over the pp_degree stages, the largest
// peak is at least reserved + (static + activation / vpp_degree + components) / pp_degree, with
// every layer on its most activation-saving recompute option; and the stage that holds the largest
// layer, or the pinned-first or pinned-last layers, holds at least those.
//
//   const MemoryBound b = memory_lower_bound(model, device, {.pp_degree = 8}, {}, {});
//   if (b.peak_mib > *device.memory_limit_mib) ...  // no partition of 8 stages fits
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ppb/balance/balance.hpp"
#include "ppb/model/device.hpp"
#include "ppb/model/model.hpp"
#include "ppb/model/pipeline_shape.hpp"
#include "ppb/model/stage_component.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

struct MemoryBound {
  double peak_mib = 0;          // no plan of the shape has its largest stage peak below this
  double static_share_mib = 0;  // its static part: the stages' average share, or the largest piece one stage must hold
  double static_total_mib = 0;  // static memory of the whole model
};

MemoryBound memory_lower_bound(const Model& model, const Device& device, const PipelineShape& shape,
                               const std::vector<int>& recompute_options,
                               const std::vector<StageComponent>& components);

enum class Fit {
  fits,        // some plan fits the memory limit
  cannot_fit,  // proven: no plan fits
  unknown,     // the bound does not rule the shape out, and nothing cheaper decides it
};

// Whether some plan of `shape` fits the memory limit with these options (recompute options,
// components, empty stages). Decided by the bound where it rules the shape out, and exactly by the
// balancer's least-over phase where it applies (one chunk per stage); otherwise unknown.
Fit decide_fit(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options);

struct Infeasibility {
  bool proven = false;  // no plan of the shape fits (by the bound, or decided by the balancer)
  double limit_mib = 0;
  MemoryBound bound;             // at the shape asked
  double memory_needed_mib = 0;  // the plan's largest stage peak: a limit under which it fits
  // The smallest pp_degree above the one asked at which a plan fits (checked), or, where that cannot
  // be decided (several chunks per stage), that the bound does not rule out.
  std::optional<int> min_pp_degree;
  bool min_pp_degree_checked = false;
  // A recompute option the model offers but the request did not allow, with which a plan of this
  // shape fits (checked), or is not ruled out where that cannot be decided.
  std::optional<std::string> recompute_option;
  bool recompute_option_checked = false;
  std::string message;                   // what is wrong, with the numbers
  std::vector<std::string> suggestions;  // what would fit, one sentence each
};

// Whether a finished balance proved that no plan of its shape fits: its least-over phase (one chunk
// per stage) found even the plan over the limit by the least over it.
bool balance_proves_none_fits(const BalanceResult& balanced);

// The explanation for a plan over the memory limit, whose largest stage needs `largest_peak_mib`;
// none when that is within the limit or there is no limit. `proven_elsewhere`: something else (a
// balance, balance_proves_none_fits) proved that no plan of the shape fits. `other_pp_degree` gives
// the shape to try at a larger pp_degree, or none where that pp_degree cannot run (a world size it
// does not divide, say); the search passes its cluster's arithmetic, the balance same_shape_at.
std::optional<Infeasibility> explain_infeasibility(
    const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options,
    double largest_peak_mib, bool proven_elsewhere,
    const std::function<std::optional<PipelineShape>(int pp_degree)>& other_pp_degree);

// The same for a plan of a balance (or, with `balanced` null, of another search) of `shape`: larger
// pp_degrees are tried as the same shape at them (same_shape_at).
std::optional<Infeasibility> explain_infeasibility(const Model& model, const Device& device, const PipelineShape& shape,
                                                   const std::vector<int>& recompute_options, bool allow_empty_stages,
                                                   const std::vector<StageComponent>& components, const Estimate& plan,
                                                   const BalanceResult* balanced);

// The same shape at another pp_degree, or none where the schedule's rules do not let it run.
std::optional<PipelineShape> same_shape_at(const PipelineShape& shape, int pp_degree);

}  // namespace ppb
