// The symbolic transformer model against published formulas and totals: Korthikanti et al. 2022
// Table 2 for activations, Megatron-LM's theoretical memory formula for weights and optimizer,
// published parameter counts, and the derivations of docs/transformer-model.md for what they extend.
#include "ppb/model/transformer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "helpers.hpp"

namespace ppb::test {
namespace {

constexpr double kMiB = 1048576.0;

// GPT-3 175B as in Korthikanti et al. (s 2048, h 12288, a 96, 96 layers, b 1), with LayerNorm,
// dropout, a plain 4h GeLU MLP, tied embeddings and eager attention (the paper's score matrix).
json gpt3(int tp, bool sp) {
  return {{"transformer",
           {{"name", "gpt3-175b"},
            {"num_layers", 96},
            {"hidden_size", 12288},
            {"num_attention_heads", 96},
            {"num_query_groups", 96},
            {"ffn_hidden_size", 49152},
            {"gated_mlp", false},
            {"normalization", "layernorm"},
            {"dropout", true},
            {"attention", "eager"},
            {"vocab_size", 51200},
            {"seq_length", 2048},
            {"tied_embeddings", true}}},
          {"parallel", {{"tp_degree", tp}, {"sequence_parallel", sp}, {"dp_degree", 8}}},
          {"training", {{"micro_batch_size", 1}, {"precision", "bf16"}}},
          {"device", {{"peak_tflops", 312}, {"compute_efficiency", 0.5}}}};
}

// LLaMA-2 (Touvron et al. 2023): RMSNorm, SwiGLU, no dropout, untied embeddings, vocabulary 32000.
json llama2_7b() {
  return {{"transformer",
           {{"name", "llama2-7b"},
            {"num_layers", 32},
            {"hidden_size", 4096},
            {"num_attention_heads", 32},
            {"num_query_groups", 32},
            {"ffn_hidden_size", 11008},
            {"gated_mlp", true},
            {"normalization", "rmsnorm"},
            {"dropout", false},
            {"vocab_size", 32000},
            {"seq_length", 4096},
            {"tied_embeddings", false}}},
          {"device", {{"peak_tflops", 989}}}};
}

json llama2_70b() {
  return {{"transformer",
           {{"name", "llama2-70b"},
            {"num_layers", 80},
            {"hidden_size", 8192},
            {"num_attention_heads", 64},
            {"num_query_groups", 8},
            {"ffn_hidden_size", 28672},
            {"gated_mlp", true},
            {"normalization", "rmsnorm"},
            {"dropout", false},
            {"vocab_size", 32000},
            {"seq_length", 4096},
            {"tied_embeddings", false}}},
          {"device", {{"peak_tflops", 989}}}};
}

void expect_close(double actual, double expected, double relative = 1e-12) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * relative) << "expected " << expected;
}

TEST(Transformer, BytesPerParamAreMegatronsFigures) {
  // Megatron-LM distributed optimizer guide: 6 + 12/d with bf16 over d = 4 ranks, only the optimizer
  // sharded (the table itself: training_state_test.cpp).
  const BytesPerParam b = held_bytes_per_param(bytes_for_precision(Precision::bf16), Sharding::optimizer, 4);
  EXPECT_DOUBLE_EQ(b.weights, 2);
  EXPECT_DOUBLE_EQ(b.grads, 4);
  EXPECT_DOUBLE_EQ(b.optimizer, 3);
}

TEST(Transformer, LayoutEmbeddingDecodersHead) {
  const json model = generate(gpt3(8, true));
  EXPECT_EQ(model["format"], "ppb.model.v1");
  ASSERT_EQ(model["layers"].size(), 3u);
  EXPECT_EQ(model["layers"][0]["name"], "embedding");
  EXPECT_EQ(model["layers"][0]["pin"], "first");
  EXPECT_EQ(model["layers"][1]["kind"], "decoder");
  EXPECT_EQ(model["layers"][1]["count"], 96);
  EXPECT_EQ(model["layers"][2]["name"], "final_norm_lm_head");
  EXPECT_EQ(model["layers"][2]["pin"], "last");
  EXPECT_EQ(model["bytes_per_param"], json({{"weights", 2}, {"grads", 4}, {"optimizer", 12}}));
}

