// The device a stage runs on, as far as the pipeline sees it: its memory limit and what is kept
// back from it, and the point-to-point link to the next stage.
#pragma once

#include <optional>

namespace ppb {

struct Device {
  std::optional<double> memory_limit_mib;   // none: every plan fits
  double reserved_mib = 0;                  // framework, workspace, fragmentation
  std::optional<double> p2p_bandwidth_gbs;  // none: transfers cost only their latency
  double p2p_latency_ms = 0;
  std::optional<double> peak_tflops;  // dense bf16 peak: with the layers' flops, the plan's MFU
  // The fraction of the memory limit a plan should leave free for what the estimate cannot see (the
  // allocator's fragmentation, the estimate's own error): a plan closer to the limit is "tight".
  double memory_margin = kDefaultMemoryMargin;
  static constexpr double kDefaultMemoryMargin = 0.05;
};

// True when a plan whose largest stage peaks at `peak_mib` fits the device's limit but leaves less
// than its memory_margin of the limit free (never without a limit).
//   tight(device, 960)  // with a 1000 MiB limit and the default 5% margin: true, 40 MiB free is under 50
bool tight(const Device& device, double peak_mib);

// Time to send `send_mib` over the device's point-to-point link: the latency plus the size over
// the bandwidth (MiB are 2^20 bytes, GB/s 10^9 bytes per second).
//   Device d{.p2p_bandwidth_gbs = 25, .p2p_latency_ms = 0.02};
//   transfer_ms(d, 32);  // 0.02 + 32 x 2^20 / 25e9 x 1000 = 1.362 ms
double transfer_ms(const Device& device, double send_mib);

}  // namespace ppb
