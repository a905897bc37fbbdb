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
  // The description DeepSeek-V3's tests use (test_models.hpp), with the import's name and its key/value heads
  // stated (MLA has as many as query heads).
  json expected = deepseek_v3_transformer();
  expected["name"] = "deepseek_v3";
  expected["num_query_groups"] = 128;
  EXPECT_EQ(got.transformer, expected);
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

// Qwen2-72B: a layer holds 2h^2(1 + 8/64) + the q, k, v biases h + 2 x 1,024 + 3 h f + 2h =
// 150,994,944 + 10,240 + 726,663,168 + 16,384 = 877,684,736; 80 of them, two 152,064 x 8,192
// embeddings and the final norm: 72,706,203,648, the published 72.71B.
TEST(HfConfig, Qwen2_72bTotalIsThePublishedCount) {
  const json model = imported_model("qwen2-72b.json");
  EXPECT_EQ(model["total_params"], 72'706'203'648LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 72.71e9, 0.001 * 72.71e9);
}

// Qwen3-235B-A22B: a layer holds attention 4,096 x 64 x 128 x 2 (q, o) + 4,096 x 4 x 128 x 2 (k, v)
// = 71,303,168, q/k norms 2 x 128, 128 experts of 3 x 4,096 x 1,536 = 2,415,919,104, the router
// 4,096 x 128 and two norms: 2,487,755,008; 94 of them, two 151,936 x 4,096 embeddings and the
// final norm: 235,093,634,560, the published 235.09B.
TEST(HfConfig, Qwen3_235bTotalIsThePublishedCount) {
  const json model = imported_model("qwen3-235b-a22b.json");
  EXPECT_EQ(model["total_params"], 235'093'634'560LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 235.09e9, 0.001 * 235.09e9);
}

// DeepSeek-V3's main model, its MTP module left out (DeepSeek's README_WEIGHTS.md: 671B main model;
// the Hub's 685B adds the MTP module and its copies of the embedding and head). MLA a layer:
// 7,168 x 1,536 + 1,536 (q down, its norm) + 1,536 x 128 x 192 (q up) + 7,168 x 576 + 512 (kv down,
// its norm) + 512 x 128 x 256 (kv up) + 128 x 128 x 7,168 (out) = 187,107,328. The 3 dense layers
// add 3 x 7,168 x 18,432 and two norms: 583,483,392 each; the 58 MoE layers 257 experts (one
// shared) of 3 x 7,168 x 2,048, the router 7,168 x 256 and two norms: 11,507,286,016 each. With two
// 129,280 x 7,168 embeddings and the final norm: 671,026,404,352.
TEST(HfConfig, DeepSeekV3TotalIsTheMainModel) {
  const json model = imported_model("deepseek-v3.json");
  EXPECT_EQ(model["total_params"], 671'026'404'352LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 671e9, 0.001 * 671e9);
  EXPECT_GT(model.value("mtp_params", 0LL), 0) << "the MTP module is counted apart";
}

// DeepSeek-V2-Lite, no query compression: attention 2,048 x 16 x 192 + 2,048 x 576 + 512 + 512 x 16 x
// 256 + 16 x 128 x 2,048 = 13,763,072; one dense layer with 3 x 2,048 x 10,944, 26 MoE layers of 66
// experts (two shared) of 3 x 2,048 x 1,408 and a router 2,048 x 64; two norms a layer, two
// 102,400 x 2,048 embeddings and the final norm: 15,706,484,224, the published 15.7B (three figures:
// to within half a unit of the last).
TEST(HfConfig, DeepSeekV2LiteTotalIsThePublishedCount) {
  const json model = imported_model("deepseek-v2-lite.json");
  EXPECT_EQ(model["total_params"], 15'706'484'224LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 15.7e9, 0.05e9);
}

// Qwen1.5-MoE-A2.7B: attention 4h^2 with q, k, v biases 3h, 60 experts of 3 x 2,048 x 1,408, one
// shared expert of 3 x 2,048 x 5,632, the router 2,048 x 60 and two norms: 570,558,464 a layer; 24
// of them, two 151,936 x 2,048 embeddings and the final norm: 14,315,735,040, Qwen's 14.3B (to half a
// unit of its last figure; the shared expert's one-number-wide gate, 2,048 a layer, is not counted).
TEST(HfConfig, Qwen15MoeTotalIsThePublishedCount) {
  const json model = imported_model("qwen1.5-moe-a2.7b.json");
  EXPECT_EQ(model["total_params"], 14'315'735'040LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 14.3e9, 0.05e9);
}

// Gemma 2 9B: the Gemma 2 report's Table 2 gives 8,324,201,984 parameters outside the embedding: 42 x
// (attention 3,584 x 4,096 x 2 + 3,584 x 2,048 x 2, MLP 3 x 3,584 x 14,336, four norms) + the final
// norm. The embedding is the checkpoint's 256,000 x 3,584, tied (the report's is 256,128 entries).
TEST(HfConfig, Gemma2_9bNonEmbeddingIsTheReportsCount) {
  const json model = imported_model("gemma-2-9b.json");
  EXPECT_EQ(model["total_params"].get<std::int64_t>() - 256'000LL * 3'584, 8'324'201'984LL);
  EXPECT_NEAR(model["total_params"].get<double>(), 9.24e9, 0.005e9);  // the Hub's 9.24B
}

// Gemma 3 27B: the Gemma 3 report's Table 1 gives 25,600M non-embedding parameters: 62 x (attention
// 5,376 x 4,096 x 2 + 5,376 x 2,048 x 2, q/k norms 2 x 128, MLP 3 x 5,376 x 21,504, four norms) + the
// final norm = 25,599,716,096. The embedding is the vocabulary padded as Megatron-LM pads it:
// 262,208 to 262,272 (a multiple of 128), x 5,376, tied.
TEST(HfConfig, Gemma3_27bNonEmbeddingIsTheReportsCount) {
  const json model = imported_model("gemma-3-27b.json");
  const std::int64_t non_embedding = model["total_params"].get<std::int64_t>() - 262'272LL * 5'376;
  EXPECT_EQ(non_embedding, 25'599'716'096LL);
  EXPECT_NEAR(static_cast<double>(non_embedding), 25'600e6, 0.001 * 25'600e6);
}

// Every published config goes through the generator as it is: no field unknown to it, the only
// warning the soft caps and windows gemma's description leaves out.
TEST(HfConfig, PublishedConfigsImportWithoutUnknownFields) {
  for (const char* file : {"llama-3.1-405b.json", "llama-3.1-8b.json", "mistral-7b-v0.1.json", "mixtral-8x7b.json",
                           "qwen2-72b.json", "qwen3-235b-a22b.json", "qwen1.5-moe-a2.7b.json", "deepseek-v3.json",
                           "deepseek-v2-lite.json", "gemma-2-9b.json", "gemma-3-27b.json"}) {
    const json r = run("import", {{"hf_config", fixture(file)}, {"seq_length", 4096}, {"device", kDevice}});
    ASSERT_TRUE(r["ok"]) << file << ": " << r.dump();
    for (const auto& w : r.value("warnings", json::array()))
      EXPECT_EQ(w["code"], "HF_FIELDS_NOT_MODELLED") << file << ": " << w.dump();
  }
}

}  // namespace
}  // namespace ppb::test