// FlashAttention, the default, keeps no score matrix: only one fp32 log-sum-exp per query row and
// head, 4 a b s / t bytes = 4 x 64 x 1 x 4096 / 8 = 131,072 bytes (0.125 MiB) for Llama-2-70B at TP 8,
// which selective recompute (core attention recomputed) drops. So the default is within 2% of the
// selective figure, where eager attention's 5 a s^2 b / t would be several times the rest.
TEST(Transformer, FlashAttentionKeepsOnlyTheSoftmaxStatistics) {
  json request = llama2_70b();
  request["parallel"] = {{"tp_degree", 8}, {"sequence_parallel", true}};
  const json decoder = entry(generate(request), "decoder");
  const double flash = decoder["activation_mib"].get<double>();
  const double selective = decoder["recompute"]["selective"]["activation_mib"].get<double>();
  expect_close(flash - selective, 0.125, 1e-9);
  EXPECT_LT(flash, 1.02 * selective);
  request["transformer"]["attention"] = "eager";
  const json eager = entry(generate(request), "decoder");
  // No dropout: the softmax output alone, a s^2 b q / t = 64 x 4096^2 x 2 / 8 bytes = 256 MiB.
  expect_close(eager["activation_mib"].get<double>() - selective, 256, 1e-9);
}

// Korthikanti et al. 2022, Table 2, per layer, in bytes, with s 2048, b 1, h 12288, a 96, t 8.
TEST(Transformer, ActivationsMatchKorthikantiTable2) {
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
  const double sbh = s * b * h;
  const auto activation = [](const json& request) {
    return entry(generate(request), "decoder")["activation_mib"].get<double>() * kMiB;
  };
  const auto recompute = [](const json& request, const char* option) {
    return entry(generate(request), "decoder")["recompute"][option]["activation_mib"].get<double>() * kMiB;
  };
  // No parallelism: sbh(34 + 5as/h).
  expect_close(activation(gpt3(1, false)), sbh * (34 + 5 * a * s / h));
  // Tensor parallel: sbh(10 + 24/t + 5as/(ht)).
  expect_close(activation(gpt3(8, false)), sbh * (10 + 24 / t + 5 * a * s / (h * t)));
  // Tensor + sequence parallel: sbh(34/t + 5as/(ht)).
  expect_close(activation(gpt3(8, true)), sbh * (34 / t + 5 * a * s / (h * t)));
  // Tensor parallel + selective recompute: sbh(10 + 24/t).
  expect_close(recompute(gpt3(8, false), "selective"), sbh * (10 + 24 / t));
  // Tensor + sequence parallel + selective recompute: sbh(34/t).
  expect_close(recompute(gpt3(8, true), "selective"), sbh * (34 / t));
  // Full recompute: sbh(2), the layer input; split by t under sequence parallelism.
  expect_close(recompute(gpt3(8, false), "full"), sbh * 2);
  expect_close(recompute(gpt3(8, true), "full"), sbh * 2 / t);
}

// The zero-bubble paper's M_W (Qi et al. 2024, Table 1): W needs 32 sbh of the layer's 34 sbh + 5as^2b,
// everything but the two dropout masks and the attention scores; split by t under sequence parallelism.
TEST(Transformer, WeightActivationIsThePapersMW) {
  const double s = 2048, b = 1, h = 12288, t = 8;
  const double sbh = s * b * h;
  const auto weight_activation = [](const json& request) {
    return entry(generate(request), "decoder")["weight_activation_mib"].get<double>() * kMiB;
  };
  expect_close(weight_activation(gpt3(1, false)), sbh * 32);
  expect_close(weight_activation(gpt3(8, true)), sbh * 32 / t);
  // Tensor parallel without SP: the masks and norm inputs (10 sbh) stay whole, so W keeps 8 + 24/t.
  expect_close(weight_activation(gpt3(8, false)), sbh * (8 + 24 / t));
}

// docs/transformer-model.md's extension of Table 2 to GQA, SwiGLU and no dropout (LLaMA-2-70B,
// t 8 with SP): sbh[(8 + 4 + 4g/a)/t + 6f/(ht)] + 2as^2b/t.
TEST(Transformer, ActivationsExtendToGqaSwigluWithoutDropout) {
  json request = llama2_70b();
  request["parallel"] = {{"tp_degree", 8}, {"sequence_parallel", true}};
  const double s = 4096, b = 1, h = 8192, a = 64, g = 8, f = 28672, t = 8;
  const double kept = s * b * h * ((8 + 4 + 4 * g / a) / t + 6 * f / (h * t));
  // FlashAttention (the default): the fp32 log-sum-exp, 4 a s b / t; eager: the softmax output, q a s^2 b / t.
  expect_close(entry(generate(request), "decoder")["activation_mib"].get<double>() * kMiB, kept + 4 * a * s * b / t);
  request["transformer"]["attention"] = "eager";
  expect_close(entry(generate(request), "decoder")["activation_mib"].get<double>() * kMiB,
               kept + 2 * a * s * s * b / t);
}

