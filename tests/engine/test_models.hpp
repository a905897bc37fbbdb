// The models and pipeline shapes that the engine tests and the benchmarks (bench/bench.cpp) build, in one place so
// that a test and a benchmark said to run "the same model" do. Plain values: no GoogleTest here.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include "ppb/model/model.hpp"
#include "ppb/model/schedule_names.hpp"
#include "ppb/plan/plan.hpp"

namespace ppb::test {

// ---- pipeline shapes ----------------------------------------------------------------------------------------------

// `schedule` on `pp` stages with `m` micro batches and `vpp` chunks a stage.
inline Plan shape_of(int pp, std::int64_t m, Schedule schedule, int vpp = 1) {
  Plan p;
  p.pp_degree = pp;
  p.vpp_degree = vpp;
  p.micro_batch_num = m;
  p.schedule = schedule;
  return p;
}

// `schedule` on `pp` stages with `m` micro batches and the schedule's usual chunk count: two for
// interleaved_1f1b and the V shapes, one otherwise.
inline PipelineShape usual_shape(Schedule schedule, int pp, std::int64_t m) {
  PipelineShape shape;
  shape.schedule = schedule;
  shape.pp_degree = pp;
  shape.vpp_degree = is_interleaved(schedule) || schedule == Schedule::interleaved_zero_bubble ||
                             schedule == Schedule::looped_bfs || is_v_shape(schedule)
                         ? 2
                         : 1;
  shape.micro_batch_num = m;
  return shape;
}

// ---- layers and models as values -----------------------------------------------------------------------------------

// A layer named `name` with these F, B and W times and nothing else set.
inline Layer timed_layer(std::string name, double forward_ms, double backward_ms, double weight_backward_ms) {
  Layer l;
  l.name = std::move(name);
  l.forward_ms = forward_ms;
  l.backward_ms = backward_ms;
  l.weight_backward_ms = weight_backward_ms;
  return l;
}

// `count` layers named layer0, layer1, ... with these F, B and W times and nothing else set: no memory, no
// recompute option, no transfer.
inline Model numbered_layers(int count, double forward_ms, double backward_ms = 0, double weight_backward_ms = 0) {
  Model model;
  for (int i = 0; i < count; ++i)
    model.layers.push_back(timed_layer("layer" + std::to_string(i), forward_ms, backward_ms, weight_backward_ms));
  return model;
}

// `count` identical layers with no recompute option: forward F, full backward B (its weight part
// B / 2, the contract's default), static and activation memory per layer.
inline Model equal_layers(int count, double forward_ms, double backward_ms, double static_mib, double activation_mib) {
  Model model;
  model.name = "equal";
  for (int i = 0; i < count; ++i) {
    Layer layer = timed_layer("layer", forward_ms, backward_ms, backward_ms / 2);
    layer.other_static_mib = static_mib;
    layer.activation_mib = activation_mib;
    model.layers.push_back(layer);
  }
  return model;
}

// A layer of forward F and backward 2F (its weight part F), with these memories and the output it sends, and two
// recompute slots ("full" and "selective", as the models below name them), both empty.
inline Layer two_option_layer(std::string name, double forward_ms, double static_mib, double activation_mib,
                              double send_mib = 0) {
  Layer l = timed_layer(std::move(name), forward_ms, 2 * forward_ms, forward_ms);
  l.other_static_mib = static_mib;
  l.activation_mib = activation_mib;
  l.send_mib = send_mib;
  l.recompute.assign(2, std::nullopt);
  return l;
}

// A transformer-like model: a heavy embedding (F 3 ms, 2,000 MiB static) and head (F 5 ms, 3,000 MiB) pinned
// around `body` decoders of F 1, 1.1 and 1.2 ms in turn, 400 MiB static and 300 MiB activation, with "full"
// recompute (20 MiB kept, the forward again) and "selective" (180 MiB kept, a quarter of the forward); every
// layer sends 32 MiB. The balance benchmarks' model, and the sliced balances' of balancer_slices_test.cpp.
inline Model transformer_like(int body) {
  Model model;
  model.recompute_options = {"full", "selective"};
  model.layers.push_back(two_option_layer("embedding", 3, 2000, 100, 32));
  model.layers.back().pin = Pin::first;
  for (int i = 0; i < body; ++i) {
    Layer l = two_option_layer("decoder", 1 + 0.1 * (i % 3), 400, 300, 32);
    l.recompute[0] = RecomputeCost{20, l.forward_ms};
    l.recompute[1] = RecomputeCost{180, 0.25 * l.forward_ms};
    model.layers.push_back(l);
  }
  model.layers.push_back(two_option_layer("head", 5, 3000, 200, 32));
  model.layers.back().pin = Pin::last;
  model.pinned_first = model.pinned_last = 1;
  return model;
}

// A seeded random model of `layers` layers for the property tests: times on a quarter-millisecond grid, a
// weight-gradient part of half the backward, "full" and "selective" recompute each offered on half of the
// layers, and a pinned first and last layer each on half of the models.
inline Model random_model(std::mt19937& rng, int layers) {
  std::uniform_real_distribution<double> time(0.5, 6.0), mem(50, 400), act(20, 300), send(0, 64);
  std::uniform_int_distribution<int> coin(0, 1);
  Model model;
  model.recompute_options = {"full", "selective"};
  for (int i = 0; i < layers; ++i) {
    Layer l;
    l.name = std::to_string(i);  // (g++ 12 warns falsely on "l" + to_string)
    l.forward_ms = std::round(time(rng) * 4) / 4;
    l.backward_ms = std::round(l.forward_ms * (1.5 + coin(rng)) * 4) / 4;
    l.weight_backward_ms = l.backward_ms / 2;
    l.other_static_mib = std::round(mem(rng));
    l.activation_mib = std::round(act(rng));
    l.send_mib = std::round(send(rng));
    l.recompute.assign(2, std::nullopt);
    if (coin(rng)) l.recompute[0] = RecomputeCost{std::round(l.activation_mib * 0.1), l.forward_ms};
    if (coin(rng))
      l.recompute[1] = RecomputeCost{std::round(l.activation_mib * 0.6), std::round(l.forward_ms * 0.3 * 4) / 4};
    model.layers.push_back(l);
  }
  if (coin(rng)) {
    model.layers.front().pin = Pin::first;
    model.pinned_first = 1;
  }
  if (coin(rng) && layers > 1) {
    model.layers.back().pin = Pin::last;
    model.pinned_last = 1;
  }
  return model;
}

// ---- model documents (ppb.model.v1 JSON) ---------------------------------------------------------------------------

// A model document of `body` identical decoder layers, optionally with a pinned embedding and head.
inline nlohmann::json uniform_model(int body, double forward_ms, double backward_ms, double static_mib,
                                    double activation_mib, bool pins = false) {
  nlohmann::json layers = nlohmann::json::array();
  if (pins)
    layers.push_back(
        {{"name", "embedding"}, {"pin", "first"}, {"forward_ms", 1}, {"backward_ms", 2}, {"static_mib", 500}});
  layers.push_back({{"name", "decoder"},
                    {"count", body},
                    {"forward_ms", forward_ms},
                    {"backward_ms", backward_ms},
                    {"static_mib", static_mib},
                    {"activation_mib", activation_mib},
                    {"recompute", {{"full", {{"activation_mib", 10}, {"extra_ms", forward_ms}}}}}});
  if (pins)
    layers.push_back(
        {{"name", "lm_head"}, {"pin", "last"}, {"forward_ms", 3}, {"backward_ms", 6}, {"static_mib", 700}});
  return {{"format", "ppb.model.v1"}, {"name", "uniform"}, {"layers", layers}};
}

// The entry of 8 decoders of F 2, B 4 ms, 100 MiB static and `activation_mib` of activation; with `recompute`,
// AP-PP-09's options: "full" keeps 10 MiB for 2 ms more backward, "selective" 60 MiB for 0.5 ms.
inline nlohmann::json eight_decoders(int activation_mib, bool recompute) {
  nlohmann::json decoders = {{"name", "decoder"}, {"count", 8},        {"forward_ms", 2},
                             {"backward_ms", 4},  {"static_mib", 100}, {"activation_mib", activation_mib}};
  if (recompute)
    decoders["recompute"] = {{"full", {{"activation_mib", 10}, {"extra_ms", 2}}},
                             {"selective", {{"activation_mib", 60}, {"extra_ms", 0.5}}}};
  return decoders;
}

// The layers of a model with heavy ends: a pinned embedding of F 6, B 12 ms, then `decoders` (an entry), then a
// pinned head of F 8, B 16 ms; the ends hold 100 MiB static each.
inline nlohmann::json heavy_ends_layers(const nlohmann::json& decoders) {
  nlohmann::json layers = nlohmann::json::array();
  layers.push_back(
      {{"name", "embedding"}, {"pin", "first"}, {"forward_ms", 6}, {"backward_ms", 12}, {"static_mib", 100}});
  layers.push_back(decoders);
  layers.push_back({{"name", "head"}, {"pin", "last"}, {"forward_ms", 8}, {"backward_ms", 16}, {"static_mib", 100}});
  return layers;
}

// ---- transformer descriptions -------------------------------------------------------------------------------------

// The tiny transformer the generator tests work out by hand: s 8, b 1, h 16, 4 heads (head width 4), RMSNorm, a
// plain MLP of 32, no dropout, vocabulary 128, two layers; `extra` adds or replaces fields.
inline nlohmann::json tiny_transformer(const nlohmann::json& extra = nullptr) {
  nlohmann::json t = {{"num_layers", 2},
                      {"hidden_size", 16},
                      {"num_attention_heads", 4},
                      {"ffn_hidden_size", 32},
                      {"normalization", "rmsnorm"},
                      {"dropout", false},
                      {"vocab_size", 128},
                      {"seq_length", 8}};
  if (extra.is_object()) t.update(extra);
  return t;
}

// DeepSeek-V3 as its config.json describes it (arXiv 2412.19437): MLA, 3 dense layers first, 256 routed experts
// of which 8 per token and one shared, one MTP module.
inline nlohmann::json deepseek_v3_transformer() {
  return {{"num_layers", 61},
          {"hidden_size", 7168},
          {"num_attention_heads", 128},
          {"ffn_hidden_size", 18432},
          {"gated_mlp", true},
          {"normalization", "rmsnorm"},
          {"dropout", false},
          {"vocab_size", 129280},
          {"seq_length", 4096},
          {"tied_embeddings", false},
          {"mla",
           {{"q_lora_rank", 1536},
            {"kv_lora_rank", 512},
            {"qk_rope_head_dim", 64},
            {"qk_nope_head_dim", 128},
            {"v_head_dim", 128}}},
          {"mtp_layers", 1},
          {"moe",
           {{"num_experts", 256},
            {"top_k", 8},
            {"expert_ffn_hidden_size", 2048},
            {"shared_experts", 1},
            {"first_dense_layers", 3}}}};
}

}  // namespace ppb::test
