// The offline proof of the 96-layer interleaved case (docs/proofs/interleaved-96-layers.lp, argued in
// docs/ppb.md) is an integer program; a solver finds its optimum (4,188 ms) outside the suite. What
// the suite checks is that the program is a relaxation of the engine's balance problem, so that its
// optimum is a lower bound of every plan the balance may return:
//   - every path row is the length of a path through the interleaved_1f1b program (each operation
//     after an earlier one on its stage, or after the operation whose output it takes), its op list
//     given in the file: a lower bound of every plan's step time, since the program is the same for
//     every plan; and each is the critical path of the plan it was read off;
//   - the memory rows are the program's count vectors (per physical stage, the micro batches of each
//     chunk held at each forward, those no other count vector beats in both chunks), priced at the
//     model's memory, and the engine's peaks agree with them on sampled plans;
//   - the rest of the program is the plan space: the sum of the decoders, recompute at most the
//     decoders, every virtual stage but the pinned ones holding a decoder (allow_empty_stages false),
//     all 32 variables integer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "helpers.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb::test {
namespace {

constexpr int kPp = 8, kV = 16, kDecoders = 96, kMicroBatches = 16;
constexpr double kLimit = 20000;

// The case's model: bench/bench.cpp issue18_request(3), examples/sapp-llama-192l.json imported with
// 96 decoders. Layers: the embedding (pinned first), the decoders, the head (pinned last). Imported
// once: every estimate of the file's plans reads it.
const json& case_model() {
  static const json model = [] {
    std::ifstream in(std::string(PPB_SOURCE_DIR) + "/examples/sapp-llama-192l.json");
    json imported = run("import", json::parse(in))["result"]["model"];
    for (auto& layer : imported["layers"])
      if (layer.contains("count")) layer["count"] = kDecoders;
    return imported;
  }();
  return model;
}

// Physical stage s's pinned static memory: the embedding's on the first, the head's on the last.
double pinned_static(int s) {
  const json& layers = case_model()["layers"];
  return s == 0 ? layers[0]["static_mib"].get<double>() : s == kPp - 1 ? layers[2]["static_mib"].get<double>() : 0;
}

// A row of the LP file: the coefficients of T, of each c_v and each r_v, its sense and right side.
struct Row {
  std::string name;
  double t = 0;
  std::vector<double> c = std::vector<double>(kV), r = std::vector<double>(kV);
  std::string sense;
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

struct Plan16 {
  std::vector<int> c, r;
};

struct PathOp {
  bool forward = true;
  int virtual_stage = 0, micro_batch = 0;
};

// The file, read in the subset of the CPLEX LP format it uses: one row per line ("name: [sign]
// [coef] var ... <=|>=|= rhs", terms separated by spaces), comments opening with a backslash.
struct Proof {
  Row objective;
  std::vector<Row> rows;                 // every constraint
  std::vector<Row> paths;                // p_k
  std::vector<Plan16> sources;           // the plan p_k was read off
  std::vector<std::vector<PathOp>> ops;  // p_k's path
  std::vector<std::string> bounds, integers;
};

Row read_row(const std::string& line) {
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
      row.sense = w;
      words >> row.rhs;
    } else if (std::isdigit(static_cast<unsigned char>(w[0]))) {
      number = std::stod(w);
    } else {
      if (w == "T") row.t += sign * number;
      if (w[0] == 'c' || w[0] == 'r') (w[0] == 'c' ? row.c : row.r).at(std::stoul(w.substr(1))) += sign * number;
      if (w != "T" && w[0] != 'c' && w[0] != 'r') ADD_FAILURE() << "unknown variable " << w << " in " << line;
      sign = number = 1;
    }
  }
  return row;
}

