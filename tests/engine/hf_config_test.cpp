// The Hugging Face config.json import: published config.json files (tests/fixtures/hf/, README.md
// there names each source) into transformer descriptions written out by hand from the families'
// transformers classes (configuration_<family>.py: defaults, modeling_<family>.py: which layers are
// MoE), and the generated models' parameter counts against the totals their authors publish.
#include <gtest/gtest.h>

#include <fstream>

#include "helpers.hpp"
#include "ppb/interop/hf_config.hpp"

namespace ppb::test {
namespace {

json fixture(const std::string& file) {
  std::ifstream in(std::string(PPB_SOURCE_DIR) + "/tests/fixtures/hf/" + file);
  EXPECT_TRUE(in) << file;
  return json::parse(in);
}

// The description of `config` imported with this sequence length, and the problems found.
struct Imported {
  json transformer;
  Diagnostics diagnostics;
};

Imported describe(const json& config, std::int64_t seq_length = 4096) {
  Imported out;
  auto description = hf_transformer(config, "/hf_config", {.seq_length = seq_length, .name = {}}, out.diagnostics);
  if (description) out.transformer = description->transformer;
  return out;
}

std::vector<std::string> codes(const std::vector<Diagnostic>& list) {
  std::vector<std::string> out;
  for (const auto& d : list) out.push_back(d.code + " " + d.path);
  return out;
}

// What every family here shares: RMSNorm, a gated MLP (SiLU or GELU), no dropout when
// attention_dropout is 0.
json common(json description) {
  description["normalization"] = "rmsnorm";
  description["gated_mlp"] = true;
  description["dropout"] = false;
  return description;
}

const json kDevice = {{"peak_tflops", 989}};

// The model generated from a fixture by the import, with a device.
json imported_model(const std::string& file, std::int64_t seq_length = 4096) {
  const json r = run("import", {{"hf_config", fixture(file)}, {"seq_length", seq_length}, {"device", kDevice}});
  EXPECT_TRUE(r["ok"]) << r.dump();
  return r["result"]["model"];
}

// Llama 3.1 405B: every size as stated, no head_dim (16384 / 128 is the default), untied, and no
// warning: each other field of the published file is bookkeeping.
TEST(HfConfig, LlamaSizesMapOneToOne) {
  const Imported got = describe(fixture("llama-3.1-405b.json"), 8192);
  EXPECT_EQ(got.transformer, common({{"name", "llama"},
                                     {"num_layers", 126},
                                     {"hidden_size", 16384},
                                     {"num_attention_heads", 128},
                                     {"num_query_groups", 8},
                                     {"ffn_hidden_size", 53248},
                                     {"vocab_size", 128256},
                                     {"seq_length", 8192},
                                     {"tied_embeddings", false}}));
  EXPECT_TRUE(got.diagnostics.warnings().empty()) << codes(got.diagnostics.warnings()).front();
}

// Mixtral: num_local_experts experts of intermediate_size, every layer MoE (MixtralDecoderLayer).
TEST(HfConfig, MixtralExpertsAreIntermediateSizeWide) {
  const Imported got = describe(fixture("mixtral-8x7b.json"));
  EXPECT_EQ(got.transformer, common({{"name", "mixtral"},
                                     {"num_layers", 32},
                                     {"hidden_size", 4096},
                                     {"num_attention_heads", 32},
                                     {"num_query_groups", 8},
                                     {"ffn_hidden_size", 14336},
                                     {"vocab_size", 32000},
                                     {"seq_length", 4096},
                                     {"tied_embeddings", false},
                                     {"moe", {{"num_experts", 8}, {"top_k", 2}, {"expert_ffn_hidden_size", 14336}}}}));
  EXPECT_TRUE(got.diagnostics.warnings().empty());
}

// Qwen2's attention always has q, k and v biases (Qwen2Attention builds them whatever the config
// says); its sliding_window is off while use_sliding_window is false.
TEST(HfConfig, Qwen2HasQkvBiasAndNoWindowUnlessUsed) {
  const Imported got = describe(fixture("qwen2-72b.json"));
  EXPECT_EQ(got.transformer, common({{"name", "qwen2"},
                                     {"num_layers", 80},
                                     {"hidden_size", 8192},
                                     {"num_attention_heads", 64},
                                     {"num_query_groups", 8},
                                     {"ffn_hidden_size", 29568},
                                     {"vocab_size", 152064},
                                     {"seq_length", 4096},
                                     {"tied_embeddings", false},
                                     {"qkv_bias", true}}));
  EXPECT_TRUE(got.diagnostics.warnings().empty());
}

// Qwen3 MoE: q/k norms, head_dim 128 where 4096 / 64 would be 64, every layer MoE
// (decoder_sparse_step 1, no mlp_only_layers).
TEST(HfConfig, Qwen3MoeHasQkNormAndItsOwnHeadDim) {
  const Imported got = describe(fixture("qwen3-235b-a22b.json"));
  EXPECT_EQ(got.transformer, common({{"name", "qwen3_moe"},
                                     {"num_layers", 94},
                                     {"hidden_size", 4096},
                                     {"num_attention_heads", 64},
                                     {"num_query_groups", 4},
                                     {"head_dim", 128},
                                     {"ffn_hidden_size", 12288},
                                     {"vocab_size", 151936},
                                     {"seq_length", 4096},
                                     {"tied_embeddings", false},
                                     {"qk_norm", true},
                                     {"moe", {{"num_experts", 128}, {"top_k", 8}, {"expert_ffn_hidden_size", 1536}}}}));
}

// Qwen2-MoE: one shared expert of shared_expert_intermediate_size (Qwen2MoeSparseMoeBlock), and
// qkv biases (Qwen2MoeConfig.qkv_bias defaults to true).
TEST(HfConfig, Qwen2MoeHasOneSharedExpertOfItsOwnWidth) {
  const Imported got = describe(fixture("qwen1.5-moe-a2.7b.json"));
  EXPECT_EQ(got.transformer, common({{"name", "qwen2_moe"},
                                     {"num_layers", 24},
                                     {"hidden_size", 2048},
                                     {"num_attention_heads", 16},
                                     {"num_query_groups", 16},
                                     {"ffn_hidden_size", 5632},
                                     {"vocab_size", 151936},
                                     {"seq_length", 4096},
                                     {"tied_embeddings", false},
                                     {"qkv_bias", true},
                                     {"moe",
                                      {{"num_experts", 60},
                                       {"top_k", 4},
                                       {"expert_ffn_hidden_size", 1408},
                                       {"shared_experts", 1},
                                       {"shared_expert_ffn_hidden_size", 5632}}}}));
}

// DeepSeek-V3: MLA, 3 dense layers first (first_k_dense_replace), one shared expert, one MTP
// module; the router's settings (n_group, topk_method, scoring_func, ...) and the fp8
// quantization_config are bookkeeping.
TEST(HfConfig, DeepSeekV3HasMlaDenseLayersFirstAndMtp) {
  const Imported got = describe(fixture("deepseek-v3.json"));
  EXPECT_EQ(got.transformer, common({{"name", "deepseek_v3"},
                                     {"num_layers", 61},
                                     {"hidden_size", 7168},
                                     {"num_attention_heads", 128},
                                     {"num_query_groups", 128},
                                     {"ffn_hidden_size", 18432},
                                     {"vocab_size", 129280},
                                     {"seq_length", 4096},
                                     {"tied_embeddings", false},
                                     {"moe",
                                      {{"num_experts", 256},
                                       {"top_k", 8},
                                       {"expert_ffn_hidden_size", 2048},
                                       {"shared_experts", 1},
                                       {"first_dense_layers", 3}}},
                                     {"mla",
                                      {{"q_lora_rank", 1536},
                                       {"kv_lora_rank", 512},
                                       {"qk_rope_head_dim", 64},
                                       {"qk_nope_head_dim", 128},
                                       {"v_head_dim", 128}}},
                                     {"mtp_layers", 1}}));
  EXPECT_TRUE(got.diagnostics.warnings().empty()) << codes(got.diagnostics.warnings()).front();
}

// DeepSeek-V2-Lite projects its queries without compression: q_lora_rank null, left out of mla.
TEST(HfConfig, DeepSeekV2LiteHasNoQueryCompression) {
  const Imported got = describe(fixture("deepseek-v2-lite.json"));
  EXPECT_EQ(
      got.transformer,
      common({{"name", "deepseek_v2"},
              {"num_layers", 27},
              {"hidden_size", 2048},
              {"num_attention_heads", 16},
              {"num_query_groups", 16},
              {"ffn_hidden_size", 10944},
              {"vocab_size", 102400},
              {"seq_length", 4096},
              {"tied_embeddings", false},
              {"moe",
               {{"num_experts", 64},
                {"top_k", 6},
                {"expert_ffn_hidden_size", 1408},
                {"shared_experts", 2},
                {"first_dense_layers", 1}}},
              {"mla",
               {{"kv_lora_rank", 512}, {"qk_rope_head_dim", 64}, {"qk_nope_head_dim", 128}, {"v_head_dim", 128}}}}));
}

// Gemma 2: four norms a layer, head_dim 256 (3584 / 16 would be 224), tied embeddings by
// Gemma2Config's default; the soft caps are named in one warning, the 4096 window is not (it spans
// the whole 4096-token sequence).
TEST(HfConfig, Gemma2HasFourNormsTiedEmbeddingsAndSoftCapsNamed) {
  const Imported got = describe(fixture("gemma-2-9b.json"));
  EXPECT_EQ(got.transformer, common({{"name", "gemma2"},
                                     {"num_layers", 42},
                                     {"hidden_size", 3584},
                                     {"num_attention_heads", 16},
                                     {"num_query_groups", 8},
                                     {"head_dim", 256},
                                     {"ffn_hidden_size", 14336},
                                     {"vocab_size", 256000},
                                     {"seq_length", 4096},
                                     {"tied_embeddings", true},
                                     {"norms_per_layer", 4}}));
  ASSERT_EQ(codes(got.diagnostics.warnings()), std::vector<std::string>{"HF_FIELDS_NOT_MODELLED /hf_config"});
  const std::string& message = got.diagnostics.warnings()[0].message;
  EXPECT_NE(message.find("attn_logit_softcapping 50"), std::string::npos) << message;
  EXPECT_NE(message.find("final_logit_softcapping 30"), std::string::npos) << message;
  EXPECT_EQ(message.find("sliding_window"), std::string::npos) << message;
}

// Gemma 3: the text model under text_config, which states only what differs from
// Gemma3TextConfig (the vocabulary, 262,208, and the tying are the class's); q/k norms; the vision
// tower and the 1024-token window (shorter than the sequence) named in the warning.
TEST(HfConfig, Gemma3ReadsTheTextConfigWithItsClassDefaults) {
  const Imported got = describe(fixture("gemma-3-27b.json"));
  EXPECT_EQ(got.transformer, common({{"name", "gemma3"},
                                     {"num_layers", 62},
                                     {"hidden_size", 5376},
                                     {"num_attention_heads", 32},
                                     {"num_query_groups", 16},
                                     {"head_dim", 128},
                                     {"ffn_hidden_size", 21504},
                                     {"vocab_size", 262208},
                                     {"seq_length", 4096},
                                     {"tied_embeddings", true},
                                     {"qk_norm", true},
                                     {"norms_per_layer", 4}}));
  ASSERT_EQ(got.diagnostics.warnings().size(), 1u);
  const std::string& message = got.diagnostics.warnings()[0].message;
  EXPECT_NE(message.find("vision_config"), std::string::npos) << message;
  EXPECT_NE(message.find("text_config/sliding_window 1024"), std::string::npos) << message;
}

// Mistral 7B v0.1 attends over 4096 tokens on every layer: nothing to say at seq_length 4096, a
// warning at 8192.
TEST(HfConfig, SlidingWindowIsNamedOnlyWhenShorterThanTheSequence) {
  EXPECT_TRUE(describe(fixture("mistral-7b-v0.1.json"), 4096).diagnostics.warnings().empty());
  const Imported longer = describe(fixture("mistral-7b-v0.1.json"), 8192);
  ASSERT_EQ(codes(longer.diagnostics.warnings()), std::vector<std::string>{"HF_FIELDS_NOT_MODELLED /hf_config"});
  EXPECT_NE(longer.diagnostics.warnings()[0].message.find("sliding_window 4096"), std::string::npos);
}

json small(const char* model_type) {
  return {{"model_type", model_type},  {"num_hidden_layers", 6},    {"hidden_size", 1024},
          {"num_attention_heads", 16}, {"intermediate_size", 4096}, {"vocab_size", 32000}};
}

// A field the file leaves out takes its class's default: MistralConfig's num_key_value_heads is 8,
// LlamaConfig's the heads; null is the heads everywhere; Gemma2Config ties embeddings, LlamaConfig
// does not; Qwen3Config's head_dim is 128 (Qwen3-0.6B: 1024 wide, 16 heads of 128).
TEST(HfConfig, AbsentFieldsTakeTheirClassDefaults) {
  EXPECT_EQ(describe(small("mistral")).transformer["num_query_groups"], 8);
  EXPECT_EQ(describe(small("llama")).transformer["num_query_groups"], 16);
  json null_groups = small("mistral");
  null_groups["num_key_value_heads"] = nullptr;
  EXPECT_EQ(describe(null_groups).transformer["num_query_groups"], 16);
  EXPECT_EQ(describe(small("llama")).transformer["tied_embeddings"], false);
  EXPECT_EQ(describe(small("gemma2")).transformer["tied_embeddings"], true);
  EXPECT_EQ(describe(small("qwen3")).transformer["head_dim"], 128);
  EXPECT_FALSE(describe(small("llama")).transformer.contains("head_dim"));
  json dropout = small("llama");
  dropout["attention_dropout"] = 0.1;
  EXPECT_EQ(describe(dropout).transformer["dropout"], true);
  json bias = small("llama");
  bias["attention_bias"] = true;
  EXPECT_EQ(describe(bias).transformer["qkv_bias"], true);
}

json moe(const char* model_type) {
  json config = small(model_type);
  config["num_experts"] = 8;
  config["num_experts_per_tok"] = 2;
  config["moe_intermediate_size"] = 512;
  return config;
}

// Qwen3MoeDecoderLayer: layer i is MoE when it is not in mlp_only_layers and (i + 1) % step == 0.
// Step 2 with layer 3 listed: layers 1 and 5 (0-based) are MoE, the list [0,1,0,0,0,1].
TEST(HfConfig, QwenSparseStepAndMlpOnlyLayersGiveTheLayerList) {
  json config = moe("qwen3_moe");
  config["decoder_sparse_step"] = 2;
  config["mlp_only_layers"] = {3};
  EXPECT_EQ(describe(config).transformer["moe"]["layer_freq"], json({0, 1, 0, 0, 0, 1}));
  // The first two dense and the rest MoE is the description's first_dense_layers, no list.
  config["decoder_sparse_step"] = 1;
  config["mlp_only_layers"] = {0, 1};
  const json first = describe(config).transformer["moe"];
  EXPECT_EQ(first["first_dense_layers"], 2);
  EXPECT_FALSE(first.contains("layer_freq"));
  // A step longer than the model leaves no MoE layer: a dense model, no moe section.
  config["decoder_sparse_step"] = 10;
  config["mlp_only_layers"] = json::array();
  EXPECT_FALSE(describe(config).transformer.contains("moe"));
}

// DeepSeek (its modeling code): layer i is MoE when i >= first_k_dense_replace and
// i % moe_layer_freq == 0. 7 layers, 1 dense first, every second: [0,0,1,0,1,0,1]. Without
// first_k_dense_replace DeepseekV3Config's default, 3, applies.
TEST(HfConfig, DeepSeekLayerFrequencyGivesTheLayerList) {
  json config = fixture("deepseek-v3.json");
  config["num_hidden_layers"] = 7;
  config["first_k_dense_replace"] = 1;
  config["moe_layer_freq"] = 2;
  EXPECT_EQ(describe(config).transformer["moe"]["layer_freq"], json({0, 0, 1, 0, 1, 0, 1}));
  config.erase("first_k_dense_replace");
  config.erase("moe_layer_freq");
  EXPECT_EQ(describe(config).transformer["moe"]["first_dense_layers"], 3);
}

TEST(HfConfig, MissingSizesAreRequiredAtTheirPaths) {
  json config = fixture("llama-3.1-405b.json");
  config.erase("hidden_size");
  config["vocab_size"] = nullptr;
  const Imported got = describe(config);
  EXPECT_EQ(codes(got.diagnostics.errors()),
            (std::vector<std::string>{"REQUIRED /hf_config/hidden_size", "REQUIRED /hf_config/vocab_size"}));
  json deepseek = fixture("deepseek-v3.json");
  deepseek.erase("kv_lora_rank");
  deepseek.erase("q_lora_rank");
  EXPECT_EQ(codes(describe(deepseek).diagnostics.errors()),
            (std::vector<std::string>{"REQUIRED /hf_config/q_lora_rank", "REQUIRED /hf_config/kv_lora_rank"}));
}

TEST(HfConfig, UnknownModelTypeNamesItAndTheFamiliesRead) {
  const Imported got = describe({{"model_type", "gpt2"}, {"architectures", {"GPT2LMHeadModel"}}, {"n_embd", 768}});
  ASSERT_EQ(codes(got.diagnostics.errors()), std::vector<std::string>{"HF_MODEL_TYPE_UNKNOWN /hf_config/model_type"});
  const std::string& message = got.diagnostics.errors()[0].message;
  for (const char* part : {"\"gpt2\"", "llama", "mixtral", "qwen3_moe", "deepseek_v3", "gemma3"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " in " << message;
  EXPECT_TRUE(got.diagnostics.warnings().empty());  // gpt2's own fields are not listed one by one
}

// --- the import command -----------------------------------------------------------------------

// A config as the request itself: recognised by model_type with architectures; no seq_length can
// come with it, so 4096 is assumed with a warning that says why max_position_embeddings is not it.
TEST(HfConfig, ImportTakesAConfigAsTheRequest) {
  const json r = run("import", fixture("llama-3.1-405b.json"));
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["source"], "hf_config");
  EXPECT_EQ(r["result"]["transformer"]["seq_length"], 4096);
  EXPECT_FALSE(r["result"].contains("model"));
  ASSERT_EQ(r["warnings"].size(), 1u) << r.dump();
  EXPECT_EQ(r["warnings"][0]["code"], "SEQ_LENGTH_ASSUMED");
  EXPECT_EQ(r["warnings"][0]["path"], "/seq_length");
  EXPECT_NE(r["warnings"][0]["message"].get<std::string>().find("max_position_embeddings"), std::string::npos);
  json broken = fixture("llama-3.1-405b.json");
  broken.erase("num_attention_heads");
  EXPECT_TRUE(has_error(run("import", broken), "REQUIRED", "/num_attention_heads"));
}

// With a device the description goes on to the generator: result.model is the model the
// transformer import gives for result.transformer. Without one there is no model and no error, and
// sections only the generator reads are named as ignored.
TEST(HfConfig, ImportGeneratesTheModelWhenTheRequestHasADevice) {
  const json config = fixture("llama-3.1-405b.json");
  const json parallel = {{"tp_degree", 8}, {"sequence_parallel", true}};
  const json r = run("import", {{"hf_config", config},
                                {"seq_length", 8192},
                                {"name", "Llama 3.1 405B"},
                                {"parallel", parallel},
                                {"device", kDevice}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_FALSE(r.contains("warnings")) << r.dump();
  EXPECT_EQ(r["result"]["transformer"]["name"], "Llama 3.1 405B");
  const json direct =
      run("import", {{"transformer", r["result"]["transformer"]}, {"parallel", parallel}, {"device", kDevice}});
  EXPECT_EQ(r["result"]["model"], direct["result"]["model"]);

  const json alone = run("import", {{"hf_config", config}, {"seq_length", 8192}, {"parallel", parallel}});
  ASSERT_TRUE(alone["ok"]) << alone.dump();
  EXPECT_FALSE(alone["result"].contains("model"));
  ASSERT_EQ(alone["warnings"].size(), 1u) << alone.dump();
  EXPECT_EQ(alone["warnings"][0]["code"], "IGNORED_FIELD");
  EXPECT_EQ(alone["warnings"][0]["path"], "/parallel");
}

// The generator's rules still hold, reported where the request can be changed: a parallel degree at
// its own path, a description rule at the config field the value came from.
TEST(HfConfig, GeneratorProblemsPointAtTheConfigOrTheRequest) {
  const json r = run("import", {{"hf_config", fixture("llama-3.1-405b.json")},
                                {"seq_length", 8192},
                                {"parallel", {{"tp_degree", 3}}},
                                {"device", kDevice}});
  EXPECT_TRUE(has_error(r, "HEADS_NOT_DIVISIBLE_BY_TP", "/parallel/tp_degree")) << r.dump();
  json groups = fixture("llama-3.1-405b.json");
  groups["num_key_value_heads"] = 5;
  EXPECT_TRUE(has_error(run("import", {{"hf_config", groups}, {"seq_length", 8192}}), "HEADS_NOT_DIVISIBLE_BY_GROUPS",
                        "/hf_config/num_key_value_heads"));
  json top_k = fixture("mixtral-8x7b.json");
  top_k["num_experts_per_tok"] = 9;
  EXPECT_TRUE(has_error(run("import", {{"hf_config", top_k}, {"seq_length", 4096}}), "TOP_K_INVALID",
                        "/hf_config/num_experts_per_tok"));
}

TEST(HfConfig, ImportKeepsOneSourceAndNamesUnknownFields) {
  const json config = fixture("mixtral-8x7b.json");
  EXPECT_TRUE(
      has_error(run("import", {{"hf_config", config}, {"transformer", json::object()}}), "IMPORT_SOURCE_CONFLICT", ""));
  json odd = config;
  odd["frobnicate"] = 1;
  const json r = run("import", {{"hf_config", odd}, {"seq_length", 4096}, {"colour", "red"}});
  ASSERT_TRUE(r["ok"]) << r.dump();
  std::vector<std::string> warned;
  for (const auto& w : r["warnings"])
    warned.push_back(w["code"].get<std::string>() + " " + w["path"].get<std::string>());
  EXPECT_EQ(warned, (std::vector<std::string>{"UNKNOWN_FIELD /colour", "UNKNOWN_FIELD /hf_config/frobnicate"}));
}

// --- published parameter counts --------------------------------------------------------------------

// Llama 3.1 405B, by hand: a layer holds 2h^2(1 + 8/128) + 3 h f + 2h = 570,425,344 + 2,617,245,696 +
// 32,768 = 3,187,703,808; 126 of them, two 128,256 x 16,384 embeddings (untied) and the final norm:
// 405,853,388,800, the published 405.85B.
TEST(HfConfig, Llama405bTotalIsThePublishedCount) {
  const json model = imported_model("llama-3.1-405b.json");
  EXPECT_EQ(model["total_params"], 405'853'388'800LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 405.85e9, 0.001 * 405.85e9);
}

// Mixtral 8x7B: a layer holds 2h^2(1 + 8/32) + 8 x 3 h f + 8h (router) + 2h = 1,451,270,144; 32 of
// them, two 32,000 x 4,096 embeddings and the final norm: 46,702,792,704, the published 46.70B.
TEST(HfConfig, Mixtral8x7bTotalIsThePublishedCount) {
  const json model = imported_model("mixtral-8x7b.json");
  EXPECT_EQ(model["total_params"], 46'702'792'704LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 46.70e9, 0.001 * 46.70e9);
}

// Mistral 7B: 32 x (2h^2(1 + 8/32) + 3 h f + 2h) + 2 V h + h = 7,241,732,096, the published 7.24B.
TEST(HfConfig, Mistral7bTotalIsThePublishedCount) {
  const json model = imported_model("mistral-7b-v0.1.json");
  EXPECT_EQ(model["total_params"], 7'241'732'096LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 7.24e9, 0.001 * 7.24e9);
}

}  // namespace
}  // namespace ppb::test
