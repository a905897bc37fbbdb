// The timing rules (timing.hpp), defined once: each rule against a hand-worked case, and the three
// readers of the rules (the simulator, the balancer's replay, the longest path through a program)
// held equal on random plans under every schedule, with transfers, communication inside the times,
// weight gradients apart and outside tails.
#include "ppb/simulate/timing.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

#include "balance/plan_replay.hpp"
#include "balance/program_paths.hpp"
#include "balance_helpers.hpp"
#include "ppb/model/schedule_names.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb::test {
namespace {

Op op(OpKind kind, int v, int mb, bool apart = false, int bv = -1, int bmb = -1) {
  return {kind, apart, v, mb, bv, bmb};
}

void expect_input(const timing::Input& x, bool backward, int v, int mb, int send_after) {
  EXPECT_EQ(x.backward, backward);
  EXPECT_EQ(x.virtual_stage, v);
  EXPECT_EQ(x.micro_batch, mb);
  EXPECT_EQ(x.send_after, send_after);
}

// Three virtual stages: F waits for the forward before it, B for the backward after it (the last
// virtual stage's for its own forward, with no transfer), W for its own B, F&B for both of its sides.
TEST(Timing, InputsFollowTheContract) {
  EXPECT_EQ(timing::inputs(op(OpKind::F, 0, 5), 3).count, 0);
  auto in = timing::inputs(op(OpKind::F, 2, 5), 3);
  ASSERT_EQ(in.count, 1);
  expect_input(in.list[0], false, 1, 5, 1);
  in = timing::inputs(op(OpKind::B, 2, 4, true), 3);
  ASSERT_EQ(in.count, 1);
  expect_input(in.list[0], false, 2, 4, -1);
  in = timing::inputs(op(OpKind::B, 1, 4), 3);
  ASSERT_EQ(in.count, 1);
  expect_input(in.list[0], true, 2, 4, 1);
  in = timing::inputs(op(OpKind::W, 1, 4), 3);
  ASSERT_EQ(in.count, 1);
  expect_input(in.list[0], true, 1, 4, -1);
  in = timing::inputs(op(OpKind::FB, 1, 7, false, 2, 3), 4);  // F(1, 7) beside B(2, 3)
  ASSERT_EQ(in.count, 2);
  expect_input(in.list[0], false, 0, 7, 0);
  expect_input(in.list[1], true, 3, 3, 2);
}

// F 10 ms (4 of it communication) beside B 12 ms (3): the computes 6 and 9 each cover the other's
// communication, so 6 + 9 = 15. F 10 (8) beside B 5 (1): F's 8 ms of communication outlast B's 4 of
// compute by 4, so 2 + 4 + 4 = 10. With B's weight gradient (2 ms) apart, B is 10 and hides all of
// F's 4: 6 + 7 = 13.
TEST(Timing, OverlappedPairHidesEachSidesCommunication) {
  EXPECT_DOUBLE_EQ(timing::overlapped_ms(10, 4, 12, 3), 15);
  EXPECT_DOUBLE_EQ(timing::overlapped_ms(10, 8, 5, 1), 10);
  const std::vector<VirtualStageCost> costs = {{10, 7, 1, 0, 0, 0, 4, 0}, {6, 12, 2, 0, 0, 0, 0, 3}};
  EXPECT_DOUBLE_EQ(timing::duration_ms(op(OpKind::FB, 0, 0, false, 1, 0), costs.data()), 15);
  EXPECT_DOUBLE_EQ(timing::duration_ms(op(OpKind::FB, 0, 0, true, 1, 0), costs.data()), 13);
}

// F, B and W as sums of their virtual stage's terms: duration_ms and terms say the same.
TEST(Timing, TermsAreTheDurations) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> ms(0.1, 9.0);
  for (int trial = 0; trial < 50; ++trial) {
    const VirtualStageCost c{ms(rng), ms(rng) + 9, ms(rng), 0, 0, 0, 0, 0};
    for (const OpKind kind : {OpKind::F, OpKind::B, OpKind::W})
      for (const bool apart : {false, true}) {
        const timing::Terms t = timing::terms(kind, apart);
        EXPECT_EQ(t.forward * c.forward_ms + t.backward * c.backward_ms + t.weight * c.weight_ms,
                  timing::duration_ms(op(kind, 0, 0, apart, 0, 0), &c))
            << op_name(kind) << (apart ? " apart" : "");
      }
  }
}

