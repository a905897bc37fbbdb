// The model document in: a ppb.model.v1 layer cost document (docs/contract.md, "Model document")
// read into a Model, every field checked, entries with `count` expanded.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ppb/core/diagnostics.hpp"
#include "ppb/model/model.hpp"
#include "ppb/model/training.hpp"

namespace ppb {

// A model document as read: the model, and whether its layer list is known whole. A problem with a
// layer's costs leaves the list known (the layer is there, its figure reported); a problem with an
// entry's count, pin or recompute options, or with the list itself, does not. The plan's checks
// against the layers run only on a known list.
struct ParsedModel {
  Model model;
  bool layers_known = false;
  std::optional<BytesPerParam> bytes_per_param;  // the document's own, when it states them
  // Those of its layers' expert_params (the generator writes them for MoE models); none: bytes_per_param.
  std::optional<BytesPerParam> expert_bytes_per_param;
};

// Reads a ppb.model.v1 document found at JSON Pointer `path` of the request ("/model", or
// "/transformer" for a generated one). `params` become MiB with `bytes_per_param`. Every problem goes
// to `diagnostics`; the model is meaningful only when there is none.
//   Diagnostics d;
//   Model m = parse_model(json::parse(R"({"layers": [{"name": "decoder", "count": 4, "forward_ms": 1}]})"),
//                         "/model", BytesPerParam{}, d).model;
//   // m.layer_count() == 4, m.layers[0].backward_ms == 2 (twice the forward by default)
ParsedModel parse_model(const nlohmann::json& document, const std::string& path, const BytesPerParam& bytes_per_param,
                        Diagnostics& diagnostics);

}  // namespace ppb
