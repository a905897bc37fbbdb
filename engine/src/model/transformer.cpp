// The symbolic transformer model: the description (transformer_description.cpp) through the
// formulas (transformer_formulas.cpp) into a ppb.model.v1 document, one layer entry per kind of layer.
#include "ppb/model/transformer.hpp"

#include <algorithm>
#include <cmath>

#include "core/message_text.hpp"
#include "ppb/core/limits.hpp"
#include "transformer_description.hpp"
#include "transformer_formulas.hpp"

namespace ppb {

using nlohmann::json;

namespace {

constexpr double kMiB = 1048576.0;

struct Emitter {
  const Description& m;
  const Shape& x;
  double flops_per_ms;
  bool too_large = false;

  double ms(double flops) const { return flops / flops_per_ms; }

  double checked(double value) {
    if (!(value <= limits::max_quantity)) too_large = true;
    return value;
  }

  json layer(const std::string& name, const std::string& kind, std::int64_t count, const char* pin,
             const LayerFigures& l, bool offers_recompute) {
    const double matmul_flops = 2 * l.active_params * x.tokens;
    const double forward_ms = ms(matmul_flops + l.core_flops);
    // Backward: input gradients (matmuls and the attention core again, twice: scores and values) and
    // weight gradients (matmuls only), twice the forward in all.
    const double backward_ms = 2 * forward_ms;
    const double weight_backward_ms = ms(matmul_flops);
    json out = {{"name", name}, {"kind", kind}};
    if (count != 1) out["count"] = count;
    if (pin) out["pin"] = pin;
    out["forward_ms"] = checked(forward_ms);
    out["backward_ms"] = checked(backward_ms);
    out["weight_backward_ms"] = checked(weight_backward_ms);
    out["params"] = static_cast<std::int64_t>(std::llround(checked(l.params)));
    out["activation_mib"] = checked((l.kept_bytes + l.score_bytes) / kMiB);
    // The zero-bubble paper's M_W (Qi et al. 2024, Table 1; its repository's mem_w = -32 h per token):
    // what W still needs after B is the inputs of the weight matmuls, every kept activation but the
    // attention scores and the dropout masks (32 sbh of Korthikanti's 34 sbh + 5 a s^2 b).
    out["weight_activation_mib"] = checked((l.kept_bytes - l.mask_bytes) / kMiB);
    out["send_mib"] = checked(l.send_bytes / kMiB);
    if (offers_recompute && !m.recompute_options.empty()) {
      json recompute = json::object();
      for (RecomputeOption option : m.recompute_options) {
        if (option == RecomputeOption::full)
          recompute["full"] = {{"activation_mib", l.full_recompute_bytes / kMiB}, {"extra_ms", forward_ms}};
        else
          recompute["selective"] = {{"activation_mib", l.kept_bytes / kMiB}, {"extra_ms", ms(l.core_flops)}};
      }
      out["recompute"] = recompute;
    }
    return out;
  }
};

}  // namespace

std::optional<json> transformer_model(const json& request, Diagnostics& d) {
  const auto description = read_description(request, d);
  if (!description) return std::nullopt;
  const Description& m = *description;
  const Shape x = shape_of(m);

  Emitter emit{m, x, m.peak_tflops * 1e12 * m.compute_efficiency / 1e3};
  // Megatron-LM: tied embeddings share one matrix when embedding and head sit on one stage; with
  // pp > 1 the last stage holds its own copy (its gradient all-reduced with the first stage's).
  const bool head_holds_weights = !m.tied_embeddings || !m.pp_degree || *m.pp_degree != 1;

  json layers = json::array();
  layers.push_back(emit.layer("embedding", "embedding", 1, "first", embedding(x), false));
  const std::int64_t moe_layers = m.num_experts > 0 ? m.num_layers - m.first_dense_layers : 0;
  const std::int64_t dense_layers = m.num_layers - moe_layers;
  if (dense_layers > 0)
    layers.push_back(emit.layer("decoder", "decoder", dense_layers, nullptr, dense_decoder(x), true));
  if (moe_layers > 0)
    layers.push_back(emit.layer("moe_decoder", "moe_decoder", moe_layers, nullptr, moe_decoder(x), true));
  layers.push_back(
      emit.layer("final_norm_lm_head", "head", 1, "last", final_norm_lm_head(x, head_holds_weights), false));

  // The model's total may exceed the per-device cap (a trillion-parameter MoE), not an integer's range.
  const double total = total_params(m, x);
  if (!(total <= 1e15)) emit.too_large = true;
  if (emit.too_large) {
    d.error("MODEL_TOO_LARGE", "/transformer",
            "the description gives a layer cost above " + number_text(limits::max_quantity) +
                " (ms, MiB or parameters per device); check the sizes and parallel degrees.");
    return std::nullopt;
  }
  return json{{"format", "ppb.model.v1"},
              {"name", m.name},
              {"bytes_per_param",
               {{"weights", m.bytes_per_param.weights},
                {"grads", m.bytes_per_param.grads},
                {"optimizer", m.bytes_per_param.optimizer}}},
              {"total_params", static_cast<std::int64_t>(std::llround(total))},
              {"layers", layers}};
}

}  // namespace ppb
