// A layer entry read straight from the text the parse kept (json_text.hpp), for the plain entries a
// profiler writes by the hundred thousand: building each entry's JSON object and reading it field by
// field was most of the time of reading such a file (internal to the engine; model_reader.cpp uses it).
// Plain: the fields of the model reader's common case (no count, no components), each once, numbers
// in their ranges, names without escapes, no part larger than its whole, recompute options of
// activation_mib and extra_ms. The layer appended is the one the model reader appends from the
// entry's JSON object (tests/engine/plain_entry_test.cpp holds the two to each other).
#pragma once

#include <string_view>

#include "ppb/model/model.hpp"
#include "ppb/model/training.hpp"

namespace ppb {

// Appends the layer of the plain entry `text` (entry `entry_index` of the list), its static memory at
// `bytes` per parameter, new recompute options joining the model's list; false for any other entry,
// with the model untouched: the model reader then reads it through its JSON object and reports what
// is wrong.
bool read_plain_entry(std::string_view text, int entry_index, const BytesPerParam& bytes, Model& model);

}  // namespace ppb