// Context parallelism: every rank keeps its s/c tokens, and its (s/c) x s block of scores.
TEST(Transformer, ContextParallelDividesActivationsAndSend) {
  json request = gpt3(1, false);
  request["parallel"]["cp_degree"] = 2;
  const double s = 2048, b = 1, h = 12288, a = 96, c = 2;
  const json model = generate(request);
  const json& decoder = entry(model, "decoder");
  expect_close(decoder["activation_mib"].get<double>() * kMiB, (s * b * h * 34 + 5 * a * s * s * b) / c);
  expect_close(decoder["send_mib"].get<double>() * kMiB, 2 * s * b * h / c);
}

// The hidden state crossing a stage boundary: 2sbh bytes in bf16, divided by t with SP.
TEST(Transformer, SendIsTheHiddenState) {
  const double sbh = 2048.0 * 12288;
  expect_close(entry(generate(gpt3(8, false)), "decoder")["send_mib"].get<double>() * kMiB, 2 * sbh);
  expect_close(entry(generate(gpt3(8, true)), "decoder")["send_mib"].get<double>() * kMiB, 2 * sbh / 8);
  expect_close(entry(generate(gpt3(8, true)), "embedding")["send_mib"].get<double>() * kMiB, 2 * sbh / 8);
  EXPECT_EQ(entry(generate(gpt3(8, true)), "final_norm_lm_head")["send_mib"], 0);
}

// Forward FLOPs of a GPT-3 layer per device: 24bsh^2/t for the matmuls (12h^2 weights) plus the
// attention core 4bs^2h/t halved for causal masking. Backward twice that; the weight-gradient part
// is the matmuls' 24bsh^2/t. Device rate: 312 TFLOP/s x 0.5.
TEST(Transformer, TimesFromFlops) {
  const double s = 2048, b = 1, h = 12288, t = 8, rate_per_ms = 312e12 * 0.5 / 1e3;
  const double matmul = 24 * b * s * h * h / t, core = 4 * b * s * s * h / t / 2;
  const json model = generate(gpt3(8, true));
  const json& decoder = entry(model, "decoder");
  expect_close(decoder["forward_ms"], (matmul + core) / rate_per_ms);
  expect_close(decoder["backward_ms"], 2 * (matmul + core) / rate_per_ms);
  expect_close(decoder["weight_backward_ms"], matmul / rate_per_ms);
  expect_close(decoder["recompute"]["full"]["extra_ms"], (matmul + core) / rate_per_ms);
  expect_close(decoder["recompute"]["selective"]["extra_ms"], core / rate_per_ms);
  // LM head: 2 x (V h / t) x bs.
  const json& head = entry(model, "final_norm_lm_head");
  expect_close(head["forward_ms"], 2 * 51200 * h / t * b * s / rate_per_ms);
}

// LLaMA-2-7B: 6.74B published (Touvron et al. 2023, Table 1); by hand 32 x (4h^2 + 3hf + 2h) +
// 2Vh + h = 6,738,415,616. With tp 1 and untied embeddings the document's params add up to it.
TEST(Transformer, Llama2_7bParameterCount) {
  const json model = generate(llama2_7b());
  EXPECT_NEAR(model["total_params"].get<double>(), 6.74e9, 0.01 * 6.74e9);
  EXPECT_EQ(model["total_params"], 6738415616LL);
  double sum = 0;
  for (const json& layer : model["layers"]) sum += layer["params"].get<double>() * layer.value("count", 1);
  EXPECT_DOUBLE_EQ(sum, 6738415616.0);
}

// GPT-3: 175B published (Brown et al. 2020); by hand 96 x 12h^2 + Vh = 174.6B (tied embeddings,
// learned position embeddings not counted; see the doc).
TEST(Transformer, Gpt3ParameterCount) {
  const json model = generate(gpt3(1, false));
  EXPECT_NEAR(model["total_params"].get<double>(), 175e9, 0.01 * 175e9);
}

