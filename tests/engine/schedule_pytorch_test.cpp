// PyTorch's own schedules (schedule_pytorch.cpp): looped_bfs and interleaved_zero_bubble in the order
// PyTorch's classes write them, their conditions, and their step time on uniform stages worked by hand.
// The expected action lists were written out by hand from torch/distributed/pipelining/schedules.py
// (pytorch/pytorch 00722e6): ScheduleLoopedBFS._calculate_single_rank_operations and
// ScheduleInterleavedZeroBubble._calculate_single_rank_operations (_get_warmup_ops with
// multiply_factor 1, _get_1f1b_rank_ops with enable_zero_bubble and num_1f1b_microbatches = rank),
// leaving out the None slots PyTorch pads with.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "helpers.hpp"
#include "ppb/interop/export.hpp"
#include "ppb/schedule/schedule.hpp"
#include "ppb/simulate/simulate.hpp"

namespace ppb {
namespace {

// A rank's program in PyTorch's action notation ("2F0", "2I0", "2W0", "0B1").
std::string actions(const PipelineShape& shape, int stage) {
  std::string out;
  for (const Op& op : stage_program(shape, stage)) {
    if (!out.empty()) out += ' ';
    out += pytorch_action(op);
  }
  return out;
}

PipelineShape shape_of(Schedule schedule, int pp, int vpp, std::int64_t m) {
  PipelineShape shape;
  shape.schedule = schedule;
  shape.pp_degree = pp;
  shape.vpp_degree = vpp;
  shape.micro_batch_num = m;
  return shape;
}

SimulationInput uniform(Schedule schedule, int pp, int vpp, std::int64_t m, double f, double b, double w) {
  SimulationInput in;
  static_cast<PipelineShape&>(in) = shape_of(schedule, pp, vpp, m);
  in.costs.assign(static_cast<std::size_t>(pp * vpp), VirtualStageCost{f, b, w, 1, 0});
  return in;
}

// ScheduleLoopedBFS, pp 2, 2 stages per rank, 2 micro batches: rank r holds stages r and r + 2; every
// forward of its first stage, then of its second, then the full backwards of the second stage with
// micro batches in reverse (reversed(range(m))), then of the first.
TEST(SchedulePytorch, LoopedBfsInPyTorchsOrder) {
  const PipelineShape shape = shape_of(Schedule::looped_bfs, 2, 2, 2);
  EXPECT_EQ(actions(shape, 0), "0F0 0F1 2F0 2F1 2B1 2B0 0B1 0B0");
  EXPECT_EQ(actions(shape, 1), "1F0 1F1 3F0 3F1 3B1 3B0 1B1 1B0");
}

// ScheduleInterleavedZeroBubble, pp 2, 2 stages per rank, 4 micro batches: rounds = max(1, 4 // 2) = 2
// of 2 micro batches. Rank 0: warm-up (2 - 1) x 2 + (2 - 1 - 0) = 3 forwards; forward k runs local
// stage (k // 2) % 2, input gradient j local stage 1 - (j // 2) % 2; from step j >= rank 0 on, the
// oldest pending W after each I. Rank 1: warm-up 2, no W at step 0 (j < rank 1), then one W per step,
// the last one at the end.
TEST(SchedulePytorch, InterleavedZeroBubbleInPyTorchsOrder) {
  const PipelineShape shape = shape_of(Schedule::interleaved_zero_bubble, 2, 2, 4);
  EXPECT_EQ(actions(shape, 0),
            "0F0 0F1 2F0 2F1 2I0 2W0 0F2 2I1 2W1 0F3 0I0 0W0 2F2 0I1 0W1 2F3 2I2 2W2 2I3 2W3 0I2 0W2 0I3 0W3");
  EXPECT_EQ(actions(shape, 1),
            "1F0 1F1 3F0 3I0 3F1 3I1 3W0 1F2 1I0 3W1 1F3 1I1 1W0 3F2 3I2 1W1 3F3 3I3 3W2 1I2 3W3 1I3 1W2 1W3");
}

// Fewer micro batches than a round of pp: m 3 at pp 2 is one round of 3 (max(1, 3 // 2) = 1), so rank
// 0 warms up with (2 - 1) x 3 + 1 = 4 forwards and rank 1 with 3.
TEST(SchedulePytorch, InterleavedZeroBubbleOneRoundOfThree) {
  const PipelineShape shape = shape_of(Schedule::interleaved_zero_bubble, 2, 2, 3);
  EXPECT_EQ(actions(shape, 0), "0F0 0F1 0F2 2F0 2F1 2I0 2W0 2F2 2I1 2W1 2I2 2W2 0I0 0W0 0I1 0W1 0I2 0W2");
  EXPECT_EQ(actions(shape, 1), "1F0 1F1 1F2 3F0 3I0 3F1 3I1 3W0 3F2 3I2 3W1 1I0 3W2 1I1 1W0 1I2 1W1 1W2");
}

// Conditions: both need two or more chunks per stage (PyTorch's looped stages; torchtitan builds its
// multi-stage schedules with at least two per rank); interleaved_zero_bubble needs the round count
// max(1, m / pp) to divide m (the ValueError of ScheduleInterleavedZeroBubble.__init__).
TEST(SchedulePytorch, ConditionsNameCodeAndField) {
  auto codes = [](const PipelineShape& shape) {
    std::string out;
    for (const auto& p : schedule_problems(shape)) out += p.code + "@" + p.path + " ";
    return out;
  };
  EXPECT_EQ(codes(shape_of(Schedule::looped_bfs, 4, 1, 8)), "SCHEDULE_NEEDS_VPP@/pipeline/vpp_degree ");
  EXPECT_EQ(codes(shape_of(Schedule::looped_bfs, 4, 3, 7)), "");
  EXPECT_EQ(codes(shape_of(Schedule::interleaved_zero_bubble, 4, 1, 8)), "SCHEDULE_NEEDS_VPP@/pipeline/vpp_degree ");
  // pp 4, m 9: 2 rounds do not divide 9.
  EXPECT_EQ(codes(shape_of(Schedule::interleaved_zero_bubble, 4, 2, 9)),
            "MICRO_BATCH_NOT_MULTIPLE@/pipeline/micro_batch_num ");
  EXPECT_EQ(codes(shape_of(Schedule::interleaved_zero_bubble, 4, 1, 9)),
            "SCHEDULE_NEEDS_VPP@/pipeline/vpp_degree MICRO_BATCH_NOT_MULTIPLE@/pipeline/micro_batch_num ");
  EXPECT_EQ(codes(shape_of(Schedule::interleaved_zero_bubble, 4, 2, 10)), "");  // 2 rounds of 5
  EXPECT_EQ(codes(shape_of(Schedule::interleaved_zero_bubble, 4, 2, 3)), "");   // 1 round of 3
  const auto problems = schedule_problems(shape_of(Schedule::interleaved_zero_bubble, 4, 2, 9));
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].message.find("must be a multiple of 2"), std::string::npos) << problems[0].message;
}

