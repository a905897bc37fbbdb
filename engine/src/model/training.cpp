// Precision and sharding names, and the bytes per parameter they give. See training.hpp.
#include "ppb/model/training.hpp"

#include <algorithm>

namespace ppb {

std::optional<Precision> precision_from_name(const std::string& name) {
  for (const Precision p : {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp32})
    if (name == precision_name(p)) return p;
  return std::nullopt;
}

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
    case Precision::fp32: return "fp32";
  }
  return "bf16";
}

BytesPerParam bytes_for_precision(Precision precision) {
  switch (precision) {
    case Precision::bf16:
    case Precision::fp8: return {2, 4, 12};
    case Precision::fp16: return {2, 2, 16};
    case Precision::fp32: return {4, 4, 8};
  }
  return {};
}

std::optional<Sharding> sharding_from_name(const std::string& name) {
  for (const Sharding s : {Sharding::none, Sharding::optimizer, Sharding::optimizer_and_grads, Sharding::full})
    if (name == sharding_name(s)) return s;
  return std::nullopt;
}

const char* sharding_name(Sharding sharding) {
  switch (sharding) {
    case Sharding::none: return "none";
    case Sharding::optimizer: return "optimizer";
    case Sharding::optimizer_and_grads: return "optimizer_and_grads";
    case Sharding::full: return "full";
  }
  return "none";
}

std::int64_t expert_shard_group(const StateRule& rule, std::int64_t dense_group) {
  return std::max<std::int64_t>(1, dense_group * rule.tp_degree / std::max<std::int64_t>(1, rule.expert_ranks));
}

BytesPerParam held_bytes_per_param(const BytesPerParam& unsharded, Sharding sharding, std::int64_t shard_group) {
  const double d = static_cast<double>(std::max<std::int64_t>(shard_group, 1));
  BytesPerParam held = unsharded;
  if (sharding != Sharding::none) held.optimizer /= d;
  if (sharding == Sharding::optimizer_and_grads || sharding == Sharding::full) held.grads /= d;
  if (sharding == Sharding::full) held.weights /= d;
  return held;
}

}  // namespace ppb
