// Model documents read once and kept for the requests that name them. The page's worker hands a model
// over once and names it in every request after (docs/page.md, "The worker protocol"): reading a
// profiler's file of 100,000 layer entries takes longer than most commands on it, and the page sends
// a request on every edit. A request naming a kept model reads as the same request with the
// document's model in "model": the same answer, errors and warnings included.
//   const KeptModelId id = keep_model(R"({"layers": [{"name": "decoder", "count": 8, "forward_ms": 1}]})");
//   run_command("estimate", R"({"pipeline": {"pp_degree": 4, "micro_batch_num": 8}})", id);
//   drop_model(id);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "ppb/core/diagnostics.hpp"
#include "ppb/io/model_reader.hpp"

namespace ppb {

using KeptModelId = std::int32_t;

// What keep_model read: the problems of the text itself (caps, syntax), which a request naming it
// answers alone, as it would the same problems in its own text; else the model and what reading it
// reported (errors and warnings at /model/...), which join the request's own.
struct KeptModel {
  Diagnostics text_problems;
  Diagnostics read_problems;
  ParsedModel parsed;
};

// Reads `document_text`, a ppb.model.v1 document or a request holding one in "model" (a file as a
// person drops it), under the input caps of a request, and keeps what it read, problems included.
// Returns its id, from 1 up, never given twice. The model's own paths are reported under /model, as
// in a request; a syntax error's byte is counted in `document_text`.
KeptModelId keep_model(std::string_view document_text);
// Forgets a kept model; false when none has that id.
bool drop_model(KeptModelId id);
// The models kept now.
std::size_t kept_model_count();
// The kept model of that id, or null.
std::shared_ptr<const KeptModel> find_kept_model(KeptModelId id);

// The value a request document holds in "model" to name a kept model: a JSON binary value with its
// id, which no JSON text can hold; the request reader reads the kept model in its place.
nlohmann::json kept_model_marker(KeptModelId id);
// The kept model a "model" value names, or null when the value is not such a marker or the model is
// no longer kept.
std::shared_ptr<const KeptModel> kept_model_named(const nlohmann::json& value);

}  // namespace ppb
