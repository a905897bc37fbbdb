// The JSON edge in one include: request text (json_text), the request and its model (request_reader,
// model_reader) and responses (response_writer). The algorithms never see JSON; only these parts, the
// command sources and the import / export formats read or write it.
#pragma once

#include "ppb/core/json_text.hpp"
#include "ppb/io/model_reader.hpp"
#include "ppb/io/request_reader.hpp"
#include "ppb/io/response_writer.hpp"
