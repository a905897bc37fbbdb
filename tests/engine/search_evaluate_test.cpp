// One search candidate as values: balanced and estimated, or ruled out by a rule, with every
// figure worked out by hand from the contract's 1f1b formulas.
#include "ppb/search/search_evaluate.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "search_helpers.hpp"

namespace ppb::test {
namespace {

// 16 equal layers: F 1, B 2, static 1000 MiB, activation 100 MiB per micro batch.
SearchProblem sixteen_layers(double limit_mib) {
  SearchProblem problem;
  problem.model = equal_layers(16, 1, 2, 1000, 100);
  problem.device.memory_limit_mib = limit_mib;
  return problem;
}

SearchCombination shape(int pp, int vpp, std::int64_t m, Schedule schedule, std::optional<std::int64_t> dp) {
  return {PipelineShape{pp, vpp, m, schedule}, dp};
}

// pp 4, m 32, 1f1b, dp 2: the even split (4 layers a stage, F 4, B 8) is optimal on equal layers.
// Step (m + pp - 1)(F + B) = 35 x 12 = 420 ms; stage 0 holds min(pp, m) = 4 micro batches:
// 4000 + 4 x 400 = 5600 MiB. Busy 32 x 12 = 384 ms a stage, so the bubble is 36 / 420. 32 micro
// batches x 1 sample x 2 replicas = 64 samples a step: 6.5625 ms a sample, 64 / 0.42 s.
TEST(SearchEvaluate, BalancedCandidateFigures) {
  const SearchCandidate c = evaluate_candidate(sixteen_layers(6000), shape(4, 1, 32, Schedule::one_f_one_b, 2));
  ASSERT_TRUE(c.figures);
  const CandidateFigures& f = *c.figures;
  EXPECT_TRUE(c.feasible);
  EXPECT_TRUE(c.reasons.empty());
  EXPECT_EQ(f.plan.stage_layers, (std::vector<int>{4, 4, 4, 4}));
  EXPECT_DOUBLE_EQ(f.step_time_ms, 420);
  EXPECT_DOUBLE_EQ(f.peak_mib, 5600);
  EXPECT_DOUBLE_EQ(f.bubble_fraction, 36.0 / 420);
  EXPECT_DOUBLE_EQ(f.imbalance_max_over_mean, 1);
  EXPECT_DOUBLE_EQ(f.time_per_sample_ms, 420.0 / 64);
  EXPECT_DOUBLE_EQ(f.throughput_samples_per_s, 64 / 0.42);
  ASSERT_TRUE(f.even_split);
  EXPECT_DOUBLE_EQ(f.even_split->step_time_ms, 420);
  EXPECT_TRUE(f.even_split->feasible);
  EXPECT_DOUBLE_EQ(f.even_split->peak_mib, 5600);
  ASSERT_TRUE(f.gain_ms);  // the even split fits: the gain means something, and is 0 here
  EXPECT_DOUBLE_EQ(*f.gain_ms, 0);
  EXPECT_EQ(f.gain_note, "");
}

// Without a dp_degree the samples are those of one pipeline: 32 a step of 420 ms.
TEST(SearchEvaluate, UnknownDpDegreeCountsOnePipeline) {
  const SearchCandidate c =
      evaluate_candidate(sixteen_layers(6000), shape(4, 1, 32, Schedule::one_f_one_b, std::nullopt));
  ASSERT_TRUE(c.figures);
  EXPECT_DOUBLE_EQ(c.figures->time_per_sample_ms, 420.0 / 32);
  EXPECT_DOUBLE_EQ(c.figures->throughput_samples_per_s, 32 / 0.42);
}

// pp 4, m 8 under 5000 MiB: stage s holds min(4 - s, 8) micro batches, so k layers on it need
// k (1000 + 100 (4 - s)) MiB: at most 3, 3, 4 and 4 layers, 14 of the 16. No plan fits, and the
// balance proves it; the even split (4 layers a stage, 5600 MiB on stage 0) does not fit either, so
// there is no gain to give.
TEST(SearchEvaluate, GainOnlyWhereTheEvenSplitFits) {
  const SearchCandidate c = evaluate_candidate(sixteen_layers(5000), shape(4, 1, 8, Schedule::one_f_one_b, 1));
  ASSERT_TRUE(c.figures);
  EXPECT_FALSE(c.feasible);
  EXPECT_TRUE(c.figures->none_fits_proven);
  ASSERT_TRUE(c.figures->even_split);
  EXPECT_FALSE(c.figures->even_split->feasible);
  EXPECT_DOUBLE_EQ(c.figures->even_split->peak_mib, 5600);
  EXPECT_FALSE(c.figures->gain_ms);
  EXPECT_EQ(c.figures->gain_note, "the even split does not fit: its largest stage needs 5600 MiB, limit 5000 MiB");
}

// 2 body layers between a pinned embedding and head, over 4 virtual stages: the even split puts
// floor(2 / 4) = 0 body layers on each, the 2 extra ones on the first two, so virtual stage 2 is
// empty. PPB can still place one layer per stage.
TEST(SearchEvaluate, EvenSplitWithAnEmptyStageHasNoGain) {
  SearchProblem problem;
  problem.model = equal_layers(4, 1, 2, 0, 0);
  problem.model.layers[0].pin = Pin::first;
  problem.model.layers[3].pin = Pin::last;
  problem.model.pinned_first = 1;
  problem.model.pinned_last = 1;
  const SearchCandidate c = evaluate_candidate(problem, shape(4, 1, 4, Schedule::one_f_one_b, 1));
  ASSERT_TRUE(c.figures);
  EXPECT_TRUE(c.feasible);
  EXPECT_FALSE(c.figures->even_split);
  EXPECT_FALSE(c.figures->gain_ms);
  EXPECT_EQ(c.figures->gain_note, "the even split would leave a virtual stage empty");
}

// pp 1, m 8: all 16 layers on one stage, 16000 MiB static + 1 micro batch of 1600 MiB = 17600 MiB
// against 10000: 7600 over. Step 8 x 48 = 384 ms.
TEST(SearchEvaluate, OverTheLimitWithReasons) {
  const SearchCandidate c = evaluate_candidate(sixteen_layers(10000), shape(1, 1, 8, Schedule::one_f_one_b, 1));
  EXPECT_FALSE(c.feasible);
  ASSERT_TRUE(c.figures);
  EXPECT_DOUBLE_EQ(c.figures->step_time_ms, 384);
  EXPECT_DOUBLE_EQ(c.over_mib, 7600);
  EXPECT_EQ(c.reasons, (std::vector<std::string>{"stage 0 needs 17600 MiB, limit 10000 MiB (7600 MiB over)"}));
  EXPECT_EQ(c.infeasible_group, "every stage over the memory limit");
}

TEST(SearchEvaluate, RulesRuleOutBeforeBalancing) {
  const SearchProblem problem = sixteen_layers(1e6);
  const SearchCandidate too_many = evaluate_candidate(problem, shape(32, 1, 8, Schedule::one_f_one_b, 1));
  EXPECT_FALSE(too_many.feasible);
  EXPECT_FALSE(too_many.figures);
  EXPECT_EQ(too_many.reasons, (std::vector<std::string>{"32 virtual stages, but the model splits into at most 16"}));
  EXPECT_EQ(too_many.infeasible_group, "more virtual stages than the model has layers to split");

  const SearchCandidate groups = evaluate_candidate(problem, shape(4, 2, 6, Schedule::interleaved_1f1b, 1));
  EXPECT_FALSE(groups.figures);
  EXPECT_EQ(groups.reasons,
            (std::vector<std::string>{
                "interleaved_1f1b runs micro batches in groups of pp_degree, so micro_batch_num (6) must be a "
                "multiple of pp_degree (4)"}));

  // 4 virtual stages x 2,000,000 micro batches = 8,000,000 pairs, over the 4,194,304 cap.
  const SearchCandidate huge = evaluate_candidate(problem, shape(4, 1, 2'000'000, Schedule::one_f_one_b, 1));
  EXPECT_FALSE(huge.figures);
  EXPECT_EQ(huge.infeasible_group, "above the simulation cap");
  EXPECT_EQ(
      huge.reasons,
      (std::vector<std::string>{"pp_degree x vpp_degree x micro_batch_num = 8000000 exceeds the cap of 4194304"}));
}

// No request can state pp_degree 0; a C++ caller that does gets an exception, not a candidate.
TEST(SearchEvaluate, ImpossibleShapeIsACallersBug) {
  EXPECT_THROW(evaluate_candidate(sixteen_layers(1e6), shape(0, 1, 8, Schedule::one_f_one_b, 1)),
               std::invalid_argument);
  EXPECT_THROW(evaluate_candidate(sixteen_layers(1e6), shape(2, 1, 0, Schedule::one_f_one_b, 1)),
               std::invalid_argument);
}

}  // namespace
}  // namespace ppb::test
