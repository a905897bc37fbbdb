// The 2024-26 architectures in the transformer description: head_dim, per-head norms, query/key/
// value biases, multi-head latent attention, multi-token prediction, interleaved MoE layers and
// FP8 compute. Parameter totals against the published ones, each derived by hand in its comment;
// the per-layer figures against docs/transformer-model.md's formulas worked out on small sizes.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "ppb/model/transformer.hpp"

namespace ppb::test {
namespace {

constexpr double kMiB = 1048576.0;

std::vector<Diagnostic> errors_of(const json& request) {
  Diagnostics d;
  EXPECT_FALSE(transformer_model(request, d).has_value());
  return d.errors();
}

double summed_params(const json& model) {
  double sum = 0;
  for (const json& layer : model["layers"]) sum += layer["params"].get<double>() * layer.value("count", 1);
  return sum;
}

json with_device(json transformer) {
  return {{"transformer", std::move(transformer)}, {"device", {{"peak_tflops", 989}}}};
}

// Llama-3.1-405B (Meta's config.json: 126 layers, h 16384, 128 heads, 8 key/value heads, FFN 53248,
// vocabulary 128256, untied). A layer is 2 h d (a + g) = 570,425,344 for attention, 3 h f =
// 2,617,245,696 for the MLP and 2h for its norms: 3,187,703,808; times 126, plus 2 V h =
// 4,202,692,608 and the final norm: 405,853,388,800, the published 405.85B ("405B" in the paper).
TEST(TransformerArchitectures, Llama31_405bParameterCount) {
  const json model = generate(with_device({{"num_layers", 126},
                                           {"hidden_size", 16384},
                                           {"num_attention_heads", 128},
                                           {"num_query_groups", 8},
                                           {"ffn_hidden_size", 53248},
                                           {"gated_mlp", true},
                                           {"normalization", "rmsnorm"},
                                           {"dropout", false},
                                           {"vocab_size", 128256},
                                           {"seq_length", 8192},
                                           {"tied_embeddings", false}}));
  EXPECT_EQ(model["total_params"], 405853388800LL);
  EXPECT_DOUBLE_EQ(summed_params(model), 405853388800.0);
}

// DeepSeek-V3 (its config.json; report arXiv 2412.19437, 671B total). MLA per layer: down-projections
// h rq + h (rkv + dr) = 11,010,048 + 4,128,768, up-projections rq a (dn + dr) + rkv a (dn + dv) =
// 37,748,736 + 16,777,216, output a dv h = 117,440,512, the latents' norms rq + rkv = 2,048:
// 187,107,328. Dense layer (3 of them): + 3 h f = 396,361,728 + 2h = 583,483,392. MoE layer (58):
// + router h E = 1,835,008, 257 experts of 3 h 2048 = 11,318,329,344, 2h: 11,507,286,016. With
// 2 V h = 1,853,358,080 and the final norm: 671,026,404,352. The MTP module (not in the 671B: the
// published 685B adds 14B of MTP weights with their own embedding and head copies) is an MoE layer,
// the 2h x h projection and three norms: 11,610,067,968.
TEST(TransformerArchitectures, DeepSeekV3ParameterCount) {
  const json model = generate(with_device(deepseek_v3_transformer()));
  EXPECT_EQ(model["total_params"], 671026404352LL);
  EXPECT_EQ(model["mtp_params"], 11610067968LL);
  // With no pp stated the generator assumes several stages, as for tied embeddings: the MTP module
  // holds the embedding's copy.
  EXPECT_DOUBLE_EQ(summed_params(model), 671026404352.0 + 11610067968.0 + 129280.0 * 7168);
}

// Qwen3-235B-A22B (its config.json: 94 layers, h 4096, 64 heads of head_dim 128, 4 key/value heads,
// 128 experts of 1536, top 8, per-head query and key norms, vocabulary 151936, untied). Attention
// 2 h d (a + g) = 71,303,168 and 2d = 256 of norms; experts 128 x 3 h 1536 = 2,415,919,104, router
// 524,288, 2h: 2,487,755,008 a layer; times 94, plus 2 V h = 1,244,659,712 and h:
// 235,093,634,560 (published "235B"). With head_dim h/a = 64 it would be 231.7B.
TEST(TransformerArchitectures, Qwen3_235bParameterCount) {
  const json model =
      generate(with_device({{"num_layers", 94},
                            {"hidden_size", 4096},
                            {"num_attention_heads", 64},
                            {"num_query_groups", 4},
                            {"head_dim", 128},
                            {"qk_norm", true},
                            {"ffn_hidden_size", 12288},
                            {"gated_mlp", true},
                            {"normalization", "rmsnorm"},
                            {"dropout", false},
                            {"vocab_size", 151936},
                            {"seq_length", 4096},
                            {"tied_embeddings", false},
                            {"moe", {{"num_experts", 128}, {"top_k", 8}, {"expert_ffn_hidden_size", 1536}}}}));
  EXPECT_EQ(model["total_params"], 235093634560LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 235e9, 0.001 * 235e9);
}

// Mixtral-8x7B (Jiang et al. 2024, 46.7B): attention 2 h^2 (1 + g/a) = 41,943,040, 8 experts of
// 3 h 14336 = 1,409,286,144, router 32,768, 2h; times 32, plus 2 V h = 262,144,000 and h:
// 46,702,792,704.
TEST(TransformerArchitectures, Mixtral8x7bParameterCount) {
  const json model = generate(with_device({{"num_layers", 32},
                                           {"hidden_size", 4096},
                                           {"num_attention_heads", 32},
                                           {"num_query_groups", 8},
                                           {"ffn_hidden_size", 14336},
                                           {"gated_mlp", true},
                                           {"normalization", "rmsnorm"},
                                           {"dropout", false},
                                           {"vocab_size", 32000},
                                           {"seq_length", 4096},
                                           {"tied_embeddings", false},
                                           {"moe", {{"num_experts", 8}, {"top_k", 2}}}}));
  EXPECT_EQ(model["total_params"], 46702792704LL);
}

// A small model whose every figure is worked out by hand below: s 8, b 1, h 16, 4 heads, no dropout,
// RMSNorm, plain MLP of 32, bf16, FlashAttention, vocabulary 128.
json small(json extra) { return with_device(tiny_transformer(extra)); }

// head_dim 8 (a d = 32 wider than h = 16) with 2 key/value groups: attention 2 h d (a + g) =
// 2 x 16 x 8 x 6 = 1,536, biases (a + 2g) d = 64, per-head norms 2d = 16; MLP 2 h f = 1,024; norms
// 2h = 32. Kept per token (bytes, q = 2): norm, QKV and MLP inputs 4h = 64 elements; Q, K, V, O
// inputs a d + g d + g d + a d = 96; Q and K before their norms a d + g d = 48; MLP 2f = 64: 272
// elements, 544 bytes x 8 tokens = 4,352, plus the softmax statistics 4 a s = 128 bytes.
TEST(TransformerArchitectures, HeadDimBiasAndPerHeadNorms) {
  const json model = generate(small({{"head_dim", 8}, {"num_query_groups", 2}, {"qkv_bias", true}, {"qk_norm", true}}));
  const json& decoder = entry(model, "decoder");
  EXPECT_EQ(decoder["params"], 1536 + 64 + 16 + 1024 + 32);
  EXPECT_DOUBLE_EQ(decoder["activation_mib"].get<double>() * kMiB, 4352.0 + 128.0);
}

// MLA on the small model (rq 8, rkv 4, dr 2, dn 4, dv 4), tp 2: down-projections h rq + h (rkv + dr)
// = 128 + 96 on every rank with the latents' norms 8 + 4; up-projections rq a (dn + dr) + rkv a
// (dn + dv) = 192 + 128 and output a dv h = 256, split: 288 a rank. Norms 2h = 32, MLP 2 h f / 2 =
// 512. Kept per token: 4h = 64 (no SP: whole), the latents 2 rq + 2 rkv + dr = 26 (whole), Q, K, V, O
// input a (dqk + dqk + dv + dv) / t = 4 x 20 / 2 = 40, MLP 2f / t = 32: 162 elements, 2,592 bytes for
// 8 tokens; softmax statistics 4 a s / t = 64.
TEST(TransformerArchitectures, MultiHeadLatentAttention) {
  json request = small({{"mla",
                         {{"q_lora_rank", 8},
                          {"kv_lora_rank", 4},
                          {"qk_rope_head_dim", 2},
                          {"qk_nope_head_dim", 4},
                          {"v_head_dim", 4}}}});
  request["parallel"] = {{"tp_degree", 2}};
  const json model = generate(request);
  const json& decoder = entry(model, "decoder");
  EXPECT_EQ(decoder["params"], 128 + 96 + 12 + 288 + 32 + 512);
  EXPECT_DOUBLE_EQ(decoder["activation_mib"].get<double>() * kMiB, 2592.0 + 64.0);
  // Forward: 2 x (224 + 288 + 512) weights x 8 tokens, plus the core s^2 a (dqk + dv) / t = 8^2 x 4 x
  // 10 / 2 = 1,280 FLOPs, at 989e12 x 0.5 FLOP/s.
  EXPECT_NEAR(decoder["forward_ms"].get<double>(), (2 * 1024.0 * 8 + 1280) / (989e12 * 0.5) * 1e3, 1e-18);
}

// The MTP module sits after the head, pinned last, a decoder layer and the projection: with pp 2 it
// holds the embedding's copy (V h = 2,048) beside the block (attention 4 h^2 = 1,024, MLP 1,024,
// norms 32), the 2h x h projection (512) and three norms (48).
TEST(TransformerArchitectures, MultiTokenPredictionModules) {
  json request = small({{"mtp_layers", 2}});
  request["pipeline"] = {{"pp_degree", 2}};
  const json model = generate(request);
  const json& layers = model["layers"];
  ASSERT_EQ(layers.size(), 5u);
  EXPECT_EQ(layers[2]["name"], "final_norm_lm_head");
  EXPECT_EQ(layers[3]["name"], "mtp");
  EXPECT_EQ(layers[3]["pin"], "last");
  EXPECT_EQ(layers[3]["params"], 2048 + 2080 + 512 + 48);
  EXPECT_EQ(layers[4].value("count", 1), 1);
  EXPECT_EQ(layers[4]["params"], 2080 + 512 + 48);
  EXPECT_EQ(model["mtp_params"], 2 * (2080 + 512 + 48));
  // Its forward also runs the output head: 2 x (2080 - 32 + 512 + 2048) x 8 tokens + the core
  // 4 b s^2 h / 2 = 2,048 FLOPs.
  EXPECT_NEAR(layers[4]["forward_ms"].get<double>(), (2.0 * 4608 * 8 + 2048) / (989e12 * 0.5) * 1e3, 1e-18);
}

// moe.layer_freq as Megatron-LM's --moe-layer-freq: an interval (layer i is MoE when i % 2 == 0)
// or one 0/1 per layer, after the first dense layers.
TEST(TransformerArchitectures, InterleavedMoeLayers) {
  json request = small({{"num_layers", 5}, {"moe", {{"num_experts", 4}, {"top_k", 1}, {"layer_freq", 2}}}});
  json model = generate(request);
  std::vector<std::string> names;
  std::vector<int> counts;
  for (const json& layer : model["layers"]) {
    names.push_back(layer["name"]);
    counts.push_back(layer.value("count", 1));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"embedding", "moe_decoder", "decoder", "moe_decoder", "decoder",
                                             "moe_decoder", "final_norm_lm_head"}));

