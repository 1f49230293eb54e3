#include "io/trace_json.h"

#include <fmt/format.h>

#include <charconv>

namespace cc {

using simdjson::dom::element;
using simdjson::dom::element_type;

std::string get_u64(element e, std::string_view key, u64& out) {
  if (e.get_uint64().get(out) == simdjson::SUCCESS) return {};
  if (e.type() == element_type::INT64) return fmt::format("\"{}\" must not be negative", key);
  return fmt::format("\"{}\" must be an unsigned integer (at most 2^64-1)", key);
}

std::string get_u32(element e, std::string_view key, u32& out) {
  u64 v = 0;
  std::string err = get_u64(e, key, v);
  if (!err.empty()) return err;
  if (v > 0xffffffffu) return fmt::format("\"{}\" {} does not fit in 32 bits", key, v);
  out = static_cast<u32>(v);
  return {};
}

std::string get_string(element e, std::string_view key, std::string_view& out) {
  if (e.get_string().get(out) == simdjson::SUCCESS) return {};
  return fmt::format("\"{}\" must be a string", key);
}

bool valid_buffer_name(std::string_view s) {
  if (s.empty() || s[0] < 'A' || s[0] > 'Z') return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

namespace {

std::string get_u64_array(element e, std::string_view key, std::size_t n, std::vector<u64>& out) {
  simdjson::dom::array a;
  if (e.get_array().get(a)) return fmt::format("\"{}\" must be an array", key);
  if (a.size() != n)
    return fmt::format("\"{}\" must have {} entries (one per rank), has {}", key, n, a.size());
  out.clear();
  out.reserve(n);
  for (element v : a) {
    u64 x = 0;
    std::string err = get_u64(v, key, x);
    if (!err.empty()) return err;
    out.push_back(x);
  }
  return {};
}

std::string parse_items(element e, Op& op) {
  simdjson::dom::array a;
  if (e.get_array().get(a)) return "\"items\" must be an array";
  for (element it : a) {
    if (!it.is_object()) return "each of \"items\" must be an object {\"src\",\"dst\",\"count\"}";
    SendRecvItem item;
    u64 src = 0, dst = 0;
    bool has[3] = {false, false, false};
    for (auto [k, v] : as_object(it)) {
      std::string err;
      if (k == "src") err = get_u64(v, "src", src), has[0] = true;
      else if (k == "dst") err = get_u64(v, "dst", dst), has[1] = true;
      else if (k == "count") err = get_u64(v, "count", item.count), has[2] = true;
      if (!err.empty()) return err;
    }
    if (!has[0] || !has[1] || !has[2]) return "an item needs \"src\", \"dst\" and \"count\"";
    // A rank outside the operator is a 405 finding, not a format error:
    // keep it, clamped into 32 bits, for the semantic stage to report.
    item.src = src > 0xffffffffu ? kNone : static_cast<u32>(src);
    item.dst = dst > 0xffffffffu ? kNone : static_cast<u32>(dst);
    op.items.push_back(item);
  }
  return {};
}

}  // namespace

std::string parse_op(element e, Op& op) {
  if (!e.is_object()) return "\"op\" must be an object";
  JsonField type, ranks, dtype, count, reduce, root, counts, displs, send_counts, items, in_place;
  for (auto [k, v] : as_object(e)) {
    if (k == "type") type = v;
    else if (k == "ranks") ranks = v;
    else if (k == "dataType") dtype = v;
    else if (k == "count") count = v;
    else if (k == "reduceOp") reduce = v;
    else if (k == "root") root = v;
    else if (k == "counts") counts = v;
    else if (k == "displs") displs = v;
    else if (k == "sendCounts") send_counts = v;
    else if (k == "items") items = v;
    else if (k == "inPlace") in_place = v;
  }
  auto missing = [](std::string_view k) { return fmt::format("\"op\" lacks \"{}\"", k); };
  std::string_view s;
  std::string err;
  if (!type.is_valid()) return missing("type");
  if (!(err = get_string(type, "type", s)).empty()) return err;
  // "Unknown": only the rank count is known (a converted ST log without
  // operator parameters, stlog.md §6); the semantic stage is skipped.
  bool known = s != "Unknown";
  auto t = parse_op_type(s);
  if (!t && known) return fmt::format("unknown operator \"{}\"", s);
  if (t) op.type = *t;
  op.known = known;

  if (!ranks.is_valid()) return missing("ranks");
  u64 n = 0;
  if (!(err = get_u64(ranks, "ranks", n)).empty()) return err;
  if (n == 0) return "\"ranks\" must be at least 1";
  if (n > kMaxRanks)
    return fmt::format("\"ranks\" {} is more than collcheck supports ({})", n, kMaxRanks);
  op.ranks = static_cast<u32>(n);
  if (!known) return {};

  if (!dtype.is_valid()) return missing("dataType");
  if (!(err = get_string(dtype, "dataType", s)).empty()) return err;
  auto dt = parse_data_type(s);
  if (!dt) return fmt::format("unknown data type \"{}\"", s);
  op.data_type = *dt;

  if (op_has_count(op.type)) {
    if (!count.is_valid()) return missing("count");
    if (!(err = get_u64(count, "count", op.count)).empty()) return err;
  }
  if (reduce.is_valid()) {
    if (!(err = get_string(reduce, "reduceOp", s)).empty()) return err;
    auto r = parse_reduce_op(s);
    if (!r) return fmt::format("unknown reduce op \"{}\"", s);
    op.reduce_op = *r;
    op.has_reduce_op = true;
  }
  if (op_has_root(op.type)) {
    if (!root.is_valid()) return missing("root");
    u64 r = 0;
    if (!(err = get_u64(root, "root", r)).empty()) return err;
    op.root = r > 0xffffffffu ? kNone : static_cast<u32>(r);  // out of range: 405
  }
  if (op.type == OpType::AllGatherV || op.type == OpType::ReduceScatterV) {
    if (!counts.is_valid()) return missing("counts");
    if (!(err = get_u64_array(counts, "counts", n, op.counts)).empty()) return err;
    if (displs.is_valid()) {
      if (!(err = get_u64_array(displs, "displs", n, op.displs)).empty()) return err;
      op.displs_given = true;
    } else {
      op.displs.assign(n, 0);
      u64 sum = 0;
      for (u64 q = 0; q < n; ++q) {
        op.displs[q] = sum;
        auto next = checked_add(sum, op.counts[q]);
        if (!next) return "\"counts\" overflow 64 bits";
        sum = *next;
      }
    }
  }
  if (op.type == OpType::AllToAllV) {
    if (!send_counts.is_valid()) return missing("sendCounts");
    simdjson::dom::array rows;
    if (send_counts.get_array().get(rows)) return "\"sendCounts\" must be an array of arrays";
    if (rows.size() != n)
      return fmt::format("\"sendCounts\" must have {} rows, has {}", n, rows.size());
    std::vector<u64> row;
    for (element r : rows) {
      if (!(err = get_u64_array(r, "sendCounts", n, row)).empty()) return err;
      op.send_counts.insert(op.send_counts.end(), row.begin(), row.end());
    }
  }
  if (op.type == OpType::SendRecv || op.type == OpType::BatchSendRecv) {
    if (!items.is_valid()) return missing("items");
    if (!(err = parse_items(items, op)).empty()) return err;
    if (op.type == OpType::SendRecv && op.items.size() != 1)
      return fmt::format("SendRecv has exactly one item, found {}", op.items.size());
  }
  if (in_place.is_valid()) {
    bool b;
    if (in_place.get_bool().get(b)) return "\"inPlace\" must be true or false";
    if (b && !in_place_allowed(op.type))
      return fmt::format("\"inPlace\" is allowed only for AllReduce, Broadcast and Reduce, not {}",
                         name(op.type));
    op.in_place = b;
  }
  return {};
}

namespace {

std::string parse_size_table(element e, std::string_view what, Trace& t, bool per_rank, u32 rank) {
  simdjson::dom::object o;
  if (e.get_object().get(o)) return fmt::format("\"{}\" must be an object", what);
  for (auto [k, v] : o) {
    if (!valid_buffer_name(k))
      return fmt::format("buffer type \"{}\" in \"{}\" must match [A-Z][A-Z0-9_]*", k, what);
    u64 size = 0;
    std::string err = get_u64(v, k, size);
    if (!err.empty()) return err;
    BufId id = t.buffers.intern(k);
    if (id == kNoBuf) return "too many buffer types";
    if (per_rank) {
      t.sizes.per_rank[(u64{rank} << 16) | id] = size;
    } else {
      if (t.sizes.declared.size() <= id) t.sizes.declared.resize(id + 1, BufferSizes::kUndeclared);
      t.sizes.declared[id] = size;
    }
  }
  return {};
}

}  // namespace

std::string parse_buffers(element e, Trace& t) { return parse_size_table(e, "buffers", t, false, 0); }

std::string parse_rank_buffers(element e, Trace& t) {
  simdjson::dom::object o;
  if (e.get_object().get(o)) return "\"rankBuffers\" must be an object";
  for (auto [k, v] : o) {
    u64 rank = 0;
    auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), rank);
    if (ec != std::errc() || p != k.data() + k.size() || k.empty())
      return fmt::format("\"rankBuffers\" key \"{}\" must be a rank number", k);
    if (rank >= t.op.ranks)
      return fmt::format("\"rankBuffers\" names rank {}, outside the operator's {} ranks", rank,
                         t.op.ranks);
    std::string err = parse_size_table(v, "rankBuffers", t, true, static_cast<u32>(rank));
    if (!err.empty()) return err;
  }
  return {};
}

}  // namespace cc
