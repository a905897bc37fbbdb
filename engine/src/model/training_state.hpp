// The training-state fields of a request's `training` section, read the same way for a profiled
// model (the request reader) and a transformer description (the generator): precision, sharding and
// its older synonym distributed_optimizer, and bytes_per_param (internal to the engine).
#pragma once

#include <optional>

#include "core/field_reader.hpp"
#include "ppb/model/training.hpp"

namespace ppb {

struct StatedTrainingState {
  std::optional<Precision> precision;
  std::optional<Sharding> sharding;              // distributed_optimizer: true reads as "optimizer"
  std::optional<BytesPerParam> bytes_per_param;  // the unsharded figures, overriding the precision's
  [[nodiscard]] bool any() const { return precision || sharding || bytes_per_param; }
  // The rule these fields give, defaults filled in.
  [[nodiscard]] StateRule rule(std::int64_t cp_degree, std::int64_t tp_degree = 1, std::int64_t expert_ranks = 1) const {
    return {bytes_per_param.value_or(bytes_for_precision(precision.value_or(Precision::bf16))),
            sharding.value_or(Sharding::none), cp_degree, tp_degree, expert_ranks};
  }
};

// Reads the fields from `training` (a FieldReader over the section), every problem to its diagnostics.
StatedTrainingState read_training_state(FieldReader& training);

}  // namespace ppb
