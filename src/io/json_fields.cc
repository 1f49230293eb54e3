#include "io/json_fields.h"

#include <fmt/format.h>

namespace cc {

using simdjson::dom::element;
using simdjson::dom::element_type;

Status read_fields(element e, std::span<const FieldRule> table, FieldOwner owner) {
  // A linear scan per key: tables have a dozen rows at most, and on the
  // hot path (one task line) this is as fast as the if-chains it replaced.
  for (auto [k, v] : as_object(e))
    for (const FieldRule& r : table)
      if (r.key == k) {
        *r.value = v;
        break;
      }
  for (const FieldRule& r : table)
    if (r.required && !r.value->is_valid()) {
      if (owner.name.empty()) return Error{fmt::format("{} lacks \"{}\"", owner.kind, r.key)};
      return Error{fmt::format("{} \"{}\" lacks \"{}\"", owner.kind, owner.name, r.key)};
    }
  return {};
}

Status get_u64(element e, std::string_view key, u64& out) {
  if (e.get_uint64().get(out) == simdjson::SUCCESS) return {};
  if (e.type() == element_type::INT64) return Error{fmt::format("\"{}\" must not be negative", key)};
  return Error{fmt::format("\"{}\" must be an unsigned integer (at most 2^64-1)", key)};
}

Status get_u32(element e, std::string_view key, u32& out) {
  u64 v = 0;
  CC_TRY(get_u64(e, key, v));
  if (v > 0xffffffffu) return Error{fmt::format("\"{}\" {} does not fit in 32 bits", key, v)};
  out = static_cast<u32>(v);
  return {};
}

Status get_string(element e, std::string_view key, std::string_view& out) {
  if (e.get_string().get(out) == simdjson::SUCCESS) return {};
  return Error{fmt::format("\"{}\" must be a string", key)};
}

Status get_bool(element e, std::string_view key, bool& out) {
  if (e.get_bool().get(out) == simdjson::SUCCESS) return {};
  return Error{fmt::format("\"{}\" must be true or false", key)};
}

}  // namespace cc