// By hand, pp 2, 2 chunks, 2 micro batches, F 1 and full B 2 per chunk, no transfers (the contract's
// rules: an F waits for the previous virtual stage's F of its micro batch, a B for the next one's B):
//   rank 0: 0F0 0-1, 0F1 1-2, 2F0 2-3 (after 1F0 1-2), 2F1 3-4, 2B1 7-9 (after 3B1), 2B0 9-11,
//           0B1 11-13 (after 1B1 9-11), 0B0 13-15 (after 1B0 11-13);
//   rank 1: 1F0 1-2, 1F1 2-3, 3F0 3-4, 3F1 4-5, 3B1 5-7, 3B0 7-9, 1B1 9-11, 1B0 11-13.
// Step 15 = (vpp m + pp - 1)(f + b) = (4 + 1) x 3. In general, with m >= pp the forwards stream without
// a gap (chunk c's micro batch j leaves the last rank at (c m + j + pp) f, no later than rank 0 reaches
// it at (c m + m + j) f), the last rank's forwards end at (vpp m + pp - 1) f, and the backwards mirror
// them: (vpp m + pp - 1)(f + b), interleaved 1F1B's step, with every micro batch of every chunk held.
TEST(SchedulePytorch, LoopedBfsUniformStepByHand) {
  SimulationInput small = uniform(Schedule::looped_bfs, 2, 2, 2, 1.0, 2.0, 0.0);
  small.keep_timeline = true;
  const SimulationResult r = simulate(small);
  EXPECT_DOUBLE_EQ(r.step_time_ms, 15.0);
  for (const TimedOp& op : r.timeline)
    if (op.stage == 0 && op.virtual_stage == 0 && op.micro_batch == 0 && op.kind == OpKind::B) {
      EXPECT_DOUBLE_EQ(op.start_ms, 13.0);
      EXPECT_DOUBLE_EQ(op.end_ms, 15.0);
    }
  for (int pp : {2, 3, 4})
    for (int vpp : {2, 3})
      for (const std::int64_t m : std::initializer_list<std::int64_t>{pp, 2 * pp + 1, 16}) {
        const double f = 1.5, b = 2.5;
        const SimulationResult u = simulate(uniform(Schedule::looped_bfs, pp, vpp, m, f, b, 0.0));
        EXPECT_DOUBLE_EQ(u.step_time_ms, static_cast<double>(vpp * m + pp - 1) * (f + b))
            << "pp " << pp << " vpp " << vpp << " m " << m;
        for (const StageSimulation& s : u.stages) EXPECT_EQ(s.peak_in_flight, vpp * m);
      }
}