// The simulator, the replay and the longest path read the same rules, so on any plan they give the
// same step time: the replay to the last bit, the path to rounding (it sums the path's terms). A rule
// changed in one of them alone (the F&B overlap in the replay, say) breaks this on dualpipev.
TEST(Timing, SimulatorReplayAndPathsAgreeOnEveryProgram) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> time(0.25, 6.0), share(0.0, 0.6), send(0.0, 1.5);
  std::uniform_int_distribution<int> coin(0, 1);
  for (const Schedule schedule : all_schedules) {
    int checked = 0;
    for (int pp : {1, 2, 3, 4})
      for (int vpp : {1, 2, 3})
        for (std::int64_t m : {1, 2, 4, 6, 8, 12}) {
          Plan shape = shape_of(pp, m, schedule, vpp);
          if (!schedule_accepts(shape)) continue;
          const int V = shape.virtual_stages();
          const Model model = random_model(rng, V + 2);
          shape.stage_layers.assign(static_cast<std::size_t>(V), 1);
          shape.stage_layers.back() += 2;
          BalanceOptions options;  // half the plans with a gradient synchronisation after each stage's last operation
          if (coin(rng)) {
            StageComponent sync{"gradient sync", {}, {}};
            for (int s = 0; s < pp; ++s) sync.step_ms.push_back(send(rng));
            options.components.push_back(sync);
          }
          const balancer::BalanceProblem problem(model, random_device(rng), shape, options);
          SimulationInput in;
          static_cast<PipelineShape&>(in) = shape;
          for (int v = 0; v < V; ++v) {
            VirtualStageCost c;
            c.forward_ms = time(rng);
            c.backward_ms = c.forward_ms + time(rng);
            c.weight_ms = share(rng) * c.backward_ms;
            c.forward_comm_ms = coin(rng) ? share(rng) * c.forward_ms : 0;
            c.backward_comm_ms = coin(rng) ? share(rng) * c.backward_ms : 0;
            c.send_ms = problem.crosses(v) ? send(rng) : 0;
            in.costs.push_back(c);
          }
          in.stage_tail_ms = problem.tail;
          const std::string label = std::string(schedule_name(schedule)) + " pp " + std::to_string(pp) + " vpp " +
                                    std::to_string(vpp) + " m " + std::to_string(m);
          // zb_auto's program depends on the costs: the balancer's (written for the model's even split)
          // is the one its replay and paths read, so that one is simulated here.
          if (needs_costs(schedule)) in.program = &problem.program;
          const double simulated = simulate(in).step_time_ms;

          const Program program = needs_costs(schedule) ? problem.program : schedule_program(in);
          balancer::PlanReplay replay(in, program, in.stage_tail_ms);
          bool aborted = true;
          EXPECT_EQ(replay.step_time(in.costs, std::numeric_limits<double>::infinity(), aborted), simulated) << label;

          balancer::ProgramPaths paths(problem);
          bool pairs = false;  // paths do not read F&B pairs (program_paths.hpp)
          for (const auto& ops : program)
            for (const Op& op : ops) pairs = pairs || op.kind == OpKind::FB;
          if (!pairs) {
            const auto Vs = static_cast<std::size_t>(V);
            std::vector<double> times(balancer::ProgramPaths::kTerms * Vs, 0), row;
            for (std::size_t u = 0; u < Vs; ++u) {
              times[balancer::ProgramPaths::kF * Vs + u] = in.costs[u].forward_ms;
              times[balancer::ProgramPaths::kB * Vs + u] = in.costs[u].backward_ms;
              times[balancer::ProgramPaths::kW * Vs + u] = in.costs[u].weight_ms;
              times[balancer::ProgramPaths::kSend * Vs + u] = in.costs[u].send_ms;
            }
            double tail = 0;
            EXPECT_NEAR(paths.longest(times, row, tail), simulated, 1e-9 * simulated) << label;
          } else {
            EXPECT_EQ(paths.operations(), 0U) << label;
          }
          ++checked;
        }
    EXPECT_GT(checked, 3) << schedule_name(schedule);
  }
}

}  // namespace
}  // namespace ppb::test
