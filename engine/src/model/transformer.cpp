// The symbolic transformer model: the description (transformer_description.cpp) through the
// formulas (transformer_formulas.cpp) into a ppb.model.v1 document, one layer entry per kind of layer.
#include "ppb/model/transformer.hpp"

#include <algorithm>
#include <cmath>

#include "core/message_text.hpp"
#include "ppb/core/limits.hpp"
#include "transformer_comm.hpp"
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
  double fp8_flops_per_ms;
  bool too_large = false;

  double ms(double flops) const { return flops / flops_per_ms; }
  // The matrix multiplications' forward: 2 FLOPs per weight and token, the FP8 ones at the FP8 peak.
  double matmul_ms(const LayerFigures& l) const {
    return ms(2 * (l.active_params - l.fp8_active_params) * x.tokens) +
           2 * l.fp8_active_params * x.tokens / fp8_flops_per_ms;
  }

  double checked(double value) {
    if (!(value <= limits::max_quantity)) too_large = true;
    return value;
  }

  // A decoder layer's communication: tensor and context parallel, and the all-to-all with experts.
  LayerComm comm(const LayerFigures& l, bool experts) const {
    LayerComm c = tensor_parallel_comm(m, x);
    const LayerComm cp = context_parallel_comm(m, x, ms(l.core_flops));
    c.forward_ms += cp.forward_ms;
    c.backward_ms += cp.backward_ms;
    if (experts) {
      const LayerComm ep = expert_parallel_comm(m, x);
      c.forward_ms += ep.forward_ms;
      c.backward_ms += ep.backward_ms;
    }
    return c;
  }

  json layer(const std::string& name, const std::string& kind, std::int64_t count, const char* pin,
             const LayerFigures& l, bool offers_recompute, const LayerComm& c = {}) {
    const double compute_ms = matmul_ms(l) + ms(l.core_flops);
    const double forward_ms = compute_ms + c.forward_ms;
    // Backward: input gradients (matmuls and the attention core again, twice: scores and values) and
    // weight gradients (matmuls only), twice the forward in all.
    const double backward_ms = 2 * compute_ms + c.backward_ms;
    const double weight_backward_ms = matmul_ms(l);
    json out = {{"name", name}, {"kind", kind}};
    if (count != 1) out["count"] = count;
    if (pin) out["pin"] = pin;
    out["forward_ms"] = checked(forward_ms);
    out["backward_ms"] = checked(backward_ms);
    out["weight_backward_ms"] = checked(weight_backward_ms);
    if (c.forward_ms > 0) out["forward_comm_ms"] = checked(c.forward_ms);
    if (c.backward_ms > 0) out["backward_comm_ms"] = checked(c.backward_ms);
    out["params"] = static_cast<std::int64_t>(std::llround(checked(l.params)));
    if (l.expert_params > 0) out["expert_params"] = static_cast<std::int64_t>(std::llround(l.expert_params));
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

  const double per_ms = m.compute_efficiency * 1e12 / 1e3;
  Emitter emit{m, x, m.peak_tflops * per_ms, m.peak_tflops_fp8.value_or(m.peak_tflops) * per_ms};
  // Megatron-LM: tied embeddings share one matrix when embedding and head sit on one stage; with
  // pp > 1 the last stage holds its own copy (its gradient all-reduced with the first stage's).
  const bool head_holds_weights = !m.tied_embeddings || !m.pp_degree || *m.pp_degree != 1;

  json layers = json::array();
  layers.push_back(emit.layer("embedding", "embedding", 1, "first", embedding(x), false));
  // The decoder layers as runs of one kind, in order (dense first layers, an interleaving pattern).
  const LayerFigures dense = dense_decoder(x), moe = moe_decoder(x);
  for (std::int64_t i = 0; i < m.num_layers;) {
    const bool is_moe = is_moe_layer(m, i);
    std::int64_t run = 1;
    while (i + run < m.num_layers && is_moe_layer(m, i + run) == is_moe) ++run;
    const char* name = is_moe ? "moe_decoder" : "decoder";
    layers.push_back(
        emit.layer(name, name, run, nullptr, is_moe ? moe : dense, true, emit.comm(is_moe ? moe : dense, is_moe)));
    i += run;
  }
  layers.push_back(
      emit.layer("final_norm_lm_head", "head", 1, "last", final_norm_lm_head(x, head_holds_weights), false));
  // MTP modules after the head, on the last stage, the block of the last decoder layer's kind; the
  // first holds the embedding's copy unless one stage holds the whole model (Megatron-LM builds the
  // embedding on the last stage for MTP).
  if (m.mtp_layers > 0) {
    const bool block_moe = is_moe_layer(m, m.num_layers - 1);
    const LayerFigures& block = block_moe ? moe : dense;
    const bool own_embedding = !m.pp_degree || *m.pp_degree != 1;
    const LayerComm c = emit.comm(block, block_moe);
    layers.push_back(emit.layer("mtp", "mtp", 1, "last", mtp_module(x, block, own_embedding), false, c));
    if (m.mtp_layers > 1)
      layers.push_back(emit.layer("mtp", "mtp", m.mtp_layers - 1, "last", mtp_module(x, block, false), false, c));
  }

  // The model's total may exceed the per-device cap (a trillion-parameter MoE), not an integer's range.
  const double total = total_params(m, x);
  if (!(total <= 1e15)) emit.too_large = true;
  if (emit.too_large) {
    d.error("MODEL_TOO_LARGE", "/transformer",
            "the description gives a layer cost above " + number_text(limits::max_quantity) +
                " (ms, MiB or parameters per device); check the sizes and parallel degrees.");
    return std::nullopt;
  }
  json document{{"format", "ppb.model.v1"},
                {"name", m.name},
                {"bytes_per_param",
                 {{"weights", m.bytes_per_param.weights},
                  {"grads", m.bytes_per_param.grads},
                  {"optimizer", m.bytes_per_param.optimizer}}},
                {"total_params", static_cast<std::int64_t>(std::llround(total))},
                {"layers", layers}};
  if (m.num_experts > 0)
    document["expert_bytes_per_param"] = {{"weights", m.expert_bytes_per_param.weights},
                                          {"grads", m.expert_bytes_per_param.grads},
                                          {"optimizer", m.expert_bytes_per_param.optimizer}};
  if (m.mtp_layers > 0) document["mtp_params"] = static_cast<std::int64_t>(std::llround(mtp_params(m, x)));
  return document;
}

}  // namespace ppb