Proof read_proof() {
  Proof proof;
  std::ifstream in(std::string(PPB_SOURCE_DIR) + "/docs/proofs/interleaved-96-layers.lp");
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.starts_with("\\")) {
      // "\ pK, the critical path of the plan c <16 ints> r <16 ints>" and "\ pK path: F0.0 F1.0 ...".
      if (const auto at = line.find("the plan c "); at != std::string::npos) {
        std::istringstream words(line.substr(at + 11));
        Plan16 plan{std::vector<int>(kV), std::vector<int>(kV)};
        std::string r;
        for (int& x : plan.c) words >> x;
        words >> r;
        for (int& x : plan.r) words >> x;
        proof.sources.push_back(plan);
      }
      if (const auto at = line.find(" path: "); at != std::string::npos) {
        std::istringstream words(line.substr(at + 7));
        std::vector<PathOp> ops;
        std::string w;
        while (words >> w) {
          const auto dot = w.find('.');
          ops.push_back({w[0] == 'F', std::stoi(w.substr(1, dot - 1)), std::stoi(w.substr(dot + 1))});
        }
        proof.ops.push_back(ops);
      }
      continue;
    }
    if (line.empty()) continue;
    if (line == "Minimize" || line == "Subject To" || line == "Bounds" || line == "General" || line == "End") {
      section = line;
      continue;
    }
    if (section == "Minimize") proof.objective = read_row(line);
    if (section == "Subject To") {
      proof.rows.push_back(read_row(line));
      if (proof.rows.back().name[0] == 'p') proof.paths.push_back(proof.rows.back());
    }
    if (section == "Bounds") proof.bounds.push_back(line);
    if (section == "General") {
      std::istringstream words(line);
      std::string w;
      while (words >> w) proof.integers.push_back(w);
    }
  }
  return proof;
}

// The physical stage's memory rows, by name prefix "m<s>_".
std::vector<Row> memory_rows(const Proof& proof, int s) {
  std::ostringstream prefix;
  prefix << 'm' << s << '_';
  std::vector<Row> rows;
  for (const Row& row : proof.rows)
    if (row.name.starts_with(prefix.str())) rows.push_back(row);
  return rows;
}

PipelineShape case_shape() {
  return {.pp_degree = kPp, .vpp_degree = 2, .micro_batch_num = kMicroBatches, .schedule = Schedule::interleaved_1f1b};
}

