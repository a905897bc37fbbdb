// Native benchmarks of the engine's hot paths. `./dev.sh bench` runs them; figures are medians.
#include <benchmark/benchmark.h>

#include "ppb/simulate.hpp"

namespace {

// Simulation of uniform stages: pp x vpp x m operations (x2, or x3 with W).
void BM_Simulate(benchmark::State& state) {
  ppb::SimulationInput in;
  in.pp_degree = static_cast<int>(state.range(0));
  in.vpp_degree = static_cast<int>(state.range(2));
  in.micro_batch_num = state.range(1);
  in.schedule = in.vpp_degree > 1 ? ppb::Schedule::interleaved_1f1b : ppb::Schedule::one_f_one_b;
  in.costs.assign(static_cast<std::size_t>(in.pp_degree * in.vpp_degree), ppb::VirtualStageCost{1.0, 2.0, 1.0, 10.0, 0.01});
  for (auto _ : state) benchmark::DoNotOptimize(ppb::simulate(in).step_time_ms);
  state.SetItemsProcessed(state.iterations() * 2 * in.pp_degree * in.vpp_degree * in.micro_batch_num);
}
BENCHMARK(BM_Simulate)
    ->ArgNames({"pp", "m", "vpp"})
    ->ArgsProduct({{8, 16, 64}, {32, 256, 1024}, {1, 2}})
    ->Unit(benchmark::kMillisecond);

void BM_SimulateZeroBubble(benchmark::State& state) {
  ppb::SimulationInput in;
  in.pp_degree = static_cast<int>(state.range(0));
  in.micro_batch_num = state.range(1);
  in.schedule = ppb::Schedule::zb_h1;
  in.costs.assign(static_cast<std::size_t>(in.pp_degree), ppb::VirtualStageCost{1.0, 2.0, 1.0, 10.0, 0.01});
  for (auto _ : state) benchmark::DoNotOptimize(ppb::simulate(in).step_time_ms);
}
BENCHMARK(BM_SimulateZeroBubble)->ArgNames({"pp", "m"})->ArgsProduct({{8, 64}, {256, 1024}})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
