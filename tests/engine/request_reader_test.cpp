// The request reader: where the training figures come from when a request states them in
// another section.
#include "ppb/io/request_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// A small dense transformer: 4 decoder layers between the pinned embedding and head.
json small_transformer() {
  return {{"transformer",
           {{"num_layers", 4},
            {"hidden_size", 256},
            {"num_attention_heads", 4},
            {"vocab_size", 1024},
            {"seq_length", 128}}},
          {"device", {{"peak_tflops", 100}}},
          {"pipeline", {{"pp_degree", 2}}}};
}

std::size_t count_code(const json& response, const std::string& code) {
  const json errors = response.value("errors", json::array());
  return static_cast<std::size_t>(
      std::count_if(errors.begin(), errors.end(), [&](const json& e) { return e["code"] == code; }));
}

// The contract's transformer example puts dp_degree under parallel. By the derivation
// micro_batch_num = global_batch_size / (micro_batch_size x dp_degree) = 64 / (1 x 8) = 8, not 64.
TEST(RequestReader, ParallelDpDegreeDerivesMicroBatchNumForATransformer) {
  json req = small_transformer();
  req["parallel"] = {{"dp_degree", 8}};
  req["training"] = {{"global_batch_size", 64}, {"micro_batch_size", 1}};
  const json r = run("estimate", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["micro_batch_num"], 8);
}

// The same fallback for a layer cost document: 64 / (2 x 4) = 8 micro batches.
TEST(RequestReader, ParallelDpDegreeDerivesMicroBatchNumForAModel) {
  const json req = {{"model", uniform_model(4, 1, 2, 0, 0)},
                    {"parallel", {{"dp_degree", 4}}},
                    {"training", {{"global_batch_size", 64}, {"micro_batch_size", 2}}},
                    {"pipeline", {{"pp_degree", 2}}}};
  Diagnostics d;
  const Request request = parse_request(req, d);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(request.training.dp_degree, 4);
  const json r = run("estimate", req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["micro_batch_num"], 8);
  // 60 is not a multiple of 2 x 4: the derivation with parallel's dp_degree fails as with training's.
  json uneven = req;
  uneven["training"]["global_batch_size"] = 60;
  EXPECT_TRUE(has_error(run("estimate", uneven), "BATCH_NOT_DIVISIBLE", "/training/global_batch_size"));
}

// Given in both sections, the numbers must agree (the transformer generator's rule, now for a model
// too); equal numbers are fine and the conflict is reported once.
TEST(RequestReader, DpDegreeInBothSectionsMustAgree) {
  json model_req = {{"model", uniform_model(4, 1, 2, 0, 0)},
                    {"parallel", {{"dp_degree", 8}}},
                    {"training", {{"global_batch_size", 64}, {"dp_degree", 8}}},
                    {"pipeline", {{"pp_degree", 2}}}};
  json r = run("estimate", model_req);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["result"]["micro_batch_num"], 8);  // 64 / (1 x 8)

  model_req["training"]["dp_degree"] = 4;
  r = run("estimate", model_req);
  EXPECT_TRUE(has_error(r, "DP_DEGREE_CONFLICT", "/parallel/dp_degree")) << r.dump();
  EXPECT_EQ(count_code(r, "DP_DEGREE_CONFLICT"), 1u);

  json transformer_req = small_transformer();
  transformer_req["parallel"] = {{"dp_degree", 8}};
  transformer_req["training"] = {{"global_batch_size", 64}, {"dp_degree", 4}};
  r = run("estimate", transformer_req);
  EXPECT_TRUE(has_error(r, "DP_DEGREE_CONFLICT", "/parallel/dp_degree")) << r.dump();
  EXPECT_EQ(count_code(r, "DP_DEGREE_CONFLICT"), 1u);
}

// A bad parallel.dp_degree is an error at its path; with a transformer the generator reports it and
// the request parser does not add a second error for the same field. 0 is below dp_degree's minimum
// of 1 without being negative: OUT_OF_RANGE.
TEST(RequestReader, BadParallelDpDegreeIsReportedOnce) {
  const json model_req = {{"model", uniform_model(4, 1, 2, 0, 0)},
                          {"parallel", {{"dp_degree", 0}}},
                          {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}}}};
  json r = run("estimate", model_req);
  EXPECT_FALSE(r["ok"]);
  EXPECT_TRUE(has_error(r, "OUT_OF_RANGE", "/parallel/dp_degree")) << r.dump();

  json transformer_req = small_transformer();
  transformer_req["parallel"] = {{"dp_degree", 0}};
  transformer_req["pipeline"]["micro_batch_num"] = 4;
  r = run("estimate", transformer_req);
  EXPECT_FALSE(r["ok"]);
  const json errors = r["errors"];
  EXPECT_EQ(
      std::count_if(errors.begin(), errors.end(), [](const json& e) { return e["path"] == "/parallel/dp_degree"; }), 1)
      << r.dump();
}

}  // namespace
}  // namespace ppb::test