// LLaMA-2-70B: 68.98B in the released checkpoint; by hand 80 x (2h^2(1 + g/a) + 3hf + 2h) + 2Vh + h.
TEST(Transformer, Llama2_70bParameterCount) {
  const json model = generate(llama2_70b());
  EXPECT_NEAR(model["total_params"].get<double>(), 68.98e9, 0.01 * 68.98e9);
  const double h = 8192, f = 28672, V = 32000;
  EXPECT_DOUBLE_EQ(model["total_params"].get<double>(),
                   80 * (2 * h * h * (1 + 8.0 / 64) + 3 * h * f + 2 * h) + 2 * V * h + h);
}

// Megatron-LM's compute_weight_and_optimizer_memory (megatron/training/theoretical_memory_usage.py):
// the most loaded shard holds (transformer block / pp + embedding) / tp parameters, where a layer
// is 2h(f + norm_size) + 2h^2(1 + g/a) and the block adds the final norm; times 18 bytes, or
// 6 + 12/d with the distributed optimizer. Stage 0 of a GPT-3 plan with tp 8, pp 8 must hold that.
TEST(Transformer, FirstStageMatchesMegatronTheoreticalMemory) {
  const double h = 12288, f = 49152, V = 51200, L = 96, pp = 8, tp = 8, norm_size = 2;
  const double layer = 2 * h * (f + norm_size) + 2 * h * h * (1 + 96.0 / 96);
  const double block = L * layer + norm_size * h;
  const double most_loaded = (block / pp + h * V) / tp;
  for (bool distributed : {false, true}) {
    json request = gpt3(8, true);
    request["training"]["distributed_optimizer"] = distributed;
    const json model = generate(request);
    const double bytes = distributed ? 6 + 12.0 / 8 : 18;
    const json r = run("estimate", {{"model", model},
                                    {"training", {{"bytes_per_param", model["bytes_per_param"]}}},
                                    {"pipeline", {{"pp_degree", 8}, {"micro_batch_num", 16}}}});
    ASSERT_TRUE(r["ok"]) << r.dump();
    const json& memory = r["result"]["stages"][0]["memory"];
    const double ours =
        memory["weights_mib"].get<double>() + memory["grads_mib"].get<double>() + memory["optimizer_mib"].get<double>();
    const double megatron = most_loaded * bytes / kMiB;
    EXPECT_NEAR(ours, megatron, 1e-3 * megatron) << "distributed optimizer " << distributed;
    // The remaining difference is exactly the norms: Megatron divides them by tp and spreads the final
    // norm over the stages; here the 12 layers' two LayerNorms (2h each) stay whole on every rank.
    const double norms_difference = 12 * 2 * norm_size * h * (1 - 1 / tp) - norm_size * h / (pp * tp);
    expect_close(ours, megatron + norms_difference * bytes / kMiB, 1e-12);
  }
}

// MoE layers: expert parameters per device scale with num_experts / ep_degree; compute with top_k.
json moe_request(int ep, int top_k) {
  return {{"transformer",
           {{"num_layers", 6},
            {"hidden_size", 1024},
            {"num_attention_heads", 16},
            {"num_query_groups", 4},
            {"ffn_hidden_size", 4096},
            {"gated_mlp", true},
            {"normalization", "rmsnorm"},
            {"vocab_size", 32000},
            {"seq_length", 1024},
            {"tied_embeddings", false},
            {"moe",
             {{"num_experts", 16},
              {"top_k", top_k},
              {"expert_ffn_hidden_size", 512},
              {"first_dense_layers", 2},
              {"shared_experts", 1}}}}},
          {"parallel", {{"tp_degree", 2}, {"ep_degree", ep}, {"dp_degree", 8}}},
          {"training", {{"micro_batch_size", 2}}},
          {"device", {{"peak_tflops", 100}, {"compute_efficiency", 1}}}};
}

TEST(Transformer, MoeParamsScaleWithExpertsOverEp) {
  const double h = 1024, g = 4, a = 16, fe = 512, t = 2, E = 16, S = 1;
  const double attention = 2 * h * h * (1 + g / a) / t, norms = 2 * h, router = h * E, expert = 3 * h * fe / t;
  for (int ep : {1, 4, 16}) {
    const json model = generate(moe_request(ep, 2));
    ASSERT_EQ(model["layers"].size(), 4u);
    EXPECT_EQ(entry(model, "decoder")["count"], 2);
    EXPECT_EQ(entry(model, "moe_decoder")["count"], 4);
    EXPECT_EQ(entry(model, "moe_decoder")["kind"], "moe_decoder");
    EXPECT_DOUBLE_EQ(entry(model, "moe_decoder")["params"].get<double>(),
                     attention + norms + router + (E / ep + S) * expert)
        << "ep " << ep;
  }
}

