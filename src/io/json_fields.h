// Reading JSON objects through a small table of their fields, and typed
// values with messages that name the key. Every JSON reader of collcheck
// (trace lines, ST-log parameters, carried findings, CCU lines) goes
// through these, so a missing key or a wrong type reads the same in every
// input format.
#pragma once

#include <simdjson.h>

#include <initializer_list>
#include <span>
#include <string_view>

#include "model/result.h"
#include "model/types.h"

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

// One row of a field table: the key, where its value goes, and whether the
// object must have it.
struct FieldRule {
  std::string_view key;
  JsonField* value;
  bool required = false;
};
inline constexpr bool kRequired = true;

// Who owns the fields, for "<kind> lacks ..." or "<kind> "<name>" lacks ...".
struct FieldOwner {
  std::string_view kind;
  std::string_view name = {};
};

// One pass over object `e`: each key named in `table` has its value stored;
// other keys are ignored (newer writers may add fields). Fails for the
// first required row, in table order, whose key is absent. `e` must be an
// object (callers say what else it may not be).
Status read_fields(simdjson::dom::element e, std::span<const FieldRule> table, FieldOwner owner);
inline Status read_fields(simdjson::dom::element e, std::initializer_list<FieldRule> table, FieldOwner owner) {
  return read_fields(e, std::span<const FieldRule>(table.begin(), table.size()), owner);
}

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

// Typed values; the error names `key`.
Status get_u64(simdjson::dom::element e, std::string_view key, u64& out);
Status get_u32(simdjson::dom::element e, std::string_view key, u32& out);
Status get_string(simdjson::dom::element e, std::string_view key, std::string_view& out);
Status get_bool(simdjson::dom::element e, std::string_view key, bool& out);

}  // namespace cc
