// Parsing of the trace header's parts (operator, buffer sizes) from JSON.
// Shared by the trace reader and by importers that take operator parameters
// from a side file (stlog.md §6).
#pragma once

#include <simdjson.h>

#include <string>

#include "model/trace.h"

namespace cc {

// A JSON value that may be absent: an object's field looked up by name.
struct JsonField : simdjson::dom::element {
  bool present = false;
  JsonField& operator=(simdjson::dom::element e) {
    simdjson::dom::element::operator=(e);
    present = true;
    return *this;
  }
  bool is_valid() const { return present; }
};

// Each returns "" on success, else what is wrong (without FILE:LINE).
std::string parse_op(simdjson::dom::element e, Op& op);
std::string parse_buffers(simdjson::dom::element e, Trace& t);
std::string parse_rank_buffers(simdjson::dom::element e, Trace& t);

// Copies of an element's object/array view (never iterate a temporary
// simdjson_result: its storage ends with the full expression).
inline simdjson::dom::object as_object(simdjson::dom::element e) {
  simdjson::dom::object o;
  if (e.get_object().get(o)) return {};
  return o;
}
inline simdjson::dom::array as_array(simdjson::dom::element e) {
  simdjson::dom::array a;
  if (e.get_array().get(a)) return {};
  return a;
}

// Checks a buffer type name against [A-Z][A-Z0-9_]*.
bool valid_buffer_name(std::string_view s);

// Helpers for reading typed JSON values with messages naming the key.
std::string get_u64(simdjson::dom::element e, std::string_view key, u64& out);
std::string get_u32(simdjson::dom::element e, std::string_view key, u32& out);
std::string get_string(simdjson::dom::element e, std::string_view key, std::string_view& out);

}  // namespace cc