// The contract's example states a dense model's MoE section with zeros: it is a dense model. And an
// expert width of 0 means ffn_hidden_size, as when it is left out.
TEST(Transformer, ZeroMoeFieldsAreTheDefaults) {
  json dense = gpt3(8, true);
  dense["transformer"]["moe"] = {{"num_experts", 0},
                                 {"top_k", 0},
                                 {"expert_ffn_hidden_size", 0},
                                 {"first_dense_layers", 0},
                                 {"shared_experts", 0}};
  EXPECT_EQ(generate(dense), generate(gpt3(8, true)));
  json zero = moe_request(4, 2), omitted = moe_request(4, 2), explicit_width = moe_request(4, 2);
  zero["transformer"]["moe"]["expert_ffn_hidden_size"] = 0;
  omitted["transformer"]["moe"].erase("expert_ffn_hidden_size");
  explicit_width["transformer"]["moe"]["expert_ffn_hidden_size"] = 4096;  // = ffn_hidden_size
  EXPECT_EQ(generate(zero), generate(omitted));
  EXPECT_EQ(generate(zero), generate(explicit_width));
}

TEST(Transformer, MoeComputeScalesWithTopK) {
  // Each extra expert per token adds 2 x (3 h fe / t) x b s FLOPs; 100 TFLOP/s at efficiency 1.
  const double h = 1024, fe = 512, t = 2, tokens = 2 * 1024, rate_per_ms = 100e12 / 1e3;
  const double per_expert_ms = 2 * (3 * h * fe / t) * tokens / rate_per_ms;
  const double k1 = entry(generate(moe_request(4, 1)), "moe_decoder")["forward_ms"];
  const double k2 = entry(generate(moe_request(4, 2)), "moe_decoder")["forward_ms"];
  const double k4 = entry(generate(moe_request(4, 4)), "moe_decoder")["forward_ms"];
  expect_close(k2 - k1, per_expert_ms, 1e-9);
  expect_close(k4 - k1, 3 * per_expert_ms, 1e-9);
  // Expert parallelism moves experts, not work: the same forward at ep 1 and ep 16.
  expect_close(entry(generate(moe_request(16, 2)), "moe_decoder")["forward_ms"], k2);
  // Dense layers are untouched by top_k.
  EXPECT_EQ(entry(generate(moe_request(4, 1)), "decoder"), entry(generate(moe_request(4, 4)), "decoder"));
}

TEST(Transformer, TiedEmbeddingsShareOnlyWithoutPipeline) {
  json request = gpt3(8, true);
  const double vh_per_rank = 51200.0 * 12288 / 8, final_norm = 2 * 12288;
  EXPECT_DOUBLE_EQ(entry(generate(request), "final_norm_lm_head")["params"].get<double>(), vh_per_rank + final_norm);
  request["pipeline"] = {{"pp_degree", 1}};
  EXPECT_DOUBLE_EQ(entry(generate(request), "final_norm_lm_head")["params"].get<double>(), final_norm);
}

TEST(Transformer, VocabularyPaddedLikeMegatron) {
  // 32000 padded to a multiple of 128 x tp = 1024: 32768 rows, 32768 / 8 per rank.
  json request = llama2_7b();
  request["parallel"] = {{"tp_degree", 8}};
  EXPECT_DOUBLE_EQ(entry(generate(request), "embedding")["params"].get<double>(), 32768.0 * 4096 / 8);
}

TEST(Transformer, RecomputeOptionsAsRequested) {
  json request = gpt3(8, true);
  request["training"]["recompute_options"] = {"full"};
  EXPECT_EQ(entry(generate(request), "decoder")["recompute"].size(), 1u);
  request["training"]["recompute_options"] = json::array();
  EXPECT_FALSE(entry(generate(request), "decoder").contains("recompute"));
}

