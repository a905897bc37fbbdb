// Reading precision, sharding and bytes_per_param. See training_state.hpp.
#include "training_state.hpp"

#include <string>

#include "core/message_text.hpp"

namespace ppb {

StatedTrainingState read_training_state(FieldReader& f) {
  StatedTrainingState out;
  if (auto name = f.string("precision")) {
    out.precision = precision_from_name(*name);
    if (!out.precision)
      f.diagnostics().error(
          "PRECISION_UNKNOWN", f.at("precision"),
          "precision " + quoted_input(*name) +
              " is not known; use \"bf16\", \"fp16\", \"fp8\" (FP8 GEMMs, bf16 weights) or \"fp32\".");
  }
  if (auto name = f.string("sharding")) {
    out.sharding = sharding_from_name(*name);
    if (!out.sharding)
      f.diagnostics().error("SHARDING_UNKNOWN", f.at("sharding"),
                            "sharding " + quoted_input(*name) +
                                " is not known; use \"none\", \"optimizer\" (ZeRO-1, Megatron-LM's distributed "
                                "optimizer), \"optimizer_and_grads\" (ZeRO-2) or \"full\" (ZeRO-3, FSDP).");
  }
  if (auto distributed = f.boolean("distributed_optimizer")) {
    const Sharding meant = *distributed ? Sharding::optimizer : Sharding::none;
    if (!f.has("sharding"))
      out.sharding = meant;
    else if (out.sharding && *out.sharding != meant)
      f.diagnostics().error("SHARDING_CONFLICT", f.at("distributed_optimizer"),
                            std::string("distributed_optimizer: ") + (*distributed ? "true" : "false") +
                                " means sharding \"" + sharding_name(meant) + "\" but sharding is \"" +
                                sharding_name(*out.sharding) + "\"; give one of them.");
  }
  if (const nlohmann::json* bytes = f.object("bytes_per_param")) {
    FieldReader b(*bytes, f.at("bytes_per_param"), f.diagnostics());
    BytesPerParam given = bytes_for_precision(out.precision.value_or(Precision::bf16));
    given.weights = b.number("weights").value_or(given.weights);
    given.grads = b.number("grads").value_or(given.grads);
    given.optimizer = b.number("optimizer").value_or(given.optimizer);
    out.bytes_per_param = given;
  }
  return out;
}

}  // namespace ppb
