// Native benchmarks of the engine's hot paths. `./dev.sh bench` runs them; figures are medians.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>

#include "ppb/balance/balance.hpp"
#include "ppb/commands/commands.hpp"
#include "ppb/commands/search_session.hpp"

#include <nlohmann/json.hpp>
#include "ppb/simulate/simulate.hpp"
#include "test_models.hpp"  // tests/engine: the models the tests build too

namespace {

// Simulation of uniform stages: pp x vpp x m operations (x2, or x3 with W).
void BM_Simulate(benchmark::State& state) {
  ppb::SimulationInput in;
  in.pp_degree = static_cast<int>(state.range(0));
  in.vpp_degree = static_cast<int>(state.range(2));
  in.micro_batch_num = state.range(1);
  in.schedule = in.vpp_degree > 1 ? ppb::Schedule::interleaved_1f1b : ppb::Schedule::one_f_one_b;
  in.costs.assign(static_cast<std::size_t>(in.pp_degree * in.vpp_degree),
                  ppb::VirtualStageCost{1.0, 2.0, 1.0, 10.0, 0.01});
  // One simulator for every iteration, as a caller that simulates many plans keeps one: the program
  // is generated again each time, into the same storage (BM_SimulateFresh: new buffers every time).
  ppb::Simulator simulator;
  for (auto _ : state) benchmark::DoNotOptimize(simulator.run(in).step_time_ms);
  state.SetItemsProcessed(state.iterations() * 2 * in.pp_degree * in.vpp_degree * in.micro_batch_num);
}
// Megatron-LM's interleaved order needs m to be a multiple of pp (pp 64, m 32, vpp 2 is not a plan).
void simulate_shapes(benchmark::internal::Benchmark* b) {
  for (int pp : {8, 16, 64})
    for (int m : {32, 256, 1024})
      for (int vpp : {1, 2})
        if (vpp == 1 || m % pp == 0) b->Args({pp, m, vpp});
}
BENCHMARK(BM_Simulate)->ArgNames({"pp", "m", "vpp"})->Apply(simulate_shapes)->Unit(benchmark::kMillisecond);

// The same at the largest shapes with new buffers for every run (ppb::simulate): what a single
// estimate meets, its buffers' pages touched for the first time.
void BM_SimulateFresh(benchmark::State& state) {
  ppb::SimulationInput in;
  in.pp_degree = static_cast<int>(state.range(0));
  in.vpp_degree = static_cast<int>(state.range(2));
  in.micro_batch_num = state.range(1);
  in.schedule = in.vpp_degree > 1 ? ppb::Schedule::interleaved_1f1b : ppb::Schedule::one_f_one_b;
  in.costs.assign(static_cast<std::size_t>(in.pp_degree * in.vpp_degree),
                  ppb::VirtualStageCost{1.0, 2.0, 1.0, 10.0, 0.01});
  for (auto _ : state) benchmark::DoNotOptimize(ppb::simulate(in).step_time_ms);
  state.SetItemsProcessed(state.iterations() * 2 * in.pp_degree * in.vpp_degree * in.micro_batch_num);
}
BENCHMARK(BM_SimulateFresh)
    ->ArgNames({"pp", "m", "vpp"})
    ->Args({64, 1024, 1})
    ->Args({64, 1024, 2})
    ->Unit(benchmark::kMillisecond);

// Every schedule program on uniform stages (pp 8 and 64, m 256 and 1024; the V-shape and interleaved
// schedules with two chunks per stage). The schedule is the index in ppb::all_schedules; zb_auto (7),
// whose program is searched for the costs, is timed in its own tests (docs/schedules.md). V-Half's
// and V-Min's orders are written once per shape and kept, so their rows time the simulation.
void BM_SimulateSchedule(benchmark::State& state) {
  ppb::SimulationInput in;
  static_cast<ppb::PipelineShape&>(in) = ppb::test::usual_shape(
      ppb::all_schedules[static_cast<std::size_t>(state.range(0))], static_cast<int>(state.range(1)), state.range(2));
  in.costs.assign(static_cast<std::size_t>(in.pp_degree * in.vpp_degree),
                  ppb::VirtualStageCost{1.0, 2.0, 1.0, 10.0, 0.01, 5.0, 0.25, 0.5});
  for (auto _ : state) benchmark::DoNotOptimize(ppb::simulate(in).step_time_ms);
  state.SetLabel(ppb::schedule_name(in.schedule));
}
BENCHMARK(BM_SimulateSchedule)
    ->ArgNames({"schedule", "pp", "m"})
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12}, {8, 64}, {256, 1024}})
    ->Unit(benchmark::kMillisecond);