  request["transformer"]["moe"] = {{"num_experts", 4}, {"top_k", 1}, {"layer_freq", {0, 1, 1, 0, 1}}};
  request["transformer"]["moe"]["first_dense_layers"] = 2;
  model = generate(request);
  names.clear();
  counts.clear();
  for (const json& layer : model["layers"]) {
    names.push_back(layer["name"]);
    counts.push_back(layer.value("count", 1));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"embedding", "decoder", "moe_decoder", "decoder", "moe_decoder",
                                             "final_norm_lm_head"}));
  EXPECT_EQ(counts, (std::vector<int>{1, 2, 1, 1, 1, 1}));

  request["transformer"]["moe"]["layer_freq"] = {1, 0};
  const auto errors = errors_of(request);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].code, "MOE_LAYER_FREQ_LENGTH");
  EXPECT_EQ(errors[0].path, "/transformer/moe/layer_freq");
}

// FP8: the decoder's matrix multiplications at peak_tflops_fp8, the attention core and the output
// head at peak_tflops. Small model: decoder weights 4 h^2 + 2 h f = 2,048, 8 tokens: 32,768 FLOPs at
// 1,978 TFLOP/s, core 2,048 FLOPs at 989; head 2 V h x 8 = 32,768 FLOPs at 989 (all x 0.5).
TEST(TransformerArchitectures, Fp8ComputeRunsTheDecoderMatmulsAtItsPeak) {
  json request = small({});
  request["training"] = {{"precision", "fp8"}};
  request["device"]["peak_tflops_fp8"] = 1978;
  const json model = generate(request);
  const double bf16 = 989e12 * 0.5 / 1e3, fp8 = 1978e12 * 0.5 / 1e3;
  EXPECT_NEAR(entry(model, "decoder")["forward_ms"].get<double>(), 32768 / fp8 + 2048 / bf16, 1e-18);
  EXPECT_NEAR(entry(model, "decoder")["weight_backward_ms"].get<double>(), 32768 / fp8, 1e-18);
  EXPECT_NEAR(entry(model, "final_norm_lm_head")["forward_ms"].get<double>(), 32768 / bf16, 1e-18);

  request["device"].erase("peak_tflops_fp8");
  const auto errors = errors_of(request);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].code, "REQUIRED");
  EXPECT_EQ(errors[0].path, "/device/peak_tflops_fp8");
}

}  // namespace
}  // namespace ppb::test
