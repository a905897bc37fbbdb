// ppb_bench_driver: times contract requests through ppb::run_command, the entry point the CLI and the
// WASM module share, so that bench/wasm-bench.mjs compares native and WASM on identical work.
//
//   ppb_bench_driver WORKLOADS.json [--repeat N] [--min-sample-ms X] [--name NAME] [--first]
//
// WORKLOADS.json is a list of {"name", "command", "request"} (bench/workloads.mjs writes it); --name
// runs only the workload of that name. --first makes only the first call and reports its time, "first_ms" (run in a
// process of its own: a native first call, as bench/first-call.mjs makes one in WASM). Per
// workload: one warm-up call (when shorter than X ms, calls for X / 5 ms to learn the time per call),
// then N samples (default 5), each of as many back-to-back calls as fill X ms (default 50); a
// sample's figure is its time per call. Output on
// stdout: a list of {"name", "median_ms", "samples_ms", "calls_per_sample", "response"}, response
// being the warm-up call's answer. bench/timing.mjs does the same steps in JS.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppb/commands/commands.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

constexpr const char* kUsage =
    "usage: ppb_bench_driver WORKLOADS.json [--repeat N] [--min-sample-ms X] [--name NAME] [--first]\n";

}  // namespace

int main(int argc, char** argv) {
  std::string path, only;
  bool first_only = false;
  int repeat = 5;
  double min_sample_ms = 50;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--min-sample-ms" && i + 1 < argc)
      min_sample_ms = std::max(0.0, std::atof(argv[++i]));
    else if (arg == "--name" && i + 1 < argc)
      only = argv[++i];
    else if (arg == "--first")
      first_only = true;
    else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (path.empty() && arg.rfind("--", 0) != 0)
      path = arg;
    else {
      std::cerr << kUsage;
      return 2;
    }
  }
  if (path.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::cerr << "ppb_bench_driver: cannot read " << path << "\n";
    return 2;
  }
  const auto workloads = nlohmann::json::parse(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : workloads) {
    const std::string name = w.at("name").get<std::string>();
    if (!only.empty() && name != only) continue;
    const std::string command = w.at("command").get<std::string>();
    const std::string request = w.at("request").dump();
    auto t0 = Clock::now();
    const std::string response = ppb::run_command(command, request).json;
    const double first_ms = ms_between(t0, Clock::now());
    if (first_only) {
      out.push_back({{"name", name}, {"first_ms", first_ms}, {"response", nlohmann::json::parse(response)}});
      continue;
    }
    int calls = 1;
    if (first_ms < min_sample_ms) {  // calibrate on a fifth of a sample, as bench/timing.mjs does
      int n = 0;
      t0 = Clock::now();
      while (ms_between(t0, Clock::now()) < min_sample_ms / 5) {
        ppb::run_command(command, request);
        ++n;
      }
      calls = static_cast<int>(std::ceil(min_sample_ms / (ms_between(t0, Clock::now()) / n)));
    }
    std::vector<double> samples;
    for (int s = 0; s < repeat; ++s) {
      t0 = Clock::now();
      for (int c = 0; c < calls; ++c) ppb::run_command(command, request);
      samples.push_back(ms_between(t0, Clock::now()) / calls);
    }
    out.push_back({{"name", name},
                   {"median_ms", median(samples)},
                   {"samples_ms", samples},
                   {"calls_per_sample", calls},
                   {"response", nlohmann::json::parse(response)}});
  }
  std::cout << out.dump() << "\n";
  return 0;
}
