// The schedule simulator against the closed forms of the contract and small cases worked by hand.
#include "ppb/simulate/simulate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "helpers.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {
namespace {

using test::span_fraction;
using test::usual_shape;

SimulationInput uniform(Schedule schedule, int pp, int vpp, std::int64_t m, double f, double b, double w = 0,
                        double act = 1) {
  SimulationInput in;
  in.pp_degree = pp;
  in.vpp_degree = vpp;
  in.micro_batch_num = m;
  in.schedule = schedule;
  in.costs.assign(static_cast<std::size_t>(pp * vpp), VirtualStageCost{f, b, w, act, 0});
  in.keep_timeline = true;
  return in;
}

// Contract: gpipe and 1f1b take (m + pp - 1)(F + B) on equal stages with free transfers.
TEST(Simulate, GpipeAndOneFOneBMatchClosedForm) {
  for (Schedule s : {Schedule::gpipe, Schedule::one_f_one_b})
    for (int pp : {1, 2, 4, 8})
      for (int m : {1, 2, 3, 4, 7, 8, 16, 33}) {
        const double f = 1.5, b = 3.25;
        const auto r = simulate(uniform(s, pp, 1, m, f, b));
        EXPECT_DOUBLE_EQ(r.step_time_ms, (m + pp - 1) * (f + b)) << schedule_name(s) << " pp=" << pp << " m=" << m;
      }
}

// Contract: interleaved_1f1b takes m(F + B) + (pp - 1)(F + B)/vpp, F and B per physical stage.
TEST(Simulate, InterleavedMatchesClosedForm) {
  for (int pp : {2, 4, 8})
    for (int vpp : {2, 3, 4})
      for (int groups : {1, 2, 3, 8}) {
        const int m = groups * pp;
        const double f = 1.0, b = 2.0;  // per chunk
        const auto r = simulate(uniform(Schedule::interleaved_1f1b, pp, vpp, m, f, b));
        const double F = vpp * f, B = vpp * b;
        EXPECT_DOUBLE_EQ(r.step_time_ms, m * (F + B) + (pp - 1) * (F + B) / vpp)
            << "pp=" << pp << " vpp=" << vpp << " m=" << m;
      }
}

// Contract: zb_h1 takes m(F + B) + (pp - 1)(F + B - 2W); with F = B_input = W its bubble is a
// third of 1f1b's, (pp - 1) F against 3 (pp - 1) F.
TEST(Simulate, ZeroBubbleH1MatchesClosedForm) {
  for (int pp : {1, 2, 4, 8})
    for (int m : {pp, 2 * pp, 3 * pp + 1, 32}) {
      const double f = 1.0, b = 2.0, w = 1.0;
      const auto zb = simulate(uniform(Schedule::zb_h1, pp, 1, m, f, b, w));
      EXPECT_DOUBLE_EQ(zb.step_time_ms, m * (f + b) + (pp - 1) * (f + b - 2 * w)) << "pp=" << pp << " m=" << m;
      const auto one = simulate(uniform(Schedule::one_f_one_b, pp, 1, m, f, b, w));
      const double zb_bubble = zb.step_time_ms - m * (f + b);
      const double one_bubble = one.step_time_ms - m * (f + b);
      EXPECT_DOUBLE_EQ(zb_bubble * 3, one_bubble);
      for (int s = 0; s < pp; ++s)
        EXPECT_DOUBLE_EQ(zb.stages[s].activation_peak_mib, one.stages[s].activation_peak_mib) << "stage " << s;
    }
}

// The zero-bubble paper (Qi et al., arXiv 2401.10241 v1): Table 9's profiled F, B - W, W and T_comm,
// one layer per stage with T_comm on every crossing, give Table 5's bubble rates to four decimals
// (the two rows the contract quotes).
TEST(Simulate, ZeroBubblePaperPublishedBubbleRates) {
  struct Row {
    const char* model;
    std::int64_t m;
    double f, b_minus_w, w, t_comm;
    double one_f_one_b, zb_h1, zb_h2;
  };
  for (const Row& row : {Row{"1.5B", 24, 18.522, 18.086, 9.337, 0.601, 0.2431, 0.1585, 0.1083},
                         Row{"6.2B", 32, 29.802, 29.428, 19.530, 0.577, 0.1898, 0.1045, 0.0559}}) {
    const std::pair<Schedule, double> expected[] = {
        {Schedule::one_f_one_b, row.one_f_one_b}, {Schedule::zb_h1, row.zb_h1}, {Schedule::zb_h2, row.zb_h2}};
    for (const auto& [schedule, rate] : expected) {
      auto in = uniform(schedule, 8, 1, row.m, row.f, row.b_minus_w + row.w, row.w);
      for (std::size_t v = 0; v + 1 < in.costs.size(); ++v) in.costs[v].send_ms = row.t_comm;
      EXPECT_NEAR(span_fraction(simulate(in)), rate, 0.00005) << row.model << " " << schedule_name(schedule);
    }
  }
}

// Contract: zb_h1's step and span are m(F + B) + (pp - 1)(F + B - 2W) with unequal F, B, W too.
TEST(Simulate, ZeroBubbleH1SpanMatchesClosedForm) {
  for (int pp : {2, 4, 8})
    for (int m : {pp, 3 * pp, 40}) {
      const double f = 1.25, b = 3.0, w = 0.75;
      const auto r = simulate(uniform(Schedule::zb_h1, pp, 1, m, f, b, w));
      EXPECT_DOUBLE_EQ(r.span_ms, m * (f + b) + (pp - 1) * (f + b - 2 * w)) << "pp=" << pp << " m=" << m;
      EXPECT_DOUBLE_EQ(r.step_time_ms, r.span_ms);
    }
}

// Contract: zb_h2's span is m(F + B) + (pp - 1) max(0, F + B - 3W) once the warm-up of 2 (pp - 1)
// forwards is full, m >= 2 pp - 1 (with fewer micro batches stage 0 idles waiting for the first B).
TEST(Simulate, ZeroBubbleH2SpanMatchesClosedForm) {
  for (int pp : {2, 4, 8})
    for (int m : {2 * pp - 1, 2 * pp, 3 * pp + 1, 40})
      for (const auto& [f, b, w] : {std::tuple{1.0, 2.0, 1.0}, std::tuple{1.0, 2.5, 1.0}, std::tuple{1.5, 3.0, 0.5}}) {
        const auto r = simulate(uniform(Schedule::zb_h2, pp, 1, m, f, b, w));
        EXPECT_DOUBLE_EQ(r.span_ms, m * (f + b) + (pp - 1) * std::max(0.0, f + b - 3 * w))
            << "pp=" << pp << " m=" << m << " f=" << f << " b=" << b << " w=" << w;
      }
}

// The zero-bubble repository's README: ZB-V's bubble rate is 0 when T_F = T_B = T_W (B the input
// gradient), here F = W = 1 and a full backward of 2 per chunk, for m >= 2 pp - 1 (the handcrafted
// schedule is built for at least that many): every stage's span is its busy time, 2 m (F + B).
TEST(Simulate, ZeroBubbleVHasNoBubbleWithEqualPasses) {
  for (int pp : {1, 2, 4, 8})
    for (int m : {2 * pp - 1, 2 * pp, 3 * pp, 33}) {
      if (m < 1) continue;
      const auto r = simulate(uniform(Schedule::zbv, pp, 2, m, 1.0, 2.0, 1.0));
      EXPECT_DOUBLE_EQ(r.span_ms, 2.0 * m * 3.0) << "pp=" << pp << " m=" << m;
      EXPECT_DOUBLE_EQ(span_fraction(r), 0.0);
    }
}

// DualPipe's README: DualPipeV's bubble is (PP/2 - 1)(F&B + B - 3W) with PP = 2 pp pipeline stages
// (chunks), F, B, W per chunk, B the full backward and F&B the overlapped pair. It holds exactly when
// each pass fills one slot of the README's figure, F = B - W = W, with F&B = F + B (nothing hidden),
// and m >= 2 pp; every stage then idles that long inside its span, and the step is the busiest
// stage's 2 m (F + B) plus it.
TEST(Simulate, DualPipeVMatchesPublishedBubble) {
  for (int pp : {1, 2, 4, 8})
    for (int m : {2 * pp, 2 * pp + 1, 3 * pp, 40})
      for (double f : {1.0, 2.5}) {
        const double b = 2 * f, w = f;
        const auto r = simulate(uniform(Schedule::dualpipev, pp, 2, m, f, b, w));
        const double bubble = (pp - 1) * ((f + b) + b - 3 * w);
        EXPECT_DOUBLE_EQ(r.span_ms - r.stages[0].busy_ms, bubble) << "pp=" << pp << " m=" << m;
        EXPECT_DOUBLE_EQ(r.step_time_ms, 2.0 * m * (f + b) + bubble) << "pp=" << pp << " m=" << m;
      }
}

// The contract's F&B duration: F_c + B_c + max(0, F_comm - B_c) + max(0, B_comm - F_c). With F 3
// (comm 1) and B 4 (comm 2): 2 + 2 + 0 + 0 = 4; with F all communication (3): 0 + 2 + 1 + 2 = 5.
TEST(Simulate, OverlappedPairHidesEachSidesCommunication) {
  for (const auto& [f_comm, expected] : {std::pair{1.0, 4.0}, std::pair{3.0, 5.0}}) {
    auto in = uniform(Schedule::dualpipev, 2, 2, 4, 3.0, 4.0, 1.0);
    for (auto& c : in.costs) {
      c.forward_comm_ms = f_comm;
      c.backward_comm_ms = 2.0;
    }
    int pairs = 0;
    for (const auto& op : simulate(in).timeline)
      if (op.kind == OpKind::FB) {
        ++pairs;
        EXPECT_DOUBLE_EQ(op.end_ms - op.start_ms, expected);
        EXPECT_GE(op.backward_virtual_stage, 0);
        EXPECT_NE(op.backward_virtual_stage, op.virtual_stage);
      }
    // Rank 0: phase 4 once (2 pairs), phase 5 once (1 pair); rank 1 (the last): phase 4 twice, its
    // first forward and backward run apart (3 pairs), phase 5 never.
    EXPECT_EQ(pairs, 6);
  }
}

// The V placement's memory (hand count of the handcrafted ZB-V warm-up): every stage reaches 2 pp
// chunk activations, 2 (pp - s) - 1 down, s pairs, then one up before the first B, as much as 1f1b's
// pp full-stage activations on stage 0 (the README's "1x"). DualPipeV holds one more in its first
// overlapped pair, 2 pp + 1 (its README's PP + 1).
TEST(Simulate, VShapeStagesHoldTheirPublishedActivations) {
  for (int pp : {2, 4, 8}) {
    const int m = 3 * pp;
    const auto zbv = simulate(uniform(Schedule::zbv, pp, 2, m, 1, 2, 1, 0.5));
    const auto dpv = simulate(uniform(Schedule::dualpipev, pp, 2, m, 1, 2, 1, 0.5));
    for (int s = 0; s < pp; ++s) {
      EXPECT_EQ(zbv.stages[s].peak_in_flight, 2 * pp) << "pp=" << pp << " s=" << s;
      EXPECT_DOUBLE_EQ(zbv.stages[s].activation_peak_mib, 0.5 * 2 * pp);
      EXPECT_EQ(dpv.stages[s].peak_in_flight, 2 * pp + 1) << "pp=" << pp << " s=" << s;
    }
  }
}

// V-Half and V-Min's activation memory as their authors publish it (the Hugging Face space
// sail/pipeline-parallelism-with-controllable-memory, description: "Activation Memory (by
// #micro-batch)": 1F1B p, V-Half (p + 2) // 2, V-Min (p + 4) // 3), counted as the paper counts it,
// each chunk's activation held until its W. A micro batch's worth on a stage is both chunks', 1 MiB
// here; 1F1B's first stage holds p of them.
TEST(Simulate, VHalfAndVMinHoldTheirPublishedActivations) {
  for (int pp : {2, 3, 4, 5, 6, 8, 12, 16})
    for (int m : {pp, 2 * pp, 3 * pp + 1, 4 * pp}) {
      const auto one = simulate(uniform(Schedule::one_f_one_b, pp, 1, m, 2, 4, 0, 1.0));
      EXPECT_DOUBLE_EQ(one.stages[0].activation_peak_mib, std::min(pp, m));
      for (const auto& [v, published] :
           {std::pair{Schedule::v_half, (pp + 2) / 2}, std::pair{Schedule::v_min, (pp + 4) / 3}}) {
        auto in = uniform(v, pp, 2, m, 1, 2, 1, 0.5);
        for (auto& c : in.costs) c.weight_activation_mib = 0.5;
        const auto r = simulate(in);
        double peak = 0;
        for (const auto& stage : r.stages) peak = std::max(peak, stage.activation_peak_mib);
        EXPECT_LE(peak, published) << schedule_name(v) << " pp=" << pp << " m=" << m;
      }
    }
}

// Megatron-LM's interleaved 1F1B with the all-to-all overlapped, by hand (pp 2, vpp 2, m 2; each
// chunk F 1 ms with 0.5 of communication, full B 2 ms with 1 of communication; free transfers). The
// programs (Schedule.InterleavedOverlapProgramByHand): stage 0 F0.0 F0.1 F2.0 F2.1 B2.0 B2.1 B0.0
// B0.1; stage 1 F1.0 F1.1 F3.0 F3.1&B3.0 B3.1 B1.0 B1.1. The pair takes F_c + B_c + max(0, F_comm -
// B_c) + max(0, B_comm - F_c) = 0.5 + 1 + 0 + 0.5 = 2.
//   stage 0: F0.0 0-1, F0.1 1-2, F2.0 (after F1.0) 2-3, F2.1 (after F1.1) 3-4
//   stage 1: F1.0 1-2, F1.1 2-3, F3.0 3-4, F3.1&B3.0 (F2.1 at 4) 4-6, B3.1 6-8
//   stage 0: B2.0 (after the pair) 6-8, B2.1 (after B3.1) 8-10
//   stage 1: B1.0 (after B2.0) 8-10, B1.1 (after B2.1) 10-12
//   stage 0: B0.0 10-12, B0.1 12-14: the step is 14 ms.
// With no communication the pair takes 3 and the step 15, as plain interleaved 1F1B (m = pp: every
// forward first) takes with or without it.
TEST(Simulate, InterleavedOverlapStepByHand) {
  const auto step = [](Schedule schedule, double f_comm, double b_comm) {
    auto in = uniform(schedule, 2, 2, 2, 1.0, 2.0);
    for (auto& c : in.costs) c.forward_comm_ms = f_comm, c.backward_comm_ms = b_comm;
    return simulate(in).step_time_ms;
  };
  EXPECT_DOUBLE_EQ(step(Schedule::interleaved_1f1b_overlap, 0.5, 1.0), 14.0);
  EXPECT_DOUBLE_EQ(step(Schedule::interleaved_1f1b_overlap, 0, 0), 15.0);
  EXPECT_DOUBLE_EQ(step(Schedule::interleaved_1f1b, 0.5, 1.0), 15.0);
}

// Weight memory is held from B to W: on the last of pp zb_h1 stages F and B alternate, so one full
// activation is in flight when each F starts, beside the weight parts of up to pp - 1 pending Ws:
// 1 + 0.5 min(m - 1, pp - 1) against 1f1b's 1.
TEST(Simulate, WeightActivationIsHeldUntilW) {
  for (int pp : {2, 4})
    for (int m : {2, 8}) {
      auto in = uniform(Schedule::zb_h1, pp, 1, m, 1, 2, 1, 1.0);
      for (auto& c : in.costs) c.weight_activation_mib = 0.5;
      const auto r = simulate(in);
      EXPECT_DOUBLE_EQ(r.stages[pp - 1].activation_peak_mib, 1 + 0.5 * std::min(m - 1, pp - 1)) << pp << " " << m;
      EXPECT_EQ(r.stages[pp - 1].peak_in_flight, 1);
    }
}

// 1f1b holds min(pp - s, m) micro batches on stage s; gpipe holds all m.
TEST(Simulate, OneFOneBHoldsPpMinusStage) {
  for (int pp : {1, 2, 4, 8})
    for (int m : {1, 3, 8, 20}) {
      const auto one = simulate(uniform(Schedule::one_f_one_b, pp, 1, m, 1, 2, 0, 5));
      const auto gp = simulate(uniform(Schedule::gpipe, pp, 1, m, 1, 2, 0, 5));
      for (int s = 0; s < pp; ++s) {
        EXPECT_EQ(one.stages[s].peak_in_flight, std::min(pp - s, m));
        EXPECT_DOUBLE_EQ(one.stages[s].activation_peak_mib, 5.0 * std::min(pp - s, m));
        EXPECT_EQ(gp.stages[s].peak_in_flight, m);
      }
    }
}

// Megatron-LM's interleaved memory: stage 0 holds vpp x pp + pp - 1 chunk micro batches when m > pp
// (its warm-up of 2(pp - 1) + (vpp - 1) pp forwards, plus the one in flight in the steady phase).
TEST(Simulate, InterleavedStageZeroHoldsMegatronCount) {
  for (int pp : {2, 4})
    for (int vpp : {2, 4}) {
      const int m = 4 * pp;
      const auto r = simulate(uniform(Schedule::interleaved_1f1b, pp, vpp, m, 1, 2));
      EXPECT_EQ(r.stages[0].peak_in_flight, vpp * pp + pp - 1) << "pp=" << pp << " vpp=" << vpp;
    }
}

// A 2-stage 1f1b with one micro batch and transfers, by hand: F0 on stage 0 ends at 2, the
// activation arrives at 2 + t, F on stage 1 ends at 2 + t + 3, its B at 2 + t + 3 + 6, the gradient
// arrives at 11 + 2t, B on stage 0 ends at 11 + 2t + 4.
TEST(Simulate, TransferAddsWhereCriticalPathCrosses) {
  SimulationInput in;
  in.pp_degree = 2;
  in.micro_batch_num = 1;
  in.schedule = Schedule::one_f_one_b;
  const double t = 0.75;
  in.costs = {VirtualStageCost{2, 4, 0, 1, t}, VirtualStageCost{3, 6, 0, 1, 0}};
  EXPECT_DOUBLE_EQ(simulate(in).step_time_ms, 2 + t + 3 + 6 + t + 4);
}

// Transfer time from the contract: latency + send_mib x 2^20 / (bandwidth x 1e9) x 1000 ms.
TEST(Simulate, TransferTimeFormula) {
  Device d;
  d.p2p_latency_ms = 0.02;
  d.p2p_bandwidth_gbs = 25;
  EXPECT_DOUBLE_EQ(transfer_ms(d, 32), 0.02 + 32.0 * 1048576.0 / 25e9 * 1000.0);
}

// Unequal stages: a slow middle stage of 3 stages paces the steady state. With F = 1, B = 2 on
// stages 0 and 2 and F = 2, B = 4 on stage 1, m micro batches take (sum of one pass through the
// pipeline) + (m - 1) x (slow stage's F + B): 3 + 6 + 3 ... worked out below.
TEST(Simulate, SlowMiddleStageSetsThePace) {
  SimulationInput in;
  in.pp_degree = 3;
  in.schedule = Schedule::one_f_one_b;
  in.costs = {VirtualStageCost{1, 2, 0, 0, 0}, VirtualStageCost{2, 4, 0, 0, 0}, VirtualStageCost{1, 2, 0, 0, 0}};
  for (int m : {4, 8, 16}) {
    in.micro_batch_num = m;
    // Stage 1 is busy m x 6 ms once started at t = 1 (after stage 0's first forward) and never
    // waits once its steady phase begins, except for the first backward: F0 reaches stage 2 at 3,
    // whose F+B end at 6; stage 1 ran F0 [1,3], F1 [3,5] (warm-up 1), B0 starts at 6 -> one idle ms.
    // After that stage 1 is the bottleneck: it finishes at 1 + 6m + 1, then stage 0's last B takes 2.
    EXPECT_DOUBLE_EQ(simulate(in).step_time_ms, 1 + 6.0 * m + 1 + 2) << "m=" << m;
  }
}

// AP-PP-11: a 4-stage, 8-micro-batch 1f1b timeline has 64 operations, never overlapping on a stage
// and never starting before their input arrived; the memory step function peaks at the activation peak.
TEST(Simulate, AP_PP_11_TimelineIsConsistent) {
  auto in = uniform(Schedule::one_f_one_b, 4, 1, 8, 1.0, 2.0, 0, 3.0);
  for (auto& c : in.costs) c.send_ms = 0.1;
  const auto r = simulate(in);
  ASSERT_EQ(r.timeline.size(), 64u);
  std::map<std::tuple<int, int, int>, const TimedOp*> by_key;
  for (const auto& op : r.timeline) by_key[{op.virtual_stage, op.micro_batch, static_cast<int>(op.kind)}] = &op;
  for (int s = 0; s < 4; ++s) {
    std::vector<const TimedOp*> ops;
    for (const auto& op : r.timeline)
      if (op.stage == s) ops.push_back(&op);
    std::sort(ops.begin(), ops.end(), [](auto* a, auto* b) { return a->start_ms < b->start_ms; });
    for (std::size_t i = 1; i < ops.size(); ++i) EXPECT_GE(ops[i]->start_ms, ops[i - 1]->end_ms);
    double peak = 0;
    for (const auto& p : r.stages[s].memory) peak = std::max(peak, p.activation_mib);
    EXPECT_DOUBLE_EQ(peak, r.stages[s].activation_peak_mib);
    EXPECT_DOUBLE_EQ(peak, 3.0 * (4 - s));
  }
  for (const auto& op : r.timeline) {
    if (op.kind == OpKind::F && op.virtual_stage > 0) {
      EXPECT_GE(op.start_ms, by_key.at({op.virtual_stage - 1, op.micro_batch, 0})->end_ms + 0.1 - 1e-12);
    }
    if (op.kind == OpKind::B && op.virtual_stage < 3) {
      EXPECT_GE(op.start_ms, by_key.at({op.virtual_stage + 1, op.micro_batch, 1})->end_ms + 0.1 - 1e-12);
    }
    if (op.kind == OpKind::B) {
      EXPECT_GE(op.start_ms, by_key.at({op.virtual_stage, op.micro_batch, 0})->end_ms);
    }
  }
}

// AP-PP-03: more micro batches lower the bubble fraction and raise the step time less than
// proportionally, for every schedule.
TEST(Simulate, AP_PP_03_MicroBatchesShrinkTheBubble) {
  for (Schedule s : all_schedules) {
    const int pp = 4, vpp = usual_shape(s, pp, 8).vpp_degree;
    double last_fraction = 1.0, last_step = 0;
    int last_m = 0;
    for (int m : {8, 16, 32, 64, 128}) {  // dualpipev needs m >= 2 pp
      const auto r = simulate(uniform(s, pp, vpp, m, 1, 2, 1));
      double busy = 0;
      for (const auto& st : r.stages) busy += st.busy_ms;
      const double fraction = 1 - busy / (pp * r.step_time_ms);
      EXPECT_LT(fraction, last_fraction) << schedule_name(s) << " m=" << m;
      if (last_m) {
        EXPECT_GT(r.step_time_ms, last_step);
        EXPECT_LT(r.step_time_ms / last_step, static_cast<double>(m) / last_m);
      }
      last_fraction = fraction;
      last_step = r.step_time_ms;
      last_m = m;
    }
  }
}

}  // namespace
}  // namespace ppb
