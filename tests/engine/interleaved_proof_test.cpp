// The offline proof of the 96-layer interleaved case (docs/proofs/interleaved-96-layers.lp, argued in
// docs/ppb.md) rests on two claims about the engine, checked here row by row:
//   - every path row p_k is a lower bound of the step time the engine simulates, for every plan;
//   - the memory rows m_s_j are the engine's memory: the peak of physical stage s is its pinned static
//     memory plus the largest left side of its rows.
// With both, an integer optimum of 4,188 ms over those rows (an ILP solver's part, see the file's
// header) is a lower bound of every plan that fits; the plan PPB returns is simulated here at 4,188.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace ppb::test {
namespace {

constexpr int kPp = 8, kV = 16, kDecoders = 96;
constexpr double kPinnedStatic[kPp] = {4000, 0, 0, 0, 0, 0, 0, 5000};  // embedding, head

// A row of the LP file: the coefficients of T, of each c_v and each r_v, its sense and right side.
struct Row {
  std::string name;
  double t = 0;
  std::vector<double> c = std::vector<double>(kV), r = std::vector<double>(kV);
  bool at_least = false;
  double rhs = 0;
  // The left side without T at a plan (c, r).
  [[nodiscard]] double lhs(const std::vector<int>& cs, const std::vector<int>& rs) const {
    double sum = 0;
    for (std::size_t v = 0; v < kV; ++v) sum += c[v] * cs[v] + r[v] * rs[v];
    return sum;
  }
  // A path row "T - sum >= const" as a length: const + sum.
  [[nodiscard]] double length(const std::vector<int>& cs, const std::vector<int>& rs) const {
    return rhs - lhs(cs, rs);
  }
};

// The constraint rows of the LP file, in the subset of the CPLEX LP format it uses: one row per line,
// "name: [sign] [coef] var ... <=|>=|= rhs", terms separated by spaces.
std::vector<Row> read_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  std::string line;
  bool constraints = false;
  while (std::getline(in, line)) {
    if (line.starts_with("Subject To")) constraints = true;
    if (line.starts_with("Bounds")) break;
    if (!constraints || line.find(':') == std::string::npos) continue;
    std::istringstream words(line);
    Row row;
    words >> row.name;
    row.name.pop_back();  // the ':'
    double sign = 1, number = 1;
    std::string w;
    while (words >> w) {
      if (w == "+" || w == "-") {
        sign = w == "-" ? -1 : 1;
      } else if (w == "<=" || w == ">=" || w == "=") {
        row.at_least = w == ">=";
        words >> row.rhs;
      } else if (std::isdigit(static_cast<unsigned char>(w[0]))) {
        number = std::stod(w);
      } else {
        if (w == "T") row.t += sign * number;
        if (w[0] == 'c' || w[0] == 'r') (w[0] == 'c' ? row.c : row.r).at(std::stoul(w.substr(1))) += sign * number;
        sign = number = 1;
      }
    }
    if (row.name != "obj") rows.push_back(row);
  }
  return rows;
}

struct Plan16 {
  std::vector<int> c, r;
};

struct Proof {
  std::vector<Row> paths;                // p_k
  std::vector<Plan16> sources;           // the plan p_k was read off
  std::vector<std::vector<Row>> memory;  // m_s_j per physical stage
};

const std::string kFile = std::string(PPB_SOURCE_DIR) + "/docs/proofs/interleaved-96-layers.lp";

Proof read_proof() {
  Proof proof;
  proof.memory.resize(kPp);
  for (Row& row : read_rows(kFile)) {
    if (row.name[0] == 'p') proof.paths.push_back(row);
    if (row.name[0] == 'm') proof.memory[static_cast<std::size_t>(row.name[1] - '0')].push_back(row);
  }
  // The comment before each path row: "\ pK, the critical path of the plan c <16 ints> r <16 ints>".
  std::ifstream in(kFile);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("the plan c ");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 11));
    Plan16 plan{std::vector<int>(kV), std::vector<int>(kV)};
    std::string r;
    for (int& x : plan.c) words >> x;
    words >> r;
    for (int& x : plan.r) words >> x;
    proof.sources.push_back(plan);
  }
  return proof;
}

// The case: bench/bench.cpp issue18_request(3) as an estimate of the plan (c, r).
json case_request(const std::vector<int>& c, const std::vector<int>& r) {
  std::ifstream in(std::string(PPB_SOURCE_DIR) + "/examples/sapp-llama-192l.json");
  json model = run("import", json::parse(in))["result"]["model"];
  for (auto& layer : model["layers"])
    if (layer.contains("count")) layer["count"] = kDecoders;
  std::vector<int> layers = c;
  ++layers.front();  // the embedding
  ++layers.back();   // the head
  return {{"model", model},
          {"device", {{"memory_limit_mib", 20000}}},
          {"pipeline",
           {{"pp_degree", kPp},
            {"vpp_degree", 2},
            {"micro_batch_num", 16},
            {"schedule", "interleaved_1f1b"},
            {"stage_layers", layers},
            {"recompute", {{"full", r}}}}}};
}