TEST(Transformer, ValidationReportsEveryProblemWithItsPath) {
  json request = {{"transformer",
                   {{"num_layers", -2},
                    {"hidden_size", 1000},
                    {"num_attention_heads", 16},
                    {"num_query_groups", 5},
                    {"seq_length", 2.5},
                    {"normalization", "batchnorm"},
                    {"hiden", 4},
                    {"moe", {{"num_experts", 10}, {"top_k", 12}}}}},
                  {"parallel", {{"tp_degree", 3}, {"ep_degree", 4}}},
                  {"training", {{"precision", "int8"}, {"recompute_options", {"full", "all"}}}},
                  {"device", {{"compute_efficiency", 1.5}}}};
  Diagnostics d;
  EXPECT_FALSE(transformer_model(request, d).has_value());
  const json r = {{"errors", errors_json(d)}};
  EXPECT_TRUE(has_error(r, "NEGATIVE", "/transformer/num_layers")) << r.dump();
  EXPECT_TRUE(has_error(r, "NOT_INTEGER", "/transformer/seq_length"));
  EXPECT_TRUE(has_error(r, "REQUIRED", "/transformer/vocab_size"));
  EXPECT_TRUE(has_error(r, "HIDDEN_NOT_DIVISIBLE_BY_HEADS", "/transformer/hidden_size"));
  EXPECT_TRUE(has_error(r, "HEADS_NOT_DIVISIBLE_BY_GROUPS", "/transformer/num_query_groups"));
  EXPECT_TRUE(has_error(r, "NORMALIZATION_UNKNOWN", "/transformer/normalization"));
  EXPECT_TRUE(has_error(r, "TOP_K_INVALID", "/transformer/moe/top_k"));
  EXPECT_TRUE(has_error(r, "HEADS_NOT_DIVISIBLE_BY_TP", "/parallel/tp_degree"));
  EXPECT_TRUE(has_error(r, "EXPERTS_NOT_DIVISIBLE_BY_EP", "/parallel/ep_degree"));
  EXPECT_TRUE(has_error(r, "PRECISION_UNKNOWN", "/training/precision"));
  EXPECT_TRUE(has_error(r, "RECOMPUTE_OPTION_UNKNOWN", "/training/recompute_options/1"));
  EXPECT_TRUE(has_error(r, "REQUIRED", "/device/peak_tflops"));
  EXPECT_TRUE(has_error(r, "OUT_OF_RANGE", "/device/compute_efficiency"));
  ASSERT_EQ(d.warnings().size(), 1u);
  EXPECT_EQ(d.warnings()[0].code, "UNKNOWN_FIELD");
  EXPECT_EQ(d.warnings()[0].path, "/transformer/hiden");
  for (const auto& e : d.errors()) EXPECT_FALSE(e.message.empty()) << e.code;
}

// The search's coupling fields in training belong to the request, not the generator: no warning.
TEST(Transformer, SearchFieldsInTrainingAreNotUnknown) {
  json request = llama2_7b();
  request["training"] = {
      {"global_batch_size", 64}, {"world_size", 16}, {"tp_degree", 2}, {"cp_degree", 1}, {"ep_degree", 1}};
  Diagnostics d;
  ASSERT_TRUE(transformer_model(request, d).has_value()) << errors_json(d).dump();
  EXPECT_TRUE(d.warnings().empty()) << errors_json(d).dump();
}

TEST(Transformer, MoreValidationRules) {
  json request = gpt3(8, true);
  request["transformer"]["num_query_groups"] = 4;  // divides 96 heads, not tp 8
  request["transformer"]["seq_length"] = 2044;     // not divisible by tp 8 under SP
  request["parallel"]["dp_degree"] = 8;
  request["training"]["dp_degree"] = 4;
  Diagnostics d;
  EXPECT_FALSE(transformer_model(request, d).has_value());
  const json r = {{"errors", errors_json(d)}};
  EXPECT_TRUE(has_error(r, "GROUPS_NOT_DIVISIBLE_BY_TP", "/parallel/tp_degree")) << r.dump();
  EXPECT_TRUE(has_error(r, "SEQ_NOT_DIVISIBLE_BY_TP", "/parallel/sequence_parallel"));
  EXPECT_TRUE(has_error(r, "DP_DEGREE_CONFLICT", "/parallel/dp_degree"));

  Diagnostics missing;
  EXPECT_FALSE(transformer_model(json{{"model", json::object()}}, missing).has_value());
  EXPECT_EQ(missing.errors().at(0).code, "TRANSFORMER_MISSING");
  EXPECT_EQ(missing.errors().at(0).path, "/transformer");
}