json case_request(const std::vector<int>& c, const std::vector<int>& r) {
  std::vector<int> layers = c;
  ++layers.front();  // the embedding
  ++layers.back();   // the head
  return {{"model", case_model()},
          {"device", {{"memory_limit_mib", kLimit}}},
          {"pipeline",
           {{"pp_degree", kPp},
            {"vpp_degree", 2},
            {"micro_batch_num", kMicroBatches},
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
    for (const Row& row : memory_rows(proof, s)) {
      most = std::max(most, row.lhs(c, r));
      fits = fits && row.lhs(c, r) <= row.rhs + 1e-9;
    }
    EXPECT_DOUBLE_EQ(pinned_static(s) + most, e["result"]["stages"][s]["memory"]["peak_mib"].get<double>())
        << "stage " << s;
  }
  EXPECT_EQ(fits, e["result"]["feasible"].get<bool>());
}

// The plan PPB returns for the case (docs/ppb.md): decoders and full recomputes per virtual stage.
const std::vector<int> kBestC = {4, 4, 4, 5, 5, 7, 7, 7, 7, 8, 8, 7, 7, 6, 6, 4};
const std::vector<int> kBestR = {4, 3, 3, 1, 1, 2, 1, 2, 1, 0, 0, 2, 1, 0, 0, 0};

std::string var(char kind, int v) {
  std::ostringstream name;
  name << kind << v;
  return name.str();
}

TEST(InterleavedProof, TheProgramIsThePlanSpace) {
  const Proof proof = read_proof();
  EXPECT_EQ(proof.objective.name, "obj");
  EXPECT_EQ(proof.objective.t, 1);
  EXPECT_EQ(proof.objective.lhs(std::vector<int>(kV, 1), std::vector<int>(kV, 1)), 0);
  int sums = 0, caps = 0, paths = 0, memory = 0;
  for (const Row& row : proof.rows) {
    SCOPED_TRACE(row.name);
    if (row.name == "sum") {  // every decoder on some virtual stage
      ++sums;
      EXPECT_EQ(row.sense, "=");
      EXPECT_EQ(row.rhs, kDecoders);
      EXPECT_EQ(row.c, std::vector<double>(kV, 1));
      EXPECT_EQ(row.r, std::vector<double>(kV, 0));
    } else if (row.name.starts_with("rc")) {  // r_v - c_v <= 0
      const auto v = std::stoul(row.name.substr(2));
      ++caps;
      std::vector<double> c(kV), r(kV);
      c.at(v) = -1;
      r.at(v) = 1;
      EXPECT_EQ(row.c, c);
      EXPECT_EQ(row.r, r);
      EXPECT_EQ(row.sense, "<=");
      EXPECT_EQ(row.rhs, 0);
    } else if (row.name[0] == 'p') {
      ++paths;
      EXPECT_EQ(row.sense, ">=");
      EXPECT_EQ(row.t, 1);
    } else {
      ASSERT_EQ(row.name[0], 'm');
      ++memory;
      EXPECT_EQ(row.sense, "<=");
      EXPECT_EQ(row.t, 0);
    }
  }
  EXPECT_EQ(sums, 1);
  EXPECT_EQ(caps, kV);
  EXPECT_EQ(paths, 84);
  EXPECT_EQ(memory, 40);
  // The embedding and the head make the first and last virtual stages non-empty; every other one
  // holds a decoder. Each variable has one bound line; the upper bounds (96) cut nothing.
  std::set<std::string> expected, integers(proof.integers.begin(), proof.integers.end());
  for (int v = 0; v < kV; ++v) {
    std::ostringstream c_bound, r_bound;
    c_bound << ' ' << (v == 0 || v == kV - 1 ? 0 : 1) << " <= c" << v << " <= 96";
    r_bound << " 0 <= r" << v << " <= 96";
    expected.insert(c_bound.str());
    expected.insert(r_bound.str());
    EXPECT_TRUE(integers.count(var('c', v))) << v;
    EXPECT_TRUE(integers.count(var('r', v))) << v;
  }
  EXPECT_EQ(std::set<std::string>(proof.bounds.begin(), proof.bounds.end()), expected);
  EXPECT_EQ(proof.bounds.size(), expected.size());
}

// Each path row is a path of the program, its coefficients the path's operations at the model's
// times; and it is the critical path of the plan it was read off (its length there is that plan's
// step time, to the last bit: the times are multiples of 0.5 ms).
TEST(InterleavedProof, EachPathRowIsAPathOfTheProgram) {
  const Proof proof = read_proof();
  ASSERT_EQ(proof.sources.size(), proof.paths.size());
  ASSERT_EQ(proof.ops.size(), proof.paths.size());
  const Program program = schedule_program(case_shape());
  std::map<std::tuple<bool, int, int>, std::pair<int, int>> where;  // op -> (stage, position)
  for (int s = 0; s < kPp; ++s)
    for (int k = 0; k < static_cast<int>(program[static_cast<std::size_t>(s)].size()); ++k) {
      const Op& op = program[static_cast<std::size_t>(s)][static_cast<std::size_t>(k)];
      where[{op.kind == OpKind::F, op.virtual_stage, op.micro_batch}] = {s, k};
    }
  const json& layers = case_model()["layers"];
  const double f = layers[1]["forward_ms"], b = layers[1]["backward_ms"];
  const double extra = layers[1]["recompute"]["full"]["extra_ms"];
  const double embed_f = layers[0]["forward_ms"], embed_b = layers[0]["backward_ms"];
  const double head_f = layers[2]["forward_ms"], head_b = layers[2]["backward_ms"];
  for (std::size_t k = 0; k < proof.paths.size(); ++k) {
    const Row& row = proof.paths[k];
    SCOPED_TRACE(row.name);
    const std::vector<PathOp>& ops = proof.ops[k];
    ASSERT_FALSE(ops.empty());
    std::vector<double> c(kV), r(kV);
    double constant = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const PathOp& y = ops[i];
      ASSERT_TRUE(where.count({y.forward, y.virtual_stage, y.micro_batch})) << i;
      const auto v = static_cast<std::size_t>(y.virtual_stage);
      c[v] += y.forward ? f : b;
      r[v] += y.forward ? 0 : extra;
      if (v == 0) constant += y.forward ? embed_f : embed_b;
      if (v == kV - 1) constant += y.forward ? head_f : head_b;
      if (i == 0) continue;
      // x before y: earlier on y's stage, or the operation whose output y takes.
      const PathOp& x = ops[i - 1];
      const auto [xs, xk] = where[{x.forward, x.virtual_stage, x.micro_batch}];
      const auto [ys, yk] = where[{y.forward, y.virtual_stage, y.micro_batch}];
      const bool same_stage = xs == ys && xk < yk;
      const bool input =
          x.micro_batch == y.micro_batch &&
          (y.forward ? x.forward && x.virtual_stage == y.virtual_stage - 1
                     : (y.virtual_stage == kV - 1 ? x.forward && x.virtual_stage == kV - 1
                                                  : !x.forward && x.virtual_stage == y.virtual_stage + 1));
      EXPECT_TRUE(same_stage || input) << "step " << i;
    }
    // The row is T - sum >= constant with sum the path's time less the pinned layers'.
    for (std::size_t v = 0; v < kV; ++v) {
      EXPECT_DOUBLE_EQ(-row.c[v], c[v]) << "c" << v;
      EXPECT_DOUBLE_EQ(-row.r[v], r[v]) << "r" << v;
    }
    EXPECT_DOUBLE_EQ(row.rhs, constant);
    const Plan16& plan = proof.sources[k];
    const json e = run("estimate", case_request(plan.c, plan.r));
    ASSERT_TRUE(e["ok"]) << e.dump();
    EXPECT_EQ(row.length(plan.c, plan.r), e["result"]["step_time_ms"].get<double>());
  }
}

// Per physical stage, the memory rows are the program's count vectors: n_a and n_b micro batches of
// its two chunks (virtual stages s and s + 8) held at a forward's start, those no other beats in both,
// each priced at the model's static memory per decoder and activation per decoder and micro batch
// (less with recompute), within the limit less the pinned static memory.
TEST(InterleavedProof, TheMemoryRowsAreTheProgramsCountVectors) {
  const Proof proof = read_proof();
  const json& layers = case_model()["layers"];
  const double stat = layers[1]["static_mib"], act = layers[1]["activation_mib"];
  const double saved = act - layers[1]["recompute"]["full"]["activation_mib"].get<double>();
  const Program program = schedule_program(case_shape());
  for (int s = 0; s < kPp; ++s) {
    SCOPED_TRACE(testing::Message() << "stage " << s);
    std::set<std::pair<int, int>> held;
    int n[2] = {0, 0};
    for (const Op& op : program[static_cast<std::size_t>(s)]) {
      const int chunk = op.virtual_stage / kPp;
      if (op.kind == OpKind::F) {
        ++n[chunk];
        held.insert({n[0], n[1]});
      } else {
        --n[chunk];
      }
    }
    std::set<std::vector<double>> expected, found;  // c_a, r_a, c_b, r_b, rhs
    for (const std::pair<int, int>& at : held) {
      const int na = at.first, nb = at.second;
      const bool beaten = std::any_of(held.begin(), held.end(), [&](const std::pair<int, int>& o) {
        return o != at && o.first >= na && o.second >= nb;
      });
      if (!beaten)
        expected.insert({stat + act * na, -saved * na, stat + act * nb, -saved * nb, kLimit - pinned_static(s)});
    }
    const auto a = static_cast<std::size_t>(s), b = static_cast<std::size_t>(s + kPp);
    for (const Row& row : memory_rows(proof, s)) {
      found.insert({row.c[a], row.r[a], row.c[b], row.r[b], row.rhs});
      std::vector<double> others_c = row.c, others_r = row.r;
      others_c[a] = others_c[b] = others_r[a] = others_r[b] = 0;
      EXPECT_EQ(others_c, std::vector<double>(kV, 0)) << row.name;
      EXPECT_EQ(others_r, std::vector<double>(kV, 0)) << row.name;
    }
    EXPECT_EQ(found, expected);
    EXPECT_EQ(memory_rows(proof, s).size(), expected.size());
  }
}

TEST(InterleavedProof, PPBsPlanIsAt4188AndOnARow) {
  const Proof proof = read_proof();
  expect_rows_hold(proof, kBestC, kBestR);
  const json e = run("estimate", case_request(kBestC, kBestR));
  EXPECT_EQ(e["result"]["step_time_ms"].get<double>(), 4188.0);
  EXPECT_TRUE(e["result"]["feasible"].get<bool>());
  double longest = 0;
  for (const Row& row : proof.paths) longest = std::max(longest, row.length(kBestC, kBestR));
  EXPECT_DOUBLE_EQ(longest, 4188.0);
}

// Random plans, half of them a few moves from PPB's (where the rows are tight), half anywhere: no row
// exceeds the engine's step time, and the engine's peaks are the memory rows'.
TEST(InterleavedProof, RowsAgreeWithTheEngineOnSampledPlans) {
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
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    expect_rows_hold(proof, c, r);
  }
}

}  // namespace
}  // namespace ppb::test
