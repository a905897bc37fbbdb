// The schedules' facts the page reads instead of rules of its own: every schedule in the contract's
// order with the chunk counts it runs, its default, and whether B and W run apart. Expected values
// from the contract (docs/contract.md): interleaved_1f1b (and its overlap variant) needs vpp_degree
// >= 2, zbv, dualpipev, v_half and v_min run two chunks, the rest one; zb_h1, zb_h2, zbv, dualpipev,
// zb_auto, v_half and v_min split the weight gradient;
// zb_auto alone writes its order for the stage costs.
#include "ppb/io/schedules_writer.hpp"

#include <gtest/gtest.h>

#include "helpers.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/model/schedule_names.hpp"
#include "ppb/schedule/shape_rules.hpp"

namespace ppb::test {
namespace {

TEST(SchedulesWriter, EveryScheduleWithTheChunkCountsItRuns) {
  const json list = json::parse(schedules_json())["schedules"];
  struct Expected {
    const char* name;
    int min, max, default_vpp;
    bool weight_apart, v_shape;
    bool cost_aware = false;
  };
  const Expected expected[] = {
      {"gpipe", 1, 1, 1, false, false},
      {"1f1b", 1, 1, 1, false, false},
      {"interleaved_1f1b", 2, 64, 2, false, false},
      {"zb_h1", 1, 1, 1, true, false},
      {"zb_h2", 1, 1, 1, true, false},
      {"zbv", 2, 2, 2, true, true},
      {"dualpipev", 2, 2, 2, true, true},
      {"zb_auto", 1, 1, 1, true, false, true},
      {"interleaved_1f1b_overlap", 2, 64, 2, false, false},
      {"v_half", 2, 2, 2, true, true},
      {"v_min", 2, 2, 2, true, true},
      {"interleaved_zero_bubble", 2, 64, 2, true, false},
      {"looped_bfs", 2, 64, 2, false, false},
  };
  ASSERT_EQ(list.size(), std::size(expected));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& s = list[i];
    const Expected& e = expected[i];
    EXPECT_EQ(s["name"], e.name);
    EXPECT_EQ(s["vpp_degree"]["min"], e.min) << e.name;
    EXPECT_EQ(s["vpp_degree"]["max"], e.max) << e.name;
    EXPECT_EQ(s["vpp_degree"]["default"], e.default_vpp) << e.name;
    EXPECT_EQ(s["weight_apart"], e.weight_apart) << e.name;
    EXPECT_EQ(s["v_shape"], e.v_shape) << e.name;
    EXPECT_EQ(s["cost_aware"], e.cost_aware) << e.name;
  }
}

// The facts above are counted with vpp_runs, which skips the sentences: it must say what
// vpp_rule_broken says for every schedule and chunk count.
TEST(SchedulesWriter, TheQuickChunkRuleAgreesWithTheOneThatExplains) {
  int runs = 0;
  for (Schedule schedule : all_schedules)
    for (int vpp = 1; vpp <= static_cast<int>(limits::max_vpp_degree); ++vpp) {
      EXPECT_EQ(vpp_runs(vpp, schedule), !vpp_rule_broken(vpp, schedule).has_value())
          << schedule_name(schedule) << " vpp " << vpp;
      runs += vpp_runs(vpp, schedule) ? 1 : 0;
    }
  // From the table above: 5 schedules of one chunk, 4 of two, 4 of 2 to 64 (63 counts each).
  EXPECT_EQ(runs, 5 * 1 + 4 * 1 + 4 * 63);
}

}  // namespace
}  // namespace ppb::test