// PPB_BENCH_PHASES=1 prints each balance's phases, timed on the thread's CPU clock (a busy machine
// does not skew them), with the work units each did: what the units are calibrated by
// (docs/benchmarks.md). PPB_BENCH_WORK=N sets the work budget.
void calibrating(ppb::BalanceOptions& options) {
  if (const char* work = std::getenv("PPB_BENCH_WORK")) options.work_budget = std::atoll(work);
  if (std::getenv("PPB_BENCH_PHASES"))
    options.clock_ms = [] {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
    };
}

void print_phases(const ppb::BalanceResult& result) {
  if (!std::getenv("PPB_BENCH_PHASES")) return;
  for (const auto& phase : result.phases)
    std::fprintf(stderr, "%s %.1f..%.1f ms, %lld units %s\n", phase.name.c_str(), phase.start_ms, phase.end_ms,
                 static_cast<long long>(phase.work), phase.complete ? "complete" : "cut");
}

void BM_Balance(benchmark::State& state) {
  const int body = static_cast<int>(state.range(0));
  const ppb::Model model = ppb::test::transformer_like(body);
  ppb::Plan shape;
  shape.pp_degree = static_cast<int>(state.range(1));
  shape.micro_batch_num = 4 * shape.pp_degree;
  shape.schedule = ppb::Schedule::one_f_one_b;
  ppb::Device device;
  device.p2p_bandwidth_gbs = 25;
  device.p2p_latency_ms = 0.02;
  // Enough for the even split's static memory plus a third of 1f1b's activations on stage 0.
  const double per_stage = body / static_cast<double>(shape.pp_degree);
  device.memory_limit_mib = 3000 + per_stage * 400 + shape.pp_degree * per_stage * 300 / 3;
  ppb::BalanceOptions options;
  options.recompute_options = {0, 1};
  options.time_budget_ms = 60000;  // as the balance command: a cap the work budget stays under
  calibrating(options);
  bool proven = false;
  double gap = -1;
  ppb::BalanceResult last;
  for (auto _ : state) {
    last = ppb::balance(model, device, shape, options);
    proven = last.proven_optimal;
    gap = last.within_tolerance ? 100 * *last.within_tolerance : -1;
    benchmark::DoNotOptimize(last.step_time_ms);
  }
  state.counters["nodes"] = static_cast<double>(last.nodes);
  state.counters["simulations"] = static_cast<double>(last.simulations);
  print_phases(last);
  state.counters["proven"] = proven ? 1 : 0;
  state.counters["gap_pct"] = gap;  // the proven distance to the optimum, -1 when none is stated
}
BENCHMARK(BM_Balance)->ArgNames({"layers", "pp"})->Args({96, 16})->Args({1000, 64})->Unit(benchmark::kMillisecond);

