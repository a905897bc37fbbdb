// Training settings the pipeline needs: batch sizes (which fix the micro batch count), and the bytes
// each parameter costs a device in weights, gradients and optimizer state, from the precision and
// how the data-parallel ranks shard that state.
//   held_bytes_per_param(bytes_for_precision(Precision::bf16), Sharding::optimizer, 8)  // {2, 4, 1.5}
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ppb {

struct BytesPerParam {
  // Megatron-LM's mixed-precision accounting: bf16 weights (2), fp32 gradients (4),
  // fp32 master weights and two Adam moments (12); 18 bytes per parameter in all.
  double weights = 2;
  double grads = 4;
  double optimizer = 12;
};

// The number format of the weights and GEMMs: "bf16" (default), "fp16", "fp8" (FP8 GEMMs over bf16
// weights, as Transformer Engine trains), "fp32".
enum class Precision { bf16, fp16, fp8, fp32 };
std::optional<Precision> precision_from_name(const std::string& name);
const char* precision_name(Precision precision);

// Bytes per parameter unsharded, as Megatron-LM's distributed-optimizer guide gives them (its table
// of bytes per parameter), split so that weights + grads + optimizer is the published total:
//   bf16 params, fp32 grads: 2 + 4 + 12 (fp32 master copy, Adam m and v) = 18
//   fp16 params, fp16 grads: 2 + 2 + 16 (fp32 master copy and main grads, Adam m and v) = 20
//   fp32 params, fp32 grads: 4 + 4 + 8 (Adam m and v) = 16
//   fp8: as bf16 (the weights, gradients and optimizer stay bf16 / fp32; FP8 copies are transient)
BytesPerParam bytes_for_precision(Precision precision);

// How the data-parallel ranks shard the training state (docs/contract.md, training.sharding):
// none; the optimizer state (Megatron-LM's distributed optimizer, ZeRO-1); also the gradients
// (ZeRO-2); also the weights (ZeRO-3, PyTorch FSDP's full sharding).
enum class Sharding { none, optimizer, optimizer_and_grads, full };
std::optional<Sharding> sharding_from_name(const std::string& name);
const char* sharding_name(Sharding sharding);

// What a device holds per parameter when `sharding` splits `unsharded` over `shard_group` ranks
// (the data-parallel ranks, context-parallel ones included: Megatron-LM's distributed optimizer
// shards over the data-parallel group with context parallelism). A group below 1 counts as 1.
//   held_bytes_per_param({2, 4, 12}, Sharding::optimizer, 8)  // {2, 4, 1.5}: Megatron's 6 + 12/d
BytesPerParam held_bytes_per_param(const BytesPerParam& unsharded, Sharding sharding, std::int64_t shard_group);

// The training state's rule as a request states it, kept so that a search can hold it for each
// candidate's own data-parallel size.
struct StateRule {
  BytesPerParam unsharded;  // from precision, or training.bytes_per_param
  Sharding sharding = Sharding::none;
  std::int64_t cp_degree = 1;  // context-parallel ranks join the shard group
  // Experts are sharded over their own, smaller data-parallel group (Megatron-LM's expert data
  // parallel: dp x cp x tp / (ep x expert tp) ranks hold the same experts).
  std::int64_t tp_degree = 1;
  std::int64_t expert_ranks = 1;  // ep x expert tp: the ranks one copy of a layer's experts spans
};

// The ranks that shard one expert's state when `dense_group` (dp x cp) shard the rest: at least 1.
//   expert_shard_group({.cp_degree = 1, .tp_degree = 1, .expert_ranks = 64}, 128)  // 2 (DeepSeek-V3)
std::int64_t expert_shard_group(const StateRule& rule, std::int64_t dense_group);

struct Training {
  std::optional<std::int64_t> global_batch_size;
  std::optional<std::int64_t> micro_batch_size;
  std::optional<std::int64_t> dp_degree;
  // What a device holds per parameter: the bytes `params` become in every layer, and those of the
  // layers' `expert_params` (sharded over the smaller expert data-parallel group).
  BytesPerParam bytes_per_param;
  BytesPerParam expert_bytes_per_param;
  // The rule bytes_per_param follows, when the request states one (precision, sharding,
  // distributed_optimizer or bytes_per_param); none: the model document's or the default figures.
  std::optional<StateRule> state_rule;
};

}  // namespace ppb
