// Schedule programs: each one complete and runnable for every shape it accepts, its conditions, the V
// placement, and small programs written out by hand from the sources' loops.
#include "ppb/schedule/schedule.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "helpers.hpp"
#include "ppb/plan/stage_costs.hpp"
#include "ppb/simulate/estimate.hpp"
#include "ppb/simulate/simulate.hpp"
#include "ppb/simulate/zb_auto.hpp"

namespace ppb {
namespace {

using test::usual_shape;

std::string text(const std::vector<Op>& ops) {
  std::string out;
  for (const Op& op : ops) {
    if (!out.empty()) out += ' ';
    if (op.kind == OpKind::FB) {
      out += "F" + std::to_string(op.virtual_stage) + "." + std::to_string(op.micro_batch) + "&B" +
             std::to_string(op.backward_virtual_stage) + "." + std::to_string(op.backward_micro_batch);
      continue;
    }
    out += std::string(op_name(op.kind)) + (op.kind == OpKind::B && op.weight_apart ? "i" : "") +
           std::to_string(op.virtual_stage) + "." + std::to_string(op.micro_batch);
  }
  return out;
}

// Issue 16: every program runs exactly one F, one B and, where that B leaves it apart, one W per
// (virtual stage, micro batch), each on the stage that holds the virtual stage, and the simulator runs
// it to the end (no deadlock), for every pp up to 16 and m up to 64 the schedule accepts.
TEST(Schedule, EveryProgramRunsEachOperationOnceWithoutDeadlock) {
  for (Schedule schedule : all_schedules) {
    int accepted = 0;
    for (int pp = 1; pp <= 16; ++pp)
      for (std::int64_t m = 1; m <= 64; ++m) {
        const PipelineShape shape = usual_shape(schedule, pp, m);
        ASSERT_EQ(schedule_accepts(shape), schedule_problems(shape).empty());
        if (!schedule_problems(shape).empty()) continue;
        ++accepted;
        const int V = shape.virtual_stages();
        std::vector<int> f(static_cast<std::size_t>(V * m)), b(f.size()), w(f.size()), apart(f.size());
        SimulationInput in;
        static_cast<PipelineShape&>(in) = shape;
        in.costs.assign(static_cast<std::size_t>(V), VirtualStageCost{1.0, 2.5, 1.0, 1.0, 0.25, 0.5, 0.25, 0.5});
        const Program program = program_for(in);  // zb_auto's is written for the costs
        std::int64_t ops = 0;
        for (int s = 0; s < pp; ++s)
          for (const Op& op : program[static_cast<std::size_t>(s)]) {
            ++ops;
            const auto at = [&](int v, int mb) { return static_cast<std::size_t>(v * m + mb); };
            ASSERT_EQ(shape.physical_stage(op.virtual_stage), s);
            if (op.kind == OpKind::F || op.kind == OpKind::FB) ++f[at(op.virtual_stage, op.micro_batch)];
            if (op.kind == OpKind::W) ++w[at(op.virtual_stage, op.micro_batch)];
            if (op.kind == OpKind::B) {
              ++b[at(op.virtual_stage, op.micro_batch)];
              apart[at(op.virtual_stage, op.micro_batch)] = op.weight_apart;
            }
            if (op.kind == OpKind::FB) {
              ASSERT_EQ(shape.physical_stage(op.backward_virtual_stage), s);
              ++b[at(op.backward_virtual_stage, op.backward_micro_batch)];
              apart[at(op.backward_virtual_stage, op.backward_micro_batch)] = op.weight_apart;
            }
          }
        for (std::size_t i = 0; i < f.size(); ++i) {
          ASSERT_EQ(f[i], 1) << schedule_name(schedule) << " pp=" << pp << " m=" << m << " op " << i;
          ASSERT_EQ(b[i], 1) << schedule_name(schedule) << " pp=" << pp << " m=" << m << " op " << i;
          ASSERT_EQ(w[i], apart[i]) << schedule_name(schedule) << " pp=" << pp << " m=" << m << " op " << i;
        }
        in.program = &program;
        SimulationResult r;
        ASSERT_NO_THROW(r = simulate(in)) << schedule_name(schedule) << " pp=" << pp << " m=" << m;
        ASSERT_EQ(r.operations, ops);
      }
    // Every shape up to pp 16, m 64 runs except those the schedule's source excludes.
    const int expected = is_interleaved(schedule) ? [] {
      int n = 0;
      for (int pp = 1; pp <= 16; ++pp) n += 64 / pp;
      return n;
    }()
                         : schedule == Schedule::interleaved_zero_bubble ? [] {
      // PyTorch's ScheduleInterleavedZeroBubble: max(1, m / pp) rounds must divide m.
      int n = 0;
      for (int pp = 1; pp <= 16; ++pp)
        for (int m = 1; m <= 64; ++m) n += m % std::max(1, m / pp) == 0 ? 1 : 0;
      return n;
    }()
                         : schedule == Schedule::dualpipev ? [] {
      int n = 0;
      for (int pp = 1; pp <= 16; ++pp) n += 64 - 2 * pp + 1;
      return n;
    }()
                                                           : 16 * 64;
    EXPECT_EQ(accepted, expected) << schedule_name(schedule);
  }
}

// Contract: V-shape schedules put virtual stage i < pp on stage i and i >= pp on 2 pp - 1 - i; the
// others are chunk-major (i mod pp).
TEST(Schedule, VPlacementRunsDownAndBackUp) {
  PipelineShape v = usual_shape(Schedule::zbv, 4, 8);
  const int expected_v[] = {0, 1, 2, 3, 3, 2, 1, 0};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(v.physical_stage(i), expected_v[i]);
  EXPECT_EQ(v.virtual_stage(1, 0), 1);
  EXPECT_EQ(v.virtual_stage(1, 1), 6);
  PipelineShape interleaved = usual_shape(Schedule::interleaved_1f1b, 4, 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(interleaved.physical_stage(i), i % 4);
  EXPECT_EQ(interleaved.virtual_stage(1, 1), 5);
}

// Conditions: interleaved needs vpp >= 2 and m a multiple of pp (Megatron-LM); zbv and dualpipev need
// exactly two chunks; dualpipev needs m >= 2 pp (DualPipeV.step's assertion); more than one chunk
// needs a schedule that runs chunks.
TEST(Schedule, ConditionsNameCodeAndField) {
  auto codes = [](PipelineShape shape) {
    std::string out;
    for (const auto& p : schedule_problems(shape)) out += p.code + "@" + p.path + " ";
    return out;
  };
  PipelineShape s = usual_shape(Schedule::interleaved_1f1b, 4, 6);
  s.vpp_degree = 1;
  EXPECT_EQ(codes(s), "SCHEDULE_NEEDS_VPP@/pipeline/vpp_degree MICRO_BATCH_NOT_MULTIPLE@/pipeline/micro_batch_num ");
  s = usual_shape(Schedule::dualpipev, 4, 7);
  s.vpp_degree = 3;
  EXPECT_EQ(codes(s), "SCHEDULE_NEEDS_TWO_CHUNKS@/pipeline/vpp_degree MICRO_BATCH_TOO_FEW@/pipeline/micro_batch_num ");
  EXPECT_EQ(codes(usual_shape(Schedule::dualpipev, 4, 8)), "");
  EXPECT_EQ(codes(usual_shape(Schedule::zbv, 4, 1)), "");
  s = usual_shape(Schedule::zb_h2, 4, 8);
  s.vpp_degree = 2;
  EXPECT_EQ(codes(s), "VPP_NEEDS_INTERLEAVED@/pipeline/schedule ");
  // The overlap schedule keeps interleaved_1f1b's conditions (Megatron-LM asserts a virtual pipeline
  // size when pp > 1); V-Half and V-Min run the V's two chunks with any micro batch count.
  s = usual_shape(Schedule::interleaved_1f1b_overlap, 4, 6);
  s.vpp_degree = 1;
  EXPECT_EQ(codes(s), "SCHEDULE_NEEDS_VPP@/pipeline/vpp_degree MICRO_BATCH_NOT_MULTIPLE@/pipeline/micro_batch_num ");
  for (Schedule v : {Schedule::v_half, Schedule::v_min}) {
    s = usual_shape(v, 4, 3);
    EXPECT_EQ(codes(s), "") << schedule_name(v);
    s.vpp_degree = 3;
    EXPECT_EQ(codes(s), "SCHEDULE_NEEDS_TWO_CHUNKS@/pipeline/vpp_degree ") << schedule_name(v);
  }
}

// By hand from the contract: 1f1b on the first of two stages warms up with one forward.
TEST(Schedule, OneFOneBProgramByHand) {
  EXPECT_EQ(text(stage_program(usual_shape(Schedule::one_f_one_b, 2, 3), 0)), "F0.0 F0.1 B0.0 F0.2 B0.1 B0.2");
}

// By hand from the contract's ZB-H1: the last of 3 stages keeps up to 2 Ws pending, the first none.
TEST(Schedule, ZeroBubbleH1ProgramByHand) {
  EXPECT_EQ(text(stage_program(usual_shape(Schedule::zb_h1, 3, 4), 2)),
            "F2.0 Bi2.0 F2.1 Bi2.1 F2.2 Bi2.2 W2.0 F2.3 Bi2.3 W2.1 W2.2 W2.3");
  EXPECT_EQ(text(stage_program(usual_shape(Schedule::zb_h1, 3, 4), 0)),
            "F0.0 F0.1 F0.2 Bi0.0 W0.0 F0.3 Bi0.1 W0.1 Bi0.2 W0.2 Bi0.3 W0.3");
}

// By hand from the contract's ZB-H2: stage 0 of 2 warms up with 2 (pp - s) - 2 = 2 forwards, stage 1
// keeps up to 2 Ws pending.
TEST(Schedule, ZeroBubbleH2ProgramByHand) {
  EXPECT_EQ(text(stage_program(usual_shape(Schedule::zb_h2, 2, 4), 0)),
            "F0.0 F0.1 F0.2 Bi0.0 W0.0 F0.3 Bi0.1 W0.1 Bi0.2 W0.2 Bi0.3 W0.3");
  EXPECT_EQ(text(stage_program(usual_shape(Schedule::zb_h2, 2, 4), 1)),
            "F1.0 Bi1.0 F1.1 Bi1.1 F1.2 Bi1.2 W1.0 F1.3 Bi1.3 W1.1 W1.2 W1.3");
}

// By hand from the handcrafted ZB-V loops (pp 2, m 3, so built for 2 pp - 1 = 3 micro batches):
// stage 1 holds virtual stages 1 (down) and 2 (up); warm-up 2 (pp - s) - 1 = 1 forward down, s = 1
// pair (up, down), pp - s = 1 round of (F up, B up, W up); then the steady loop while forwards remain;
// cool-down s = 1 pair of split backwards, pp - s = 1 round (B down, W down), the Ws left.
TEST(Schedule, ZeroBubbleVProgramByHand) {
  EXPECT_EQ(text(stage_program(usual_shape(Schedule::zbv, 2, 3), 1)),
            "F1.0 F2.0 F1.1 F2.1 Bi2.0 W2.0 F1.2 Bi1.0 W1.0 F2.2 Bi2.1 W2.1 Bi1.1 Bi2.2 Bi1.2 W1.1 W2.2 W1.2");
}

// By hand from DualPipeV's eight phases (pp 2, m 4, the last rank s = 1: chunk 0 is virtual stage 1,
// chunk 1 virtual stage 2): phase 2 twice (F down, F up); phase 4 twice, its first pair run apart on
// the last rank; phase 6 twice with the second iteration split (odd rank: from the up backward on);
// phase 8 the two queued Ws.
TEST(Schedule, DualPipeVProgramByHand) {
  EXPECT_EQ(text(stage_program(usual_shape(Schedule::dualpipev, 2, 4), 1)),
            "F1.0 F2.0 F1.1 F2.1 F1.2 B2.0 F2.2&B1.0 F1.3&B2.1 F2.3&B1.1 B2.2 B1.2 Bi2.3 Bi1.3 W2.3 W1.3");
}

// By hand from Megatron-LM's get_pp_rank_microbatches and its combined 1F1B steps (pp 2, vpp 2): the
// interleaved order runs forwards chunk 0 mb 0, 1, chunk 1 mb 0, 1, ... and backwards chunk 1 first.
// Stage 1 warms up with 2 (pp - s - 1) + (vpp - 1) pp + 1 = 3 forwards, stage 0 with 5, capped at the
// 2 m forwards it has. Then each steady step is one F&B pair, then the backwards left.
TEST(Schedule, InterleavedOverlapProgramByHand) {
  const PipelineShape two = usual_shape(Schedule::interleaved_1f1b_overlap, 2, 2);
  EXPECT_EQ(text(stage_program(two, 0)), "F0.0 F0.1 F2.0 F2.1 B2.0 B2.1 B0.0 B0.1");
  EXPECT_EQ(text(stage_program(two, 1)), "F1.0 F1.1 F3.0 F3.1&B3.0 B3.1 B1.0 B1.1");
  EXPECT_EQ(text(stage_program(usual_shape(Schedule::interleaved_1f1b_overlap, 2, 4), 1)),
            "F1.0 F1.1 F3.0 F3.1&B3.0 F1.2&B3.1 F1.3&B1.0 F3.2&B1.1 F3.3&B3.2 B3.3 B1.2 B1.3");
}

// V-Half and V-Min in the order of the authors' runtime: the expected lists are what
// sail-sg/zero-bubble-pipeline-parallelism's zbv_greedy.py (commit 39f2c18, PipelineGraph.create_schedule
// with mem_config "half" / "min" and the unit costs its runtime passes) writes for these shapes, run
// with python3 and its graph imports stubbed; virtual stage v < pp is chunk 0 on stage v, the others
// chunk 1 on stage 2 pp - 1 - v; Bi is an input-gradient backward, W its weight gradient.
TEST(Schedule, ControllableMemoryOrdersAreTheAuthors) {
  const auto order = [](Schedule v, int pp, std::int64_t m, int stage) {
    return text(stage_program(usual_shape(v, pp, m), stage));
  };
  EXPECT_EQ(order(Schedule::v_half, 2, 4, 0),
            "F0.0 F0.1 F0.2 F3.0 Bi3.0 W3.0 F3.1 Bi0.0 Bi3.1 W3.1 F3.2 W0.0 F0.3 Bi0.1 Bi3.2 W3.2 F3.3 Bi3.3 Bi0.2 "
            "W3.3 Bi0.3 W0.1 W0.2 W0.3");
  EXPECT_EQ(order(Schedule::v_half, 2, 4, 1),
            "F1.0 F2.0 F1.1 F2.1 Bi2.0 W2.0 Bi1.0 W1.0 F1.2 F2.2 Bi2.1 Bi1.1 W2.1 F1.3 W1.1 F2.3 Bi2.2 Bi1.2 Bi2.3 "
            "Bi1.3 W2.2 W2.3 W1.2 W1.3");
  EXPECT_EQ(order(Schedule::v_half, 4, 8, 2),
            "F2.0 F2.1 F2.2 F5.0 F5.1 F5.2 Bi5.0 W5.0 F2.3 Bi5.1 Bi2.0 W5.1 W2.0 F5.3 F2.4 Bi2.1 Bi5.2 W5.2 F5.4 W2.1 "
            "F2.5 Bi2.2 Bi5.3 W5.3 F5.5 W2.2 F2.6 Bi2.3 Bi5.4 W5.4 F5.6 W2.3 F2.7 Bi2.4 Bi5.5 W5.5 F5.7 Bi5.6 Bi2.5 "
            "W5.6 Bi2.6 Bi5.7 W5.7 W2.4 Bi2.7 W2.5 W2.6 W2.7");
  EXPECT_EQ(order(Schedule::v_half, 4, 3, 1),
            "F1.0 F1.1 F1.2 F6.0 F6.1 Bi6.0 W6.0 F6.2 Bi6.1 W6.1 Bi1.0 W1.0 Bi6.2 W6.2 Bi1.1 W1.1 Bi1.2 W1.2");
  EXPECT_EQ(order(Schedule::v_min, 1, 3, 0),
            "F0.0 F1.0 Bi1.0 Bi0.0 W1.0 W0.0 F0.1 F1.1 Bi1.1 Bi0.1 W1.1 W0.1 F0.2 F1.2 Bi1.2 Bi0.2 W1.2 W0.2");
  EXPECT_EQ(order(Schedule::v_min, 3, 6, 1),
            "F1.0 F1.1 F4.0 F4.1 Bi4.0 W4.0 Bi1.0 F1.2 W1.0 Bi4.1 F4.2 W4.1 Bi1.1 F1.3 W1.1 Bi4.2 F4.3 W4.2 Bi1.2 "
            "F1.4 W1.2 Bi4.3 F4.4 W4.3 Bi1.3 F1.5 W1.3 Bi4.4 F4.5 W4.4 Bi1.4 Bi4.5 W4.5 W1.4 Bi1.5 W1.5");
  EXPECT_EQ(order(Schedule::v_min, 4, 8, 0),
            "F0.0 F0.1 F0.2 F7.0 Bi7.0 W7.0 F7.1 Bi7.1 W7.1 Bi0.0 W0.0 F0.3 F7.2 Bi7.2 Bi0.1 W7.2 W0.1 F0.4 F7.3 "
            "Bi7.3 Bi0.2 W7.3 W0.2 F0.5 F7.4 Bi7.4 Bi0.3 W7.4 W0.3 F0.6 F7.5 Bi7.5 Bi0.4 W7.5 W0.4 F0.7 F7.6 Bi7.6 "
            "Bi0.5 W7.6 W0.5 F7.7 Bi7.7 Bi0.6 W7.7 W0.6 Bi0.7 W0.7");
  EXPECT_EQ(order(Schedule::v_min, 4, 3, 3),
            "F3.0 F4.0 F3.1 F4.1 Bi4.0 Bi3.0 W4.0 W3.0 F3.2 F4.2 Bi4.1 Bi3.1 W4.1 W3.1 Bi4.2 Bi3.2 W4.2 W3.2");
}

// The V placement reaches everything that asks where a virtual stage lives: transfers only where
// consecutive virtual stages sit on different devices (zbv, pp 2: 0 -> 1 crosses, 1 -> 2 stays on
// stage 1, 2 -> 3 crosses back), each stage's virtual stages and layers in the estimate, and its
// static memory (stage 0 holds the first and the last two layers).
TEST(Schedule, VPlacementReachesCostsAndEstimate) {
  Model model;
  for (int i = 0; i < 8; ++i) {
    Layer l = test::timed_layer("l" + std::to_string(i), 1, 2, 1);
    l.other_static_mib = i;
    l.activation_mib = 1;
    l.send_mib = 1;
    model.layers.push_back(l);
  }
  Device device;
  device.p2p_latency_ms = 0.5;
  Plan plan(usual_shape(Schedule::zbv, 2, 4));
  plan.stage_layers = {2, 2, 2, 2};
  plan.recompute.assign(8, -1);
  const auto costs = virtual_stage_costs(model, device, plan);
  EXPECT_DOUBLE_EQ(costs[0].send_ms, 0.5);
  EXPECT_DOUBLE_EQ(costs[1].send_ms, 0.0);
  EXPECT_DOUBLE_EQ(costs[2].send_ms, 0.5);
  EXPECT_DOUBLE_EQ(costs[3].send_ms, 0.0);
  const Estimate e = estimate(model, device, plan, false);
  EXPECT_EQ(e.stages[0].virtual_stages, (std::vector<int>{0, 3}));
  EXPECT_EQ(e.stages[1].virtual_stages, (std::vector<int>{1, 2}));
  EXPECT_EQ(e.stages[0].layers, (std::vector<std::pair<int, int>>{{0, 2}, {6, 8}}));
  EXPECT_DOUBLE_EQ(e.stages[0].memory.static_mib, 0 + 1 + 6 + 7);
  EXPECT_DOUBLE_EQ(e.stages[1].memory.static_mib, 2 + 3 + 4 + 5);
  EXPECT_DOUBLE_EQ(e.stages[0].time.send_ms, 0.5);  // virtual stage 0's; 3 is the last
  EXPECT_DOUBLE_EQ(e.stages[1].time.send_ms, 0.5);  // virtual stage 2's; 1 -> 2 stays on the device
}

}  // namespace
}  // namespace ppb