// The generated document is a model the estimator takes as it is.
// Both FFN widths are checked against tp_degree at one path; the error names each that fails (two
// errors with one code and path would be de-duplicated to the first, hiding the second).
TEST(Transformer, BothFfnWidthsNotDivisibleByTpAreOneErrorNamingBoth) {
  json request = {{"transformer",
                   {{"num_layers", 4},
                    {"hidden_size", 96},
                    {"num_attention_heads", 6},
                    {"ffn_hidden_size", 100},
                    {"vocab_size", 1000},
                    {"seq_length", 128},
                    {"moe", {{"num_experts", 4}, {"top_k", 2}, {"expert_ffn_hidden_size", 50}}}}},
                  {"parallel", {{"tp_degree", 3}}},  // divides 96 and 6 heads; not 100, not 50
                  {"device", {{"peak_tflops", 100}}}};
  Diagnostics d;
  EXPECT_FALSE(transformer_model(request, d).has_value());
  ASSERT_EQ(d.errors().size(), 1u);
  EXPECT_EQ(d.errors()[0].code, "FFN_NOT_DIVISIBLE_BY_TP");
  EXPECT_EQ(d.errors()[0].path, "/parallel/tp_degree");
  EXPECT_NE(d.errors()[0].message.find("ffn_hidden_size 100"), std::string::npos) << d.errors()[0].message;
  EXPECT_NE(d.errors()[0].message.find("expert_ffn_hidden_size 50"), std::string::npos) << d.errors()[0].message;

  request["transformer"]["ffn_hidden_size"] = 99;  // only the expert width fails
  Diagnostics expert;
  EXPECT_FALSE(transformer_model(request, expert).has_value());
  ASSERT_EQ(expert.errors().size(), 1u);
  EXPECT_EQ(expert.errors()[0].message.find("ffn_hidden_size 99"), std::string::npos);
  EXPECT_NE(expert.errors()[0].message.find("expert_ffn_hidden_size 50"), std::string::npos);
}

TEST(Transformer, GeneratedModelEstimates) {
  json request = llama2_7b();
  request["parallel"] = {{"tp_degree", 2}, {"sequence_parallel", true}, {"dp_degree", 8}};
  request["training"] = {{"precision", "bf16"}, {"distributed_optimizer", true}};
  const json model = generate(request);
  EXPECT_EQ(model["bytes_per_param"], json({{"weights", 2}, {"grads", 4}, {"optimizer", 1.5}}));
  const json r = run("estimate", {{"model", model},
                                  {"training", {{"bytes_per_param", model["bytes_per_param"]}}},
                                  {"device", {{"memory_limit_mib", 81920}, {"p2p_bandwidth_gbs", 25}}},
                                  {"pipeline", {{"pp_degree", 4}, {"micro_batch_num", 16}}}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["stage_layers"], json({9, 8, 8, 9}));
  EXPECT_GT(r["result"]["step_time_ms"].get<double>(), 0);
}

// The checked-in examples were generated by transformer_model; each loads, estimates and balances
// within an 80 GiB device.
TEST(Transformer, GeneratedExamplesEstimateAndBalance) {
  const std::pair<const char*, int> examples[] = {{"llama2-7b", 4}, {"llama2-70b", 8}, {"moe-16x", 4}};
  for (const auto& [name, pp] : examples) {
    std::ifstream file(std::string(PPB_SOURCE_DIR) + "/examples/" + name + ".json");
    ASSERT_TRUE(file) << name;
    const json model = json::parse(file);
    const json request = {{"model", model},
                          {"training", {{"bytes_per_param", model["bytes_per_param"]}}},
                          {"device", {{"memory_limit_mib", 81920}, {"p2p_bandwidth_gbs", 25}}},
                          {"pipeline", {{"pp_degree", pp}, {"micro_batch_num", 4 * pp}}},
                          {"balance", {{"recompute_options", {"full", "selective"}}}}};
    const json r = run("estimate", request);
    ASSERT_TRUE(r["ok"]) << name << ": " << r.dump();
    EXPECT_EQ(r["result"]["stages"].size(), static_cast<std::size_t>(pp)) << name;
    const json balanced = run("balance", request);
    ASSERT_TRUE(balanced["ok"]) << name << ": " << balanced.dump();
    EXPECT_TRUE(balanced["result"]["feasible"]) << name;
  }
}

}  // namespace
}  // namespace ppb::test
