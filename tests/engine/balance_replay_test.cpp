// The balancer's replay of a schedule program (plan_replay.hpp) against the simulator: the same step
// time, to the last bit, under every schedule program, with transfers, communication inside the
// times, weight gradients apart and outside tails; and the same abort rule.
#include <gtest/gtest.h>

#include <random>

#include "balance/plan_replay.hpp"
#include "ppb/model/schedule_names.hpp"
#include "ppb/simulate/simulate.hpp"
#include "ppb/simulate/zb_auto.hpp"

namespace ppb {
namespace {

TEST(PlanReplay, EqualsTheSimulator) {
  std::mt19937 rng(18);
  std::uniform_real_distribution<double> time(0.25, 6.0), share(0.0, 0.6), send(0.0, 1.5);
  std::uniform_int_distribution<int> coin(0, 1);
  for (const Schedule schedule : all_schedules) {
    int checked = 0;
    for (int pp : {1, 2, 3, 4})
      for (int vpp : {1, 2, 3})
        for (std::int64_t m : {1, 2, 3, 4, 6, 8, 12}) {
          SimulationInput in;
          in.schedule = schedule;
          in.pp_degree = pp;
          in.vpp_degree = vpp;
          in.micro_batch_num = m;
          if (!schedule_accepts(in)) continue;  // shapes the schedule does not run
          for (int v = 0; v < in.virtual_stages(); ++v) {
            VirtualStageCost c;
            c.forward_ms = time(rng);
            c.backward_ms = c.forward_ms + time(rng);
            c.weight_ms = share(rng) * c.backward_ms;
            c.forward_comm_ms = coin(rng) ? share(rng) * c.forward_ms : 0;
            c.backward_comm_ms = coin(rng) ? share(rng) * c.backward_ms : 0;
            const bool crosses = v + 1 < in.virtual_stages() && in.physical_stage(v) != in.physical_stage(v + 1);
            c.send_ms = crosses && coin(rng) ? send(rng) : 0;
            in.costs.push_back(c);
          }
          if (coin(rng))
            for (int s = 0; s < pp; ++s) in.stage_tail_ms.push_back(send(rng));
          const Program program = program_for(in);  // zb_auto's for these costs, as the simulator writes it
          const double want = simulate(in).step_time_ms;
          balancer::PlanReplay replay(in, program, in.stage_tail_ms);
          bool aborted = true;
          EXPECT_EQ(replay.step_time(in.costs, std::numeric_limits<double>::infinity(), aborted), want)
              << schedule_name(schedule) << " pp " << pp << " vpp " << vpp << " m " << m;
          EXPECT_FALSE(aborted);
          // The simulator's abort rule: a plan is aborted exactly when it ends above the threshold.
          replay.step_time(in.costs, want, aborted);
          EXPECT_FALSE(aborted);
          replay.step_time(in.costs, want * (1 - 1e-9), aborted);
          EXPECT_TRUE(aborted);
          ++checked;
        }
    EXPECT_GT(checked, 3) << schedule_name(schedule);
  }
}

}  // namespace
}  // namespace ppb
