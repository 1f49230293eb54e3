#include "provenance_ref.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace cc::test {

namespace {

// Provenance of one byte: sorted contributions (rank << 40 | INPUT offset),
// the op that combined them (when more than one), and whether the
// combination was already wrong (double contribution, mixed ops).
struct Prov {
  std::vector<u64> c;
  int op = -1;
  bool bad = false;
  bool operator==(const Prov&) const = default;
};

u64 contrib(u32 rank, u64 off) { return u64{rank} << 40 | off; }

// One buffer of one rank: only the byte ranges some task touches (and the
// INPUT the operator fills) are kept, back to back, so that HCCL's chunks
// 25 MiB apart in a 200 MiB CCL buffer cost their own bytes only. A byte
// outside them holds nothing.
class Region {
 public:
  void add(u64 begin, u64 end) {
    if (begin < end) ranges_.push_back({begin, end});
  }
  // Merges the ranges and allocates their bytes; returns how many.
  u64 finish() {
    std::sort(ranges_.begin(), ranges_.end());
    std::vector<std::pair<u64, u64>> merged;
    for (const auto& r : ranges_) {
      if (!merged.empty() && r.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, r.second);
      else
        merged.push_back(r);
    }
    ranges_ = std::move(merged);
    u64 n = 0;
    for (const auto& r : ranges_) base_.push_back(n), n += r.second - r.first;
    bytes_.resize(n);
    return n;
  }
  // The byte at `off`, or nullptr if no task touches it.
  Prov* at(u64 off) {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::pair<u64, u64>{off, ~u64{0}});
    if (it == ranges_.begin()) return nullptr;
    --it;
    if (off >= it->second) return nullptr;
    return &bytes_[base_[it - ranges_.begin()] + (off - it->first)];
  }

 private:
  std::vector<std::pair<u64, u64>> ranges_;
  std::vector<u64> base_;
  std::vector<Prov> bytes_;
};

class Sim {
 public:
  Sim(const Trace& t, ProvenanceOutcome& out) : t_(t), out_(out) {}

  // Every rank's INPUT holds its own data as far as the operator defines
  // it (the buffer may be larger: an ST dump's framework sizes).
  u64 filled_input(u32 r) const {
    bool root_only = t_.op.type == OpType::Broadcast || t_.op.type == OpType::Scatter;
    if (root_only && r != t_.op.root) return 0;
    u64 size = t_.buffer_size(r, kInput), implied = t_.implied_size(r, kInput);
    if (size == BufferSizes::kUndeclared) return 0;
    return implied == BufferSizes::kUndeclared ? size : std::min(size, implied);
  }

  bool init(u64 max_bytes) {
    for (u32 r = 0; r < t_.op.ranks; ++r) mem_[{r, kInput}].add(0, filled_input(r));
    for (const Slice& s : t_.slices)
      if (addressable(s)) mem_[{s.rank, s.buf}].add(s.offset, s.offset + s.len);
    u64 total = 0;
    for (auto& [key, region] : mem_) {
      total += region.finish();
      if (total > max_bytes) return false;
    }
    for (u32 r = 0; r < t_.op.ranks; ++r)
      for (u64 x = 0, n = filled_input(r); x < n; ++x) mem_[{r, kInput}].at(x)->c = {contrib(r, x)};
    return true;
  }

  bool addressable(const Slice& s) const {
    u64 size = t_.buffer_size(s.rank, s.buf);
    return size != BufferSizes::kUndeclared && s.offset <= size && s.len <= size - s.offset;
  }

  // The region of a slice inside its buffer, or nullptr.
  Region* buf(const Slice& s) {
    if (!addressable(s)) return nullptr;
    auto it = mem_.find({s.rank, s.buf});
    return it == mem_.end() ? nullptr : &it->second;
  }

  void problem(u64& counter, std::string what) {
    if (out_.first_problems.size() < 8) out_.first_problems.push_back(std::move(what));
    ++counter;
  }

  void apply(u32 id) {
    const Task& k = t_.tasks[id];
    if (!is_data_task(k.type)) return;
    bool red = is_reduce_task(k.type);
    // All sources of one task are read before any destination is written.
    std::vector<std::vector<std::vector<Prov>>> read(k.group_count());
    for (u32 gi = 0; gi < k.group_count(); ++gi) {
      const Group& g = t_.group(k, gi);
      for (u32 i = 0; i < g.src_count; ++i) {
        const Slice& s = t_.slices[g.first_src + i];
        Region* m = buf(s);
        if (!m) return;
        std::vector<Prov>& bytes = read[gi].emplace_back(s.len);
        for (u64 x = 0; x < s.len; ++x) bytes[x] = *m->at(s.offset + x);
      }
    }
    for (u32 gi = 0; gi < k.group_count(); ++gi) {
      const Slice& d = t_.slices[t_.group(k, gi).dst];
      Region* m = buf(d);
      if (!m) return;
      for (const std::vector<Prov>& src : read[gi]) {
        if (src.size() != d.len) return;
        for (u64 x = 0; x < d.len; ++x) {
          Prov& dst = *m->at(d.offset + x);
          if (!red) {
            if (src[x].c.empty()) problem(out_.empty_reads, fmt::format("task {} reads empty bytes", id));
            dst = src[x];
            continue;
          }
          if (dst.c.empty() || src[x].c.empty()) {
            problem(out_.reduce_errors, fmt::format("task {} reduces with an empty side at {}", id, x));
            dst.bad = true;
          }
          int op = static_cast<int>(k.reduce_op);
          Prov r;
          std::set_union(dst.c.begin(), dst.c.end(), src[x].c.begin(), src[x].c.end(), std::back_inserter(r.c));
          r.bad = dst.bad || src[x].bad || r.c.size() != dst.c.size() + src[x].c.size() ||
                  (dst.op >= 0 && dst.op != op) || (src[x].op >= 0 && src[x].op != op);
          if (r.bad && !dst.bad && !src[x].bad)
            problem(out_.reduce_errors, fmt::format("task {} double or mixed contribution", id));
          r.op = op;
          dst = std::move(r);
        }
      }
    }
  }

