#include "export/jsonl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <map>

#include "model/ccu_word.h"
#include "io/jsonl/carried.h"
#include "io/jsonl/reader.h"
#include "text/json.h"

namespace cc {

namespace {

void append_u64_array(std::string& out, const u64* v, std::size_t n) {
  out += '[';
  for (std::size_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(out), "{}{}", i ? "," : "", v[i]);
  out += ']';
}

void append_op(std::string& out, const Op& op) {
  auto it = std::back_inserter(out);
  if (!op.known) {
    fmt::format_to(it, "{{\"type\":\"Unknown\",\"ranks\":{}}}", op.ranks);
    return;
  }
  fmt::format_to(it, "{{\"type\":\"{}\",\"ranks\":{},\"dataType\":\"{}\"", name(op.type), op.ranks,
                 name(op.data_type));
  if (op_has_count(op.type)) fmt::format_to(it, ",\"count\":{}", op.count);
  if (op_reduces(op.type) || op.has_reduce_op) fmt::format_to(it, ",\"reduceOp\":\"{}\"", name(op.reduce_op));
  if (op_has_root(op.type)) fmt::format_to(it, ",\"root\":{}", op.root);
  if (op.type == OpType::AllGatherV || op.type == OpType::ReduceScatterV) {
    out += ",\"counts\":";
    append_u64_array(out, op.counts.data(), op.counts.size());
    if (op.displs_given) {
      out += ",\"displs\":";
      append_u64_array(out, op.displs.data(), op.displs.size());
    }
  }
  if (op.type == OpType::AllToAllV) {
    out += ",\"sendCounts\":[";
    for (u32 i = 0; i < op.ranks; ++i) {
      if (i) out += ',';
      append_u64_array(out, op.send_counts.data() + u64{i} * op.ranks, op.ranks);
    }
    out += ']';
  }
  if (op.type == OpType::SendRecv || op.type == OpType::BatchSendRecv) {
    out += ",\"items\":[";
    for (std::size_t i = 0; i < op.items.size(); ++i)
      fmt::format_to(it, "{}{{\"src\":{},\"dst\":{},\"count\":{}}}", i ? "," : "",
                     static_cast<u64>(op.items[i].src), static_cast<u64>(op.items[i].dst),
                     op.items[i].count);
    out += ']';
  }
  if (op.in_place) out += ",\"inPlace\":true";
  out += '}';
}

// Slice `i`, with the length its source recorded when that was larger.
void append_slice(std::string& out, const Trace& t, u32 i) {
  const Slice& s = t.slices[i];
  fmt::format_to(std::back_inserter(out), "{{\"rank\":{},\"type\":\"{}\",\"offset\":{},\"len\":{}",
                 static_cast<u64>(s.rank), t.buffers.name(s.buf), s.offset, s.len);
  if (!t.recorded_lens.empty())
    if (auto rec = t.recorded_len(i)) fmt::format_to(std::back_inserter(out), ",\"recordedLen\":{}", *rec);
  out += '}';
}

}  // namespace

std::string jsonl_op(const Op& op) {
  std::string out;
  append_op(out, op);
  return out;
}

void append_buffer_sizes(std::string& out, const Trace& t, const std::vector<std::string>& names) {
  bool any = false;
  for (std::size_t b = 0; b < t.sizes.declared.size() && b < names.size(); ++b) {
    if (t.sizes.declared[b] == BufferSizes::kUndeclared || names[b].empty() || t.aiv.is_own_buffer(b)) continue;
    out += any ? "," : ",\"buffers\":{";
    fmt::format_to(std::back_inserter(out), "\"{}\":{}", names[b], t.sizes.declared[b]);
    any = true;
  }
  if (any) out += '}';
  if (!t.sizes.per_rank.empty()) {
    // Group by rank, in rank order, for stable output.
    std::map<u32, std::map<std::string, u64>> by_rank;
    for (auto [key, size] : t.sizes.per_rank)
      if ((key & 0xffff) < names.size()) by_rank[static_cast<u32>(key >> 16)][names[key & 0xffff]] = size;
    out += ",\"rankBuffers\":{";
    bool first_rank = true;
    for (const auto& [rank, sizes] : by_rank) {
      fmt::format_to(std::back_inserter(out), "{}\"{}\":{{", first_rank ? "" : ",", rank);
      bool first = true;
      for (const auto& [buf, size] : sizes) {
        fmt::format_to(std::back_inserter(out), "{}\"{}\":{}", first ? "" : ",", buf, size);
        first = false;
      }
      out += '}';
      first_rank = false;
    }
    out += '}';
  }
}

namespace {

bool has_ccu_data(const Trace& t) {
  const CcuData& c = t.ccu;
  return !c.sqes.empty() || !c.images.empty() || !c.channels.empty() || !c.addresses.empty() ||
         !c.die_bases.empty();
}

}  // namespace

namespace {

// Whether the trace has AIV data to write (format version 2).
bool has_aiv_data(const Trace& t) { return t.aiv.has_input(); }

// `,"launch":L` of an AIV_GRAPH task.
void append_aiv_task_fields(const Trace& t, const Task& k, std::string& out) {
  if (k.notify() < t.aiv.records.size()) out += fmt::format(",\"launch\":{}", t.aiv.records[k.notify()].launch);
}

}  // namespace

std::string jsonl_aiv_lines(const Trace& t) {
  std::vector<const AivSnapshot*> order;
  for (const AivSnapshot& s : t.aiv.snapshots) order.push_back(&s);
  std::sort(order.begin(), order.end(), [](const AivSnapshot* a, const AivSnapshot* b) {
    return std::pair(a->rank, a->launch) < std::pair(b->rank, b->launch);
  });
  std::string out;
  for (const AivSnapshot* s : order) out += "{\"aiv\":" + s->json + "}\n";
  return out;
}

std::string jsonl_ccu_lines(const Trace& t) {
  std::string out;
  auto it = std::back_inserter(out);
  for (const CcuImage& img : t.ccu.images) {
    u32 end = img.blocks.empty() ? 0 : img.blocks.back().start +
                                           static_cast<u32>(img.blocks.back().bytes.size() / kCcuWordBytes);
    // One line per block; an image without words still gets one line.
    std::size_t lines = std::max<std::size_t>(1, img.blocks.size());
    for (std::size_t b = 0; b < lines; ++b) {
      const CcuWordBlock* blk = b < img.blocks.size() ? &img.blocks[b] : nullptr;
      fmt::format_to(it, "{{\"ccu\":\"image\",\"rank\":{},\"die\":{},\"start\":{}", img.rank, img.die,
                     blk ? blk->start : 0);
      if (b == 0 && img.size != end) fmt::format_to(it, ",\"size\":{}", img.size);
      out += ",\"words\":[";
      for (std::size_t at = 0; blk && at + kCcuWordBytes <= blk->bytes.size(); at += kCcuWordBytes) {
        ccu::Word w;
        std::copy_n(blk->bytes.begin() + static_cast<std::ptrdiff_t>(at), kCcuWordBytes, w.b.begin());
        fmt::format_to(it, "{}\"{}\"", at ? "," : "", ccu::word_hex(w));
      }
      out += "]}\n";
    }
  }
  for (const CcuChannel& c : t.ccu.channels)
    fmt::format_to(it, "{{\"ccu\":\"channel\",\"rank\":{},\"die\":{},\"channelId\":{},\"dstRank\":{},\"dstDie\":{}}}\n",
                   c.rank, c.die, c.channel, c.peer_rank, c.peer_die);
  for (const CcuAddress& a : t.ccu.addresses)
    fmt::format_to(it, "{{\"ccu\":\"address\",\"rank\":{},\"type\":\"{}\",\"addr\":{}}}\n", a.rank,
                   t.buffers.name(a.buf), a.addr);
  for (const CcuDieBase& d : t.ccu.die_bases)
    fmt::format_to(it, "{{\"ccu\":\"dieBase\",\"rank\":{},\"die\":{},\"base\":{}}}\n", d.rank, d.die, d.base);
  return out;
}

std::string jsonl_header(const Trace& t, const std::vector<Finding>& carried) {
  bool ccu = has_ccu_data(t) || has_aiv_data(t);
  std::string out = fmt::format("{{\"format\":\"collcheck-trace\",\"version\":{}", ccu ? kTraceVersion : 1);
  if (!t.name.empty()) out += ",\"name\":" + json_quote(t.name);
  out += ",\"op\":";
  append_op(out, t.op);
  append_buffer_sizes(out, t, t.buffers.names);
  if (!t.notify_names.empty()) {
    out += ",\"notifyNames\":{";
    for (std::size_t i = 0; i < t.notify_names.size(); ++i)
      out += fmt::format("{}\"{}\":{}", i ? "," : "", t.notify_names[i].first, json_quote(t.notify_names[i].second));
    out += '}';
  }
  if (!t.inexact_notifies.empty()) {
    out += ",\"inexactNotifies\":[";
    for (std::size_t i = 0; i < t.inexact_notifies.size(); ++i)
      out += fmt::format("{}{}", i ? "," : "", t.inexact_notifies[i]);
    out += ']';
  }
  if (!carried.empty()) out += ",\"importFindings\":" + carried_findings_json(t, carried);
  if (!t.task_notes.empty()) out += ",\"taskNotes\":" + task_notes_json(t);
  if (t.unchecked) out += ",\"unchecked\":true";
  if (has_ccu_data(t))
    fmt::format_to(std::back_inserter(out), ",\"ccu\":{{\"isa\":\"{}\"}}", t.ccu.isa == CcuIsa::A6 ? "A6" : "A5");
  out += "}\n";
  return out;
}

void append_jsonl_task(const Trace& t, u32 id, std::string& out) {
  const Task& k = t.tasks[id];
  // Nodes of the CCU and AIV expansions are derived data: the trace keeps its input.
  if (k.flags & (kTaskCcu | kTaskAiv)) return;
  auto it = std::back_inserter(out);
  if (k.type == TaskType::UNKNOWN) {
    // A record that could not become a node: a marker type, with the name
    // it had in its source (if known) as its tag.
    fmt::format_to(it, "{{\"rank\":{},\"stream\":{},\"type\":\"UNKNOWN\"", k.rank, k.stream);
    if (k.tag) out += ",\"tag\":" + json_quote(t.tag_of(k));
    out += "}\n";
    return;
  }
  fmt::format_to(it, "{{\"rank\":{},\"stream\":{},\"type\":\"{}\"", k.rank, k.stream, name(k.type));
  switch (k.type) {
    case TaskType::TRANS_MEM: {
      const Group& g = t.group(k, 0);
      out += ",\"src\":";
      append_slice(out, t, g.first_src);
      out += ",\"dst\":";
      append_slice(out, t, g.dst);
      break;
    }
    case TaskType::BATCH_TRANS_MEM:
      out += ",\"pairs\":[";
      for (u32 i = 0; i < k.group_count(); ++i) {
        const Group& g = t.group(k, i);
        out += i ? ",{\"src\":" : "{\"src\":";
        append_slice(out, t, g.first_src);
        out += ",\"dst\":";
        append_slice(out, t, g.dst);
        out += '}';
      }
      out += ']';
      break;
    case TaskType::REDUCE:
    case TaskType::BATCH_REDUCE: {
      auto group = [&](const Group& g) {
        out += "\"srcs\":[";
        for (u32 s = 0; s < g.src_count; ++s) {
          if (s) out += ',';
          append_slice(out, t, g.first_src + s);
        }
        out += "],\"dst\":";
        append_slice(out, t, g.dst);
      };
      if (k.type == TaskType::REDUCE) {
        out += ',';
        group(t.group(k, 0));
      } else {
        out += ",\"groups\":[";
        for (u32 i = 0; i < k.group_count(); ++i) {
          out += i ? ",{" : "{";
          group(t.group(k, i));
          out += '}';
        }
        out += ']';
      }
      if (k.data_type != t.op.data_type || !t.op.known)
        fmt::format_to(it, ",\"dataType\":\"{}\"", name(k.data_type));
      if (k.reduce_op != t.op.reduce_op || !op_reduces(t.op.type) || !t.op.known)
        fmt::format_to(it, ",\"reduceOp\":\"{}\"", name(k.reduce_op));
      break;
    }
    case TaskType::RECORD:
      fmt::format_to(it, ",\"waitRank\":{},\"notifyId\":{}", static_cast<u64>(k.peer()), k.notify());
      break;
    case TaskType::WAIT:
      fmt::format_to(it, ",\"recordRank\":{},\"notifyId\":{}", static_cast<u64>(k.peer()), k.notify());
      break;
    case TaskType::CCU_GRAPH: {
      if (k.notify() >= t.ccu.sqes.size()) break;
      const CcuSqe& q = t.ccu.sqes[k.notify()];
      fmt::format_to(it, ",\"dieId\":{},\"missionId\":{},\"instStartId\":{},\"instCnt\":{}", q.die, q.mission,
                     q.inst_start, q.inst_count);
      u32 n = std::min(q.arg_size, kCcuSqeArgs);
      out += ",\"args\":";
      append_u64_array(out, q.args, n);
      if (q.arg_size != n) fmt::format_to(it, ",\"argSize\":{}", q.arg_size);
      if (q.timeout) fmt::format_to(it, ",\"timeout\":{}", q.timeout);
      if (q.key) fmt::format_to(it, ",\"key\":{}", q.key);
      break;
    }
    case TaskType::AIV_GRAPH:
      append_aiv_task_fields(t, k, out);
      break;
    case TaskType::UNKNOWN:
      break;
  }
  if (k.link != Link::NONE && k.type != TaskType::CCU_GRAPH && k.type != TaskType::AIV_GRAPH) fmt::format_to(it, ",\"link\":\"{}\"", name(k.link));
  if (k.tag) out += ",\"tag\":" + json_quote(t.tag_of(k));
  if (k.flags & kTaskNotifyIndexLost) out += ",\"notifyIndexLost\":true";
  out += "}\n";
}

std::string jsonl_task(const Trace& t, u32 id) {
  std::string out;
  append_jsonl_task(t, id, out);
  return out;
}

Status write_jsonl(const Trace& t, std::FILE* f, const std::vector<Finding>& carried) {
  std::string buf = jsonl_header(t, carried) + jsonl_ccu_lines(t) + jsonl_aiv_lines(t);
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    append_jsonl_task(t, id, buf);
    if (buf.size() > (1u << 20)) {
      if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) return Error{std::strerror(errno)};
      buf.clear();
    }
  }
  if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) return Error{std::strerror(errno)};
  return {};
}

Status write_jsonl_file(const Trace& t, const std::string& path, const std::vector<Finding>& carried) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Error{fmt::format("cannot write {}: {}", path, std::strerror(errno))};
  Status st = write_jsonl(t, f, carried);
  if (std::fclose(f) != 0 && st) st = Error{std::strerror(errno)};
  if (!st) return Error{fmt::format("cannot write {}: {}", path, st.message())};
  return {};
}

std::string to_jsonl(const Trace& t, const std::vector<Finding>& carried) {
  std::string out = jsonl_header(t, carried) + jsonl_ccu_lines(t) + jsonl_aiv_lines(t);
  for (u32 id = 0; id < t.tasks.size(); ++id) append_jsonl_task(t, id, out);
  return out;
}

}  // namespace cc
