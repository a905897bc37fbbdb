// The offset search (AP-PP-07): every legal layer_offset within +-range of the even split's, each
// with its least-time recompute that fits memory, simulated and ranked. A simpler alternative to
// PPB's optimal mode that stays within MindFormers' offset form.
#pragma once

#include <cstdint>
#include <vector>

#include "ppb/model/model.hpp"
#include "ppb/model/pipeline_shape.hpp"
#include "ppb/model/stage_component.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

struct OffsetSearchOptions {
  std::vector<int> recompute_options;  // indices into Model::recompute_options the search may use
  int range = 1;                       // offsets within +-range of the even split's
  bool allow_empty_stages = false;
  std::int64_t max_candidates = 10'000;    // offsets evaluated at most
  double time_budget_ms = 2000;            // no new offset is started after it
  std::vector<StageComponent> components;  // outside per-stage time and memory (request.components)
};

struct OffsetCandidate {
  std::vector<int> layer_offset;
  Estimate estimate;
};

enum class OffsetSearchStop { none, max_candidates, time_budget };

struct OffsetSearchResult {
  std::vector<OffsetCandidate> candidates;         // feasible first, then by step time
  OffsetSearchStop stop = OffsetSearchStop::none;  // which limit ended the search, if one did
};

// Every legal layer_offset (summing to B mod V, every stage without a pinned layer keeping a body
// layer unless empty stages are allowed) within +-range of the even split's, each with its best
// recompute, ranked: feasible first, then by step time. Offsets are visited nearest the even split
// first (by the summed distance of their entries), so a search cut by max_candidates or the time
// budget has evaluated the smallest moves. The even split itself is always evaluated.
//   OffsetSearchOptions options;
//   options.range = 2;
//   const OffsetSearchResult r = offset_search(model, device, shape, options);
//   r.candidates.front().layer_offset;  // the best offset found
OffsetSearchResult offset_search(const Model& model, const Device& device, const PipelineShape& shape,
                                 const OffsetSearchOptions& options);

}  // namespace ppb