  // Final comparison of checks.md's table.
  void compare() {
    const Op& op = t_.op;
    u32 n = op.ranks;
    u64 u = op.elem_size(), d = op.count * u;
    int rop = static_cast<int>(op.reduce_op);
    BufId res = op.in_place ? kInput : kOutput;
    auto want = [&](u32 r, u64 at, std::vector<u64> c, int cop) {
      Prov p;
      p.c = std::move(c);
      std::sort(p.c.begin(), p.c.end());
      p.op = p.c.size() > 1 ? cop : -1;
      out_.wrong_at.push_back({r, at});  // popped below when the byte is right
      u64 size = t_.buffer_size(r, res);
      if (size == BufferSizes::kUndeclared || at >= size)
        return problem(out_.wrong_bytes, fmt::format("rank {} result [{}] out of range", r, at));
      auto region = mem_.find({r, res});
      Prov* byte = region == mem_.end() ? nullptr : region->second.at(at);
      Prov got = byte ? *byte : Prov{};
      if (got.c.size() <= 1) got.op = -1;
      if (!(got == p)) problem(out_.wrong_bytes, fmt::format("rank {} result byte {} wrong", r, at));
      else out_.wrong_at.pop_back();
    };
    auto all = [&](u64 off) {
      std::vector<u64> c;
      for (u32 q = 0; q < n; ++q) c.push_back(contrib(q, off));
      return c;
    };
    switch (op.type) {
      case OpType::AllReduce:
        for (u32 r = 0; r < n; ++r)
          for (u64 x = 0; x < d; ++x) want(r, x, all(x), rop);
        break;
      case OpType::Reduce:
        for (u64 x = 0; x < d; ++x) want(op.root, x, all(x), rop);
        break;
      case OpType::AllGather:
        for (u32 r = 0; r < n; ++r)
          for (u32 q = 0; q < n; ++q)
            for (u64 x = 0; x < d; ++x) want(r, q * d + x, {contrib(q, x)}, -1);
        break;
      case OpType::Gather:
        for (u32 q = 0; q < n; ++q)
          for (u64 x = 0; x < d; ++x) want(op.root, q * d + x, {contrib(q, x)}, -1);
        break;
      case OpType::ReduceScatter:
        for (u32 r = 0; r < n; ++r)
          for (u64 x = 0; x < d; ++x) want(r, x, all(r * d + x), rop);
        break;
      case OpType::Broadcast:
        for (u32 r = 0; r < n; ++r)
          for (u64 x = 0; x < d; ++x) want(r, x, {contrib(op.root, x)}, -1);
        break;
      case OpType::Scatter:
        for (u32 r = 0; r < n; ++r)
          for (u64 x = 0; x < d; ++x) want(r, x, {contrib(op.root, r * d + x)}, -1);
        break;
      case OpType::AllGatherV:  // displacements honoured (checks.md)
        for (u32 r = 0; r < n; ++r)
          for (u32 q = 0; q < n; ++q)
            for (u64 x = 0; x < op.counts[q] * u; ++x) want(r, op.displs[q] * u + x, {contrib(q, x)}, -1);
        break;
      case OpType::ReduceScatterV:
        for (u32 r = 0; r < n; ++r)
          for (u64 x = 0; x < op.counts[r] * u; ++x) want(r, x, all(op.displs[r] * u + x), rop);
        break;
      case OpType::AllToAll:
      case OpType::AllToAllV: {
        auto m = [&](u32 i, u32 j) { return op.type == OpType::AllToAll ? op.count : op.send_counts[u64{i} * n + j]; };
        for (u32 r = 0; r < n; ++r) {
          u64 at = 0;
          for (u32 q = 0; q < n; ++q) {
            u64 from = 0;
            for (u32 j = 0; j < r; ++j) from += m(q, j) * u;
            for (u64 x = 0; x < m(q, r) * u; ++x) want(r, at + x, {contrib(q, from + x)}, -1);
            at += m(q, r) * u;
          }
        }
        break;
      }
      case OpType::SendRecv:
      case OpType::BatchSendRecv: {
        std::map<u32, u64> sent, recvd;
        for (const SendRecvItem& it : op.items) {
          for (u64 x = 0; x < it.count * u; ++x)
            want(it.dst, recvd[it.dst] + x, {contrib(it.src, sent[it.src] + x)}, -1);
          sent[it.src] += it.count * u;
          recvd[it.dst] += it.count * u;
        }
        break;
      }
    }
  }

 private:
  const Trace& t_;
  ProvenanceOutcome& out_;
  std::map<std::pair<u32, BufId>, Region> mem_;
};

}  // namespace

ProvenanceOutcome reference_provenance(const Trace& t, const TaskGraph& g, u64 max_bytes) {
  ProvenanceOutcome out;
  if (!g.complete) return out;
  Sim sim(t, out);
  if (!sim.init(max_bytes)) return out;
  out.ran = true;
  for (u32 id : g.order) sim.apply(id);
  sim.compare();
  return out;
}

}  // namespace cc::test
