// Explicit caps on what one request may ask for. Each is sized so that every real model and plan
// fits, while the worst case still finishes in seconds with bounded memory in a browser tab.
#pragma once

#include <cstdint>

namespace ppb::limits {

inline constexpr std::int64_t max_layers = 100'000;         // expanded layers in a model
inline constexpr std::int64_t max_pp_degree = 4'096;
inline constexpr std::int64_t max_vpp_degree = 64;
inline constexpr std::int64_t max_micro_batch_num = 65'536;
inline constexpr std::int64_t max_batch = 1'000'000'000;    // global/micro batch sizes, dp_degree
// Virtual stages x micro batches: the simulator keeps two times per pair (16 bytes).
inline constexpr std::int64_t max_simulated_pairs = 4'194'304;
inline constexpr double max_quantity = 1e12;                // any ms, MiB, GB/s or bytes figure
inline constexpr std::int64_t max_name_length = 1'000;

}  // namespace ppb::limits
