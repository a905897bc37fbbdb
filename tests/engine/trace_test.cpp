// The Chrome trace of schedules with split backwards and F&B pairs: every operation one complete
// event, an F&B pair named after both its micro batches and carrying both chunks.
#include "ppb/interop/trace.hpp"

#include <gtest/gtest.h>

namespace ppb {
namespace {

TEST(Trace, DualPipeVPairsAndSplitBackwardsAreNamed) {
  Model model;
  for (int i = 0; i < 4; ++i) {
    Layer l;
    l.name = "l";
    l.name += std::to_string(i);
    l.forward_ms = 1;
    l.backward_ms = 2;
    l.weight_backward_ms = 1;
    model.layers.push_back(l);
  }
  Plan plan;
  plan.schedule = Schedule::dualpipev;
  plan.pp_degree = 2;
  plan.vpp_degree = 2;
  plan.micro_batch_num = 4;
  plan.stage_layers = {1, 1, 1, 1};
  plan.recompute.assign(4, -1);
  const Estimate e = estimate(model, Device{}, plan, true);
  const auto trace = chrome_trace(e, model);
  int complete = 0, pairs = 0, split = 0;
  for (const auto& ev : trace["traceEvents"]) {
    if (ev["ph"] != "X") continue;
    ++complete;
    if (ev["cat"] == "F&B") {
      ++pairs;
      std::string expected = "F";
      expected += std::to_string(ev["args"]["micro_batch"].get<int>());
      expected += "&B";
      expected += std::to_string(ev["args"]["backward_micro_batch"].get<int>());
      EXPECT_EQ(ev["name"], expected);
      EXPECT_NE(ev["args"]["virtual_stage"], ev["args"]["backward_virtual_stage"]);
    }
    if (ev["cat"] == "B" && ev["args"]["weight_apart"] == true) ++split;
  }
  // 4 virtual stages x 4 micro batches: 16 forwards and 16 backwards, 6 of each paired in F&B
  // (tests/engine/simulate_test.cpp counts them), and one W per split backward. Split backwards, by
  // DualPipeV's phases: rank 0 one in phase 3, one in phase 6 (from its down backward on, even rank),
  // one in phase 7; rank 1 two in phase 6 (its second iteration, odd rank): 5.
  EXPECT_EQ(pairs, 6);
  EXPECT_EQ(split, 5);
  EXPECT_EQ(complete, 16 + 16 - 6 + split);
  EXPECT_EQ(trace["otherData"]["span_ms"], e.span_ms);
}

}  // namespace
}  // namespace ppb