// What the rows say of plan (c, r) against what the engine says.
void expect_rows_hold(const Proof& proof, const std::vector<int>& c, const std::vector<int>& r) {
  const json e = run("estimate", case_request(c, r));
  ASSERT_TRUE(e["ok"]) << e.dump();
  const double step = e["result"]["step_time_ms"];
  for (const Row& row : proof.paths) EXPECT_LE(row.length(c, r), step + 1e-9) << row.name;
  bool fits = true;
  for (int s = 0; s < kPp; ++s) {
    double most = 0;
    for (const Row& row : proof.memory[static_cast<std::size_t>(s)]) {
      most = std::max(most, row.lhs(c, r));
      fits = fits && row.lhs(c, r) <= row.rhs + 1e-9;
    }
    EXPECT_DOUBLE_EQ(kPinnedStatic[s] + most, e["result"]["stages"][s]["memory"]["peak_mib"].get<double>())
        << "stage " << s;
  }
  EXPECT_EQ(fits, e["result"]["feasible"].get<bool>());
}

// The plan PPB returns for the case (docs/ppb.md): decoders and full recomputes per virtual stage.
const std::vector<int> kBestC = {4, 4, 4, 5, 5, 7, 7, 7, 7, 8, 8, 7, 7, 6, 6, 4};
const std::vector<int> kBestR = {4, 3, 3, 1, 1, 2, 1, 2, 1, 0, 0, 2, 1, 0, 0, 0};

TEST(InterleavedProof, TheFileHoldsEveryRowOfItsModel) {
  const Proof proof = read_proof();
  EXPECT_EQ(proof.paths.size(), 84u);
  // Each physical stage's count vectors: the stage's own peaks, from 2 (the first and last stage)
  // to 8 (stages 3 and 4).
  int memory_rows = 0;
  for (const auto& rows : proof.memory) memory_rows += static_cast<int>(rows.size());
  EXPECT_EQ(memory_rows, 40);
  for (const Row& row : proof.paths) {
    EXPECT_TRUE(row.at_least) << row.name;
    EXPECT_EQ(row.t, 1) << row.name;
  }
}

// Each path row is the critical path of the plan it was read off: its length there is that plan's
// step time, to the last bit (the times are multiples of 0.5 ms).
TEST(InterleavedProof, EachPathIsTheCriticalPathOfItsPlan) {
  const Proof proof = read_proof();
  ASSERT_EQ(proof.sources.size(), proof.paths.size());
  for (std::size_t k = 0; k < proof.paths.size(); ++k) {
    const Plan16& plan = proof.sources[k];
    const json e = run("estimate", case_request(plan.c, plan.r));
    ASSERT_TRUE(e["ok"]) << e.dump();
    EXPECT_EQ(proof.paths[k].length(plan.c, plan.r), e["result"]["step_time_ms"].get<double>()) << proof.paths[k].name;
    expect_rows_hold(proof, plan.c, plan.r);
  }
}

TEST(InterleavedProof, PPBsPlanIsAt4188AndOnARow) {
  const Proof proof = read_proof();
  expect_rows_hold(proof, kBestC, kBestR);
  const json e = run("estimate", case_request(kBestC, kBestR));
  EXPECT_EQ(e["result"]["step_time_ms"].get<double>(), 4188.0);
  EXPECT_TRUE(e["result"]["feasible"].get<bool>());
  // Some path of the program is the plan's critical one: it is the seed row p0, read off this plan.
  double longest = 0;
  for (const Row& row : proof.paths) longest = std::max(longest, row.length(kBestC, kBestR));
  EXPECT_DOUBLE_EQ(longest, 4188.0);
}

// Random plans, half of them a few moves from PPB's (where the rows are tight), half anywhere.
TEST(InterleavedProof, EveryRowIsALowerBoundAndTheMemoryRowsAreTheEnginesMemory) {
  const Proof proof = read_proof();
  std::mt19937 rng(18);
  for (int trial = 0; trial < 120; ++trial) {
    std::vector<int> c(kV), r(kV);
    if (trial % 2 == 0) {
      c = kBestC;
      for (int move = 0; move < 3; ++move) {
        const int from = std::uniform_int_distribution<int>(0, kV - 1)(rng);
        const int to = std::uniform_int_distribution<int>(0, kV - 1)(rng);
        if (c[from] > (from == 0 || from == kV - 1 ? 0 : 1)) --c[from], ++c[to];
      }
    } else {
      std::fill(c.begin() + 1, c.end() - 1, 1);
      for (int k = 0; k < kDecoders - (kV - 2); ++k) ++c[std::uniform_int_distribution<int>(0, kV - 1)(rng)];
    }
    for (int v = 0; v < kV; ++v) r[v] = std::uniform_int_distribution<int>(0, c[v])(rng);
    SCOPED_TRACE("trial " + std::to_string(trial));
    expect_rows_hold(proof, c, r);
  }
}

}  // namespace
}  // namespace ppb::test