// By hand, pp 2, 2 chunks, 4 micro batches, F, I (the input gradient) and W 1 each per chunk (full B
// 2), no transfers; the programs of InterleavedZeroBubbleInPyTorchsOrder, an I waiting for the next
// virtual stage's I of its micro batch (stage 3, the last, only for its own F):
//   rank 0: 0F0 0-1, 0F1 1-2, 2F0 2-3, 2F1 3-4, 2I0 5-6 (after 3I0 4-5), 2W0 6-7, 0F2 7-8,
//           2I1 8-9 (after 3I1 6-7), 2W1 9-10, 0F3 10-11, 0I0 11-12 (after 1I0 9-10), 0W0 12-13,
//           2F2 13-14, 0I1 14-15 (after 1I1 12-13), 0W1 15-16, 2F3 16-17 (after 1F3 11-12),
//           2I2 17-18 (after 3I2 15-16), 2W2 18-19, 2I3 19-20 (after 3I3 18-19), 2W3 20-21,
//           0I2 21-22 (after 1I2 20-21), 0W2 22-23, 0I3 23-24 (after 1I3 22-23), 0W3 24-25;
//   rank 1: 1F0 1-2, 1F1 2-3, 3F0 3-4, 3I0 4-5, 3F1 5-6 (after 2F1 3-4), 3I1 6-7, 3W0 7-8,
//           1F2 8-9 (after 0F2 7-8), 1I0 9-10, 3W1 10-11, 1F3 11-12 (after 0F3 10-11),
//           1I1 12-13, 1W0 13-14, 3F2 14-15 (after 2F2 13-14), 3I2 15-16, 1W1 16-17,
//           3F3 17-18 (after 2F3 16-17), 3I3 18-19, 3W2 19-20, 1I2 20-21 (after 2I2 17-18),
//           3W3 21-22, 1I3 22-23 (after 2I3 19-20), 1W2 23-24, 1W3 24-25.
// Step 25 against 24 units of work per rank. Rank 0 holds (vpp - 1) x 2 + pp = 4 activations before its
// first I, rank 1 three (its warm-up plus one).
TEST(SchedulePytorch, InterleavedZeroBubbleUniformStepByHand) {
  const SimulationResult r = simulate(uniform(Schedule::interleaved_zero_bubble, 2, 2, 4, 1.0, 2.0, 1.0));
  EXPECT_DOUBLE_EQ(r.step_time_ms, 25.0);
  EXPECT_DOUBLE_EQ(r.stages[0].busy_ms, 24.0);
  EXPECT_DOUBLE_EQ(r.stages[1].busy_ms, 24.0);
  EXPECT_EQ(r.stages[0].peak_in_flight, 4);
  EXPECT_EQ(r.stages[1].peak_in_flight, 3);
}

// docs/schedules.md's bubble of interleaved_zero_bubble: with m >= pp, per chunk f, full backward b
// and weight part w, the step is vpp m (f + b) + (pp - 1) max(f + b - 2w, b - w): ZB-H1's bubble
// over vpp in per-device terms when W <= F. The case above is its pp 2, vpp 2, m 4 instance:
// 2 x 4 x 3 + 1 x max(1, 1) = 25. Every stage ends at the step, each idling (pp - 1) times the
// bubble term in all, its staggered start included.
TEST(SchedulePytorch, InterleavedZeroBubbleBubbleFormula) {
  struct Costs {
    double f, b, w;
  };
  for (const Costs c : {Costs{1, 2, 1}, Costs{1, 2.5, 0.75}, Costs{2, 2, 1}, Costs{1, 4, 2}, Costs{3, 4, 1}})
    for (int pp : {2, 3, 4, 8})
      for (int vpp : {2, 3})
        for (std::int64_t m = pp; m <= 3LL * pp + 2; ++m) {
          const PipelineShape shape = shape_of(Schedule::interleaved_zero_bubble, pp, vpp, m);
          if (!schedule_accepts(shape)) continue;
          const SimulationResult r = simulate(uniform(Schedule::interleaved_zero_bubble, pp, vpp, m, c.f, c.b, c.w));
          const double want =
              static_cast<double>(vpp * m) * (c.f + c.b) + (pp - 1) * std::max(c.f + c.b - 2 * c.w, c.b - c.w);
          EXPECT_NEAR(r.step_time_ms, want, 1e-9)
              << "pp " << pp << " vpp " << vpp << " m " << m << " f " << c.f << " b " << c.b << " w " << c.w;
        }
}

}  // namespace
}  // namespace ppb
