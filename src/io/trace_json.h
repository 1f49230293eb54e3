// Parsing of the trace header's parts (operator, buffer sizes) from JSON.
// Shared by the trace reader and by importers that take operator parameters
// from a side file (stlog.md §6).
#pragma once

#include <simdjson.h>

#include <string>

#include "io/json_fields.h"
#include "model/result.h"
#include "model/trace.h"

namespace cc {

// Each fails with what is wrong (the caller adds FILE:LINE).
Status parse_op(simdjson::dom::element e, Op& op);
Status parse_buffers(simdjson::dom::element e, Trace& t);
Status parse_rank_buffers(simdjson::dom::element e, Trace& t);

// Checks a buffer type name against [A-Z][A-Z0-9_]*.
bool valid_buffer_name(std::string_view s);

}  // namespace cc