// Issue 18's targets, through the balance command (JSON included), on MindFormers-shaped models built
// from examples/sapp-llama-192l.json (a heavy pinned embedding and head; decoders of F 5.5, B 11 ms,
// 765 MiB static, 136 MiB activation, recompute kinds comm, selective, selective_comm, full):
//   0: 192 decoders, four kinds, pp 16, m 16, 20,000 MiB (target: proven in under 1 s);
//   1: 96 decoders, full only, pp 16, m 16, 20,000 MiB (target: proven in under 20 ms);
//   2: 80 decoders, selective and full, pp 32, m 256, 9,000 MiB (target: proven in under 0.5 s);
//   3: 96 decoders, full only, pp 8, vpp 2, interleaved_1f1b, m 16, 20,000 MiB (target: proven).
// Counters: step_ms (the plan's step time; on case 3 the optimum is 4,188 ms, proven offline in
// docs/ppb.md), proven (1 or 0), gap_pct (the stated distance to the optimum, -1 when none), nodes.
std::string issue18_request(int which) {
  std::ifstream in(std::string(PPB_SOURCE_DIR) + "/examples/sapp-llama-192l.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json model = nlohmann::json::parse(ppb::run_command("import", text).json)["result"]["model"];
  const int decoders[] = {192, 96, 80, 96};
  for (auto& layer : model["layers"])
    if (layer.contains("count")) layer["count"] = decoders[which];
  nlohmann::json options = {"comm", "selective", "selective_comm", "full"};
  if (which == 1 || which == 3) options = {"full"};
  if (which == 2) options = {"selective", "full"};
  nlohmann::json pipeline = {{"pp_degree", 16}, {"micro_batch_num", 16}};
  if (which == 2) pipeline = {{"pp_degree", 32}, {"micro_batch_num", 256}};
  if (which == 3)
    pipeline = {{"pp_degree", 8}, {"vpp_degree", 2}, {"micro_batch_num", 16}, {"schedule", "interleaved_1f1b"}};
  return nlohmann::json({{"model", model},
                         {"device", {{"memory_limit_mib", which == 2 ? 9000 : 20000}}},
                         {"pipeline", pipeline},
                         {"balance", {{"recompute_options", options}}}})
      .dump();
}

void BM_BalanceIssue18(benchmark::State& state) {
  const std::string request = issue18_request(static_cast<int>(state.range(0)));
  nlohmann::json method;
  double step_ms = 0;
  for (auto _ : state) {
    const auto out = ppb::run_command("balance", request);
    const nlohmann::json result = nlohmann::json::parse(out.json)["result"];
    method = result["method"];
    step_ms = result["step_time_ms"].get<double>();
  }
  state.counters["step_ms"] = step_ms;
  state.counters["proven"] = method["proven_optimal"].get<bool>() ? 1 : 0;
  state.counters["gap_pct"] =
      method["within_tolerance"].is_null() ? -1.0 : 100 * method["within_tolerance"].get<double>();
  state.counters["nodes"] = method["nodes"].get<double>();
}
BENCHMARK(BM_BalanceIssue18)->ArgNames({"case"})->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

// Balance at the layer cap: transformer_like with 100,000 layers in all, pp 8, m 32, the command's
// 2,000 ms budget; limit 1 is a 40,960 MiB limit that no plan meets (a stage holds 12,500 layers of
// 400 MiB static), limit 0 none.
void BM_BalanceAtScale(benchmark::State& state) {
  const ppb::Model model = ppb::test::transformer_like(100'000 - 2);
  ppb::Plan shape;
  shape.pp_degree = 8;
  shape.micro_batch_num = 32;
  ppb::Device device;
  device.p2p_bandwidth_gbs = 25;
  device.p2p_latency_ms = 0.02;
  if (state.range(0) == 1) device.memory_limit_mib = 40'960;
  ppb::BalanceOptions options;
  options.recompute_options = {0, 1};
  options.time_budget_ms = 60000;  // as the balance command
  calibrating(options);
  bool feasible = false;
  for (auto _ : state) {
    const auto result = ppb::balance(model, device, shape, options);
    feasible = result.feasible;
    benchmark::DoNotOptimize(result.step_time_ms);
    print_phases(result);
  }
  state.counters["feasible"] = feasible ? 1 : 0;
}
BENCHMARK(BM_BalanceAtScale)->ArgNames({"limit"})->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(3);

// The search issue's default space: a 96-layer model, pp in {1, 2, 4, 8, 16}, vpp in {1, 2, 4}, four
// schedules, micro batches coupled to a 128-device cluster with a global batch of 1024, full and
// selective recompute.
std::string search_request() {
  nlohmann::json layers = nlohmann::json::array();
  layers.push_back(
      {{"name", "embedding"}, {"pin", "first"}, {"forward_ms", 3}, {"static_mib", 2000}, {"send_mib", 32}});
  layers.push_back({{"name", "decoder"},
                    {"count", 96},
                    {"forward_ms", 1.1},
                    {"static_mib", 400},
                    {"activation_mib", 300},
                    {"send_mib", 32},
                    {"recompute",
                     {{"full", {{"activation_mib", 20}, {"extra_ms", 1.1}}},
                      {"selective", {{"activation_mib", 180}, {"extra_ms", 0.3}}}}}});
  layers.push_back({{"name", "head"}, {"pin", "last"}, {"forward_ms", 5}, {"static_mib", 3000}});
  return nlohmann::json({{"model", {{"layers", layers}}},
                         {"training", {{"global_batch_size", 1024}, {"micro_batch_size", 1}, {"world_size", 128}}},
                         {"device", {{"memory_limit_mib", 40000}, {"p2p_bandwidth_gbs", 25}, {"p2p_latency_ms", 0.02}}},
                         {"search",
                          {{"pp_degree", {1, 2, 4, 8, 16}},
                           {"vpp_degree", {1, 2, 4}},
                           {"schedule", {"gpipe", "1f1b", "interleaved_1f1b", "zb_h1"}}}}})
      .dump();
}

void BM_Search(benchmark::State& state) {
  const std::string request = search_request();
  std::int64_t evaluated = 0;
  for (auto _ : state) {
    ppb::SearchSession session(request);
    while (!session.step(1e9).finished) {
    }
    const auto r = nlohmann::json::parse(session.result(false).json);
    evaluated = r["result"]["counts"]["evaluated"];
  }
  state.counters["candidates"] = static_cast<double>(evaluated);
}
BENCHMARK(BM_Search)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
