// The PyTorch pipelining export: its CSV read back with the grammar of PyTorch's _Action.from_str
// (docs/interop.md) gives every rank's operations in the order the simulated timeline runs them, and
// meets the checks PyTorch's _validate_schedule makes when it loads a CSV.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "ppb/interop/export.hpp"
#include "ppb/simulate/estimate.hpp"
#include "ppb/simulate/simulate.hpp"
#include "ppb/simulate/zb_auto.hpp"

namespace ppb {
namespace {

// One compute action as PyTorch reads it: stage, type (F, I, B, W) and micro batch; an OVERLAP_F_B
// action holds its sub-actions.
struct Action {
  int stage = -1;
  std::string type;
  int micro_batch = -1;
  std::vector<Action> sub;
};

// _Action.from_str's grammar for compute actions: "(a;b)OVERLAP_F_B", else \d+(F|I|B|W)\d+.
// Read by hand: std::regex trips GCC 12's maybe-uninitialized warning inside libstdc++ under ASan.
int digits(const std::string& text, std::size_t& at) {
  const std::size_t start = at;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
  if (at == start) throw std::runtime_error("not an action: " + text);
  return std::stoi(text.substr(start, at - start));
}

Action parse_action(const std::string& text) {
  Action a;
  const std::string overlap_suffix = ")OVERLAP_F_B";
  if (!text.empty() && text.front() == '(' && text.size() > overlap_suffix.size() + 1 &&
      text.compare(text.size() - overlap_suffix.size(), overlap_suffix.size(), overlap_suffix) == 0) {
    a.type = "OVERLAP_F_B";
    std::stringstream parts(text.substr(1, text.size() - 1 - overlap_suffix.size()));
    for (std::string part; std::getline(parts, part, ';');) a.sub.push_back(parse_action(part));
    return a;
  }
  std::size_t at = 0;
  a.stage = digits(text, at);
  if (at >= text.size() || std::string("FIBW").find(text[at]) == std::string::npos)
    throw std::runtime_error("not an action: " + text);
  a.type = std::string(1, text[at++]);
  a.micro_batch = digits(text, at);
  if (at != text.size()) throw std::runtime_error("not an action: " + text);
  return a;
}

// The CSV as csv.reader reads it (no field here needs quoting): one row per rank.
std::vector<std::vector<Action>> parse_csv(const std::string& csv) {
  std::vector<std::vector<Action>> ranks;
  std::stringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::vector<Action> row;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(parse_action(cell));
    ranks.push_back(std::move(row));
  }
  return ranks;
}

std::string text(const Action& a) {
  if (a.type == "OVERLAP_F_B") return "(" + text(a.sub.at(0)) + ";" + text(a.sub.at(1)) + ")";
  return std::to_string(a.stage) + a.type + std::to_string(a.micro_batch);
}

// A timeline operation in the same words: PyTorch's I is a backward whose W runs apart.
std::string text(const TimedOp& op) {
  const std::string b = op.weight_apart ? "I" : "B";
  switch (op.kind) {
    case OpKind::F: return std::to_string(op.virtual_stage) + "F" + std::to_string(op.micro_batch);
    case OpKind::B: return std::to_string(op.virtual_stage) + b + std::to_string(op.micro_batch);
    case OpKind::W: return std::to_string(op.virtual_stage) + "W" + std::to_string(op.micro_batch);
    case OpKind::FB:
      return "(" + std::to_string(op.virtual_stage) + "F" + std::to_string(op.micro_batch) + ";" +
             std::to_string(op.backward_virtual_stage) + b + std::to_string(op.backward_micro_batch) + ")";
  }
  return "";
}

Plan plan_of(Schedule schedule, int pp, std::int64_t m) { return Plan(test::usual_shape(schedule, pp, m)); }

// The header's example, by hand from 1f1b's warm-up: rank 0 runs one extra forward first.
TEST(ExportPytorch, OneFOneBByHand) {
  const ExportOutput out = export_pytorch(plan_of(Schedule::one_f_one_b, 2, 2));
  EXPECT_EQ(out.text, "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
  EXPECT_EQ(out.json["stage_to_rank"], nlohmann::json::parse("[0, 1]"));
}

// An F&B pair becomes OVERLAP_F_B with the forward first, as PyTorch's ScheduleDualPipeV writes it;
// a split backward is I, a full one B; the V puts stages 3 and 0 on rank 0.
TEST(ExportPytorch, DualPipeVActions) {
  const ExportOutput out = export_pytorch(plan_of(Schedule::dualpipev, 2, 4));
  // Rank 1 by hand from DualPipeV's phases (tests/engine/schedule_test.cpp has the same program).
  EXPECT_EQ(out.json["actions"][1], nlohmann::json::parse(R"(["1F0", "2F0", "1F1", "2F1", "1F2", "2B0",
      "(2F2;1B0)OVERLAP_F_B", "(1F3;2B1)OVERLAP_F_B", "(2F3;1B1)OVERLAP_F_B", "2B2", "1B2", "2I3", "1I3",
      "2W3", "1W3"])"));
  EXPECT_EQ(out.json["stage_to_rank"], nlohmann::json::parse("[0, 1, 1, 0]"));
}

// Round trip: for every schedule, the CSV read back gives each rank's operations in the order of the
// simulated timeline (sorted by start on that stage), and passes PyTorch's load-time checks: every
// stage on one rank, m forwards per stage, as many I as W, B + I = m, a W only after its I, a
// backward only after its forward.
TEST(ExportPytorch, CsvRoundTripMatchesTimelineAndPytorchChecks) {
  for (Schedule schedule : all_schedules) {
    const int pp = 4;
    const std::int64_t m = 8;
    const Plan plan = plan_of(schedule, pp, m);
    SimulationInput in;
    static_cast<PipelineShape&>(in) = plan;
    in.costs.assign(static_cast<std::size_t>(plan.virtual_stages()),
                    VirtualStageCost{1, 2.5, 1, 1, 0.1, 0.5, 0.2, 0.3});
    in.keep_timeline = true;
    // zb_auto's program is written for these costs (program_for); the others' for the shape alone.
    const auto ranks = parse_csv(export_pytorch(plan, program_for(in)).text);
    ASSERT_EQ(ranks.size(), static_cast<std::size_t>(pp));

    const SimulationResult sim = simulate(in);
    for (int s = 0; s < pp; ++s) {
      std::vector<const TimedOp*> ops;
      for (const TimedOp& op : sim.timeline)
        if (op.stage == s) ops.push_back(&op);
      std::stable_sort(ops.begin(), ops.end(), [](auto* a, auto* b) { return a->start_ms < b->start_ms; });
      ASSERT_EQ(ranks[static_cast<std::size_t>(s)].size(), ops.size()) << schedule_name(schedule);
      for (std::size_t i = 0; i < ops.size(); ++i)
        ASSERT_EQ(text(ranks[static_cast<std::size_t>(s)][i]), text(*ops[i]))
            << schedule_name(schedule) << " rank " << s;
    }

    std::map<int, int> rank_of;
    std::map<int, std::map<std::string, std::vector<int>>> seen;  // stage -> type -> micro batches in order
    for (int r = 0; r < pp; ++r)
      for (const Action& top : ranks[static_cast<std::size_t>(r)]) {
        const std::vector<Action> parts = top.sub.empty() ? std::vector<Action>{top} : top.sub;
        for (const Action& a : parts) {
          ASSERT_TRUE(!rank_of.count(a.stage) || rank_of[a.stage] == r) << schedule_name(schedule);
          rank_of[a.stage] = r;
          auto& stage = seen[a.stage];
          const auto has = [&](const char* type, int mb) {
            const auto& v = stage[type];
            return std::find(v.begin(), v.end(), mb) != v.end();
          };
          if (a.type == "W") {
            ASSERT_TRUE(has("I", a.micro_batch)) << schedule_name(schedule) << " " << text(a);
          }
          if (a.type == "I" || a.type == "B") {
            ASSERT_TRUE(has("F", a.micro_batch)) << schedule_name(schedule) << " " << text(a);
          }
          stage[a.type].push_back(a.micro_batch);
        }
      }
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(plan.virtual_stages()));
    for (auto& [stage, types] : seen) {
      EXPECT_EQ(types["F"].size(), static_cast<std::size_t>(m)) << schedule_name(schedule);
      EXPECT_EQ(types["I"].size(), types["W"].size()) << schedule_name(schedule);
      EXPECT_EQ(types["B"].size() + types["I"].size(), static_cast<std::size_t>(m)) << schedule_name(schedule);
      EXPECT_EQ(rank_of[stage], plan.physical_stage(stage));
    }
  }
}

}  // namespace
}  // namespace ppb
