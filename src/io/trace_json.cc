#include "io/trace_json.h"

#include <fmt/format.h>

#include <charconv>

namespace cc {

using simdjson::dom::element;

bool valid_buffer_name(std::string_view s) {
  if (s.empty() || s[0] < 'A' || s[0] > 'Z') return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

namespace {

Status get_u64_array(element e, std::string_view key, std::size_t n, std::vector<u64>& out) {
  simdjson::dom::array a;
  if (e.get_array().get(a)) return Error{fmt::format("\"{}\" must be an array", key)};
  if (a.size() != n)
    return Error{fmt::format("\"{}\" must have {} entries (one per rank), has {}", key, n, a.size())};
  out.clear();
  out.reserve(n);
  for (element v : a) {
    u64 x = 0;
    CC_TRY(get_u64(v, key, x));
    out.push_back(x);
  }
  return {};
}

Status parse_items(element e, Op& op) {
  simdjson::dom::array a;
  if (e.get_array().get(a)) return Error{"\"items\" must be an array"};
  for (element it : a) {
    if (!it.is_object()) return Error{"each of \"items\" must be an object {\"src\",\"dst\",\"count\"}"};
    JsonField src_f, dst_f, count_f;
    CC_TRY(read_fields(it, {{"src", &src_f, kRequired}, {"dst", &dst_f, kRequired}, {"count", &count_f, kRequired}},
                       {"an item"}));
    SendRecvItem item;
    u64 src = 0, dst = 0;
    CC_TRY(get_u64(src_f, "src", src));
    CC_TRY(get_u64(dst_f, "dst", dst));
    CC_TRY(get_u64(count_f, "count", item.count));
    // A rank outside the operator is a 405 finding, not a format error:
    // keep it, clamped into 32 bits, for the semantic stage to report.
    item.src = src > 0xffffffffu ? kNone : static_cast<u32>(src);
    item.dst = dst > 0xffffffffu ? kNone : static_cast<u32>(dst);
    op.items.push_back(item);
  }
  return {};
}

}  // namespace

Status parse_op(element e, Op& op) {
  if (!e.is_object()) return Error{"\"op\" must be an object"};
  JsonField type, ranks, dtype, count, reduce, root, counts, displs, send_counts, items, in_place;
  CC_TRY(read_fields(e,
                     {{"type", &type, kRequired}, {"ranks", &ranks, kRequired}, {"dataType", &dtype},
                      {"count", &count}, {"reduceOp", &reduce}, {"root", &root}, {"counts", &counts},
                      {"displs", &displs}, {"sendCounts", &send_counts}, {"items", &items}, {"inPlace", &in_place}},
                     {"\"op\""}));
  auto missing = [](std::string_view k) { return Error{fmt::format("\"op\" lacks \"{}\"", k)}; };
  std::string_view s;
  CC_TRY(get_string(type, "type", s));
  // "Unknown": only the rank count is known (a converted ST log without
  // operator parameters, stlog.md §6); the semantic stage is skipped.
  bool known = s != "Unknown";
  auto t = parse_op_type(s);
  if (!t && known) return Error{fmt::format("unknown operator \"{}\"", s)};
  if (t) op.type = *t;
  op.known = known;

  u64 n = 0;
  CC_TRY(get_u64(ranks, "ranks", n));
  if (n == 0) return Error{"\"ranks\" must be at least 1"};
  if (n > kMaxRanks)
    return Error{fmt::format("\"ranks\" {} is more than collcheck supports ({})", n, kMaxRanks)};
  op.ranks = static_cast<u32>(n);
  if (!known) return {};

  if (!dtype.is_valid()) return missing("dataType");
  CC_TRY(get_string(dtype, "dataType", s));
  auto dt = parse_data_type(s);
  if (!dt) return Error{fmt::format("unknown data type \"{}\"", s)};
  op.data_type = *dt;

  if (op_has_count(op.type)) {
    if (!count.is_valid()) return missing("count");
    CC_TRY(get_u64(count, "count", op.count));
  }
  if (reduce.is_valid()) {
    CC_TRY(get_string(reduce, "reduceOp", s));
    auto r = parse_reduce_op(s);
    if (!r) return Error{fmt::format("unknown reduce op \"{}\"", s)};
    op.reduce_op = *r;
    op.has_reduce_op = true;
  }
  if (op_has_root(op.type)) {
    if (!root.is_valid()) return missing("root");
    u64 r = 0;
    CC_TRY(get_u64(root, "root", r));
    op.root = r > 0xffffffffu ? kNone : static_cast<u32>(r);  // out of range: 405
  }
  if (op.type == OpType::AllGatherV || op.type == OpType::ReduceScatterV) {
    if (!counts.is_valid()) return missing("counts");
    CC_TRY(get_u64_array(counts, "counts", n, op.counts));
    if (displs.is_valid()) {
      CC_TRY(get_u64_array(displs, "displs", n, op.displs));
      op.displs_given = true;
    } else {
      op.displs.assign(n, 0);
      u64 sum = 0;
      for (u64 q = 0; q < n; ++q) {
        op.displs[q] = sum;
        auto next = checked_add(sum, op.counts[q]);
        if (!next) return Error{"\"counts\" overflow 64 bits"};
        sum = *next;
      }
    }
  }
  if (op.type == OpType::AllToAllV) {
    if (!send_counts.is_valid()) return missing("sendCounts");
    simdjson::dom::array rows;
    if (send_counts.get_array().get(rows)) return Error{"\"sendCounts\" must be an array of arrays"};
    if (rows.size() != n)
      return Error{fmt::format("\"sendCounts\" must have {} rows, has {}", n, rows.size())};
    std::vector<u64> row;
    for (element r : rows) {
      CC_TRY(get_u64_array(r, "sendCounts", n, row));
      op.send_counts.insert(op.send_counts.end(), row.begin(), row.end());
    }
  }
  if (op.type == OpType::SendRecv || op.type == OpType::BatchSendRecv) {
    if (!items.is_valid()) return missing("items");
    CC_TRY(parse_items(items, op));
    if (op.type == OpType::SendRecv && op.items.size() != 1)
      return Error{fmt::format("SendRecv has exactly one item, found {}", op.items.size())};
  }
  if (in_place.is_valid()) {
    bool b = false;
    CC_TRY(get_bool(in_place, "inPlace", b));
    if (b && !in_place_allowed(op.type))
      return Error{fmt::format("\"inPlace\" is allowed only for AllReduce, Broadcast and Reduce, not {}",
                         name(op.type))};
    op.in_place = b;
  }
  return {};
}

namespace {

Status parse_size_table(element e, std::string_view what, Trace& t, bool per_rank, u32 rank) {
  simdjson::dom::object o;
  if (e.get_object().get(o)) return Error{fmt::format("\"{}\" must be an object", what)};
  for (auto [k, v] : o) {
    if (!valid_buffer_name(k))
      return Error{fmt::format("buffer type \"{}\" in \"{}\" must match [A-Z][A-Z0-9_]*", k, what)};
    u64 size = 0;
    CC_TRY(get_u64(v, k, size));
    if (size == BufferSizes::kUndeclared) size = BufferSizes::kWhole;  // 2^64-1 bytes: see kWhole
    BufId id = t.buffers.intern(k);
    if (id == kNoBuf) return Error{"too many buffer types"};
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

Status parse_buffers(element e, Trace& t) { return parse_size_table(e, "buffers", t, false, 0); }

Status parse_rank_buffers(element e, Trace& t) {
  simdjson::dom::object o;
  if (e.get_object().get(o)) return Error{"\"rankBuffers\" must be an object"};
  for (auto [k, v] : o) {
    u64 rank = 0;
    auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), rank);
    if (ec != std::errc() || p != k.data() + k.size() || k.empty())
      return Error{fmt::format("\"rankBuffers\" key \"{}\" must be a rank number", k)};
    if (rank >= t.op.ranks)
      return Error{fmt::format("\"rankBuffers\" names rank {}, outside the operator's {} ranks", rank,
                         t.op.ranks)};
    CC_TRY(parse_size_table(v, "rankBuffers", t, true, static_cast<u32>(rank)));
  }
  return {};
}

}  // namespace cc
