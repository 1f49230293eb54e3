#include "check/semantic/layout.h"

#include <fmt/format.h>

#include <algorithm>

namespace cc {

namespace {

// u64 products and sums that must not wrap; false when they would.
bool mul_ok(u64 a, u64 b, u64& r) { return !__builtin_mul_overflow(a, b, &r); }

}  // namespace

RequiredLayout::RequiredLayout(const Trace& t, ContribSets& sets, FindingSink& out)
    : t_(t), sets_(sets), out_(out) {
  const Op& op = t.op;
  u64 n = op.ranks, u = op.elem_size(), d = 0;
  std::string_view on = name(op.type);
  if (op_has_root(op.type) && op.root >= op.ranks) {
    report(fmt::format("{} root {} is outside the operator's {} ranks: the result cannot be checked.", on,
                       op.root, op.ranks));
    return;
  }
  if (op_has_count(op.type) && (!mul_ok(op.count, u, d) || (d && n > ~u64{0} / d))) {
    report(fmt::format("{} count {} of {} elements overflows 64-bit byte offsets: the result cannot be checked.",
                       on, op.count, name(op.data_type)));
    return;
  }
  stride_ = d;
  switch (op.type) {
    case OpType::AllGatherV:
    case OpType::ReduceScatterV:
      if (op.counts.size() != n || op.displs.size() != n) {
        report(fmt::format("{} needs {} counts and displacements: the result cannot be checked.", on, n));
        return;
      }
      for (u32 q = 0; q < n; ++q) {
        u64 a, b;
        if (!mul_ok(op.counts[q], u, a) || !mul_ok(op.displs[q], u, b) || b + a < b) {
          report(fmt::format("{} count or displacement of rank {} overflows 64-bit byte offsets: the result "
                             "cannot be checked.", on, q));
          return;
        }
      }
      if (op.type == OpType::AllGatherV) build_gatherv();
      break;
    case OpType::AllToAllV:
      if (op.send_counts.size() != n * n) {
        report(fmt::format("AllToAllV needs a {}x{} sendCounts matrix: the result cannot be checked.", n, n));
        return;
      }
      for (u64 v : op.send_counts)
        if (u64 b; !mul_ok(v, u, b) || b > (u64{1} << 62) / std::max<u64>(n, 1)) {
          report("AllToAllV sendCounts overflow 64-bit byte offsets: the result cannot be checked.");
          return;
        }
      row_prefix_.assign(n, 0);
      break;
    case OpType::SendRecv:
    case OpType::BatchSendRecv:
      build_items();
      break;
    default:
      break;
  }
}

void RequiredLayout::report(std::string message) {
  checkable_ = false;
  if (out_.wants(405)) out_.add(make_finding(405, StageTag::SemanticCheck, std::move(message)));
  else out_.count(405, Severity::Error);
}

void RequiredLayout::build_gatherv() {
  const Op& op = t_.op;
  u64 u = op.elem_size();
  for (u32 q = 0; q < op.ranks; ++q) {
    if (op.counts[q] == 0) continue;
    RequiredBlock b;
    b.begin = op.displs[q] * u;
    b.end = b.begin + op.counts[q] * u;
    b.want.set = sets_.single(q);
    b.want.shift = 0 - b.begin;
    shared_.push_back(b);
  }
  std::sort(shared_.begin(), shared_.end(), [](const RequiredBlock& a, const RequiredBlock& b) {
    return a.begin < b.begin;
  });
  for (std::size_t i = 1; i < shared_.size(); ++i)
    if (shared_[i].begin < shared_[i - 1].end) {
      report(fmt::format("AllGatherV displacements overlap: OUTPUT {} must hold two ranks' data at once; the "
                         "result cannot be checked.",
                         fmt::format("[{:#x},{:#x})", shared_[i].begin, std::min(shared_[i].end, shared_[i - 1].end))));
      shared_.clear();
      return;
    }
}

void RequiredLayout::build_items() {
  const Op& op = t_.op;
  u64 u = op.elem_size();
  std::unordered_map<u32, u64> sent, received;
  for (std::size_t i = 0; i < op.items.size(); ++i) {
    const SendRecvItem& it = op.items[i];
    u64 len;
    if (!mul_ok(it.count, u, len)) {
      report(fmt::format("{} item {} count {} overflows 64-bit byte offsets: the result cannot be checked.",
                         name(op.type), i, it.count));
      by_rank_.clear();
      return;
    }
    bool src_ok = it.src < op.ranks, dst_ok = it.dst < op.ranks;
    if (!src_ok || !dst_ok) {
      // The item is not checked, but its valid end still uses its bytes, so
      // the items after it keep the offsets the user meant.
      if (out_.wants(405))
        out_.add(make_finding(405, StageTag::SemanticCheck,
                              fmt::format("{} item {} (src {}, dst {}, count {}) names rank {}, outside the "
                                          "operator's {} ranks: the item is not checked.",
                                          name(op.type), i, it.src, it.dst, it.count,
                                          src_ok ? it.dst : it.src, op.ranks)));
      else
        out_.count(405, Severity::Error);
    }
    u64& s = sent[it.src];
    u64& r = received[it.dst];
    if (src_ok && dst_ok && len) {
      RequiredBlock b;
      b.begin = r;
      b.end = r + len;
      b.want.set = sets_.single(it.src);
      b.want.shift = s - r;
      by_rank_[it.dst].push_back(b);
    }
    s += len;
    r += len;
  }
}

u32 RequiredLayout::first_rank() const {
  bool root_only = t_.op.type == OpType::Reduce || t_.op.type == OpType::Gather;
  return root_only ? t_.op.root : 0;
}

u32 RequiredLayout::end_rank() const {
  bool root_only = t_.op.type == OpType::Reduce || t_.op.type == OpType::Gather;
  return root_only ? t_.op.root + 1 : t_.op.ranks;
}

bool RequiredLayout::select(u32 r) {
  const Op& op = t_.op;
  u64 n = op.ranks, u = op.elem_size(), d = stride_;
  rank_ = r;
  uniform_ = false;
  table_.clear();
  Prov all;
  all.set = sets_.ranks(0, op.ranks);
  all.op = n > 1 ? static_cast<u8>(op.reduce_op) : kNoOp;
  auto one = [&](u64 len, Prov want) {
    if (len) table_.push_back({0, len, want});
  };
  switch (op.type) {
    case OpType::AllReduce:
    case OpType::Reduce:
      one(d, all);
      break;
    case OpType::ReduceScatter:
      all.shift = r * d;
      one(d, all);
      break;
    case OpType::Broadcast:
    case OpType::Scatter: {
      Prov p;
      p.set = sets_.single(op.root);
      p.shift = op.type == OpType::Scatter ? r * d : 0;
      one(d, p);
      break;
    }
    case OpType::AllGather:
    case OpType::Gather:
    case OpType::AllToAll:
      uniform_ = d > 0;
      blocks_n_ = n;
      base_ = op.type == OpType::AllToAll ? r * d : 0;
      break;
    case OpType::ReduceScatterV:
      all.shift = op.displs[r] * u;
      one(op.counts[r] * u, all);
      break;
    case OpType::AllGatherV:
      table_ = shared_;
      break;
    case OpType::AllToAllV: {
      // Column r of the matrix; row_prefix_[q] = Σ_{j<r} M[q][j].
      while (prefix_rank_ < r) {
        for (u64 q = 0; q < n; ++q) row_prefix_[q] += op.send_counts[q * n + prefix_rank_];
        ++prefix_rank_;
      }
      u64 at = 0;
      for (u32 q = 0; q < n; ++q) {
        u64 len = op.send_counts[u64{q} * n + r] * u;
        if (len) {
          Prov p;
          p.set = sets_.single(q);
          p.shift = row_prefix_[q] * u - at;
          table_.push_back({at, at + len, p});
        }
        at += len;
      }
      break;
    }
    case OpType::SendRecv:
    case OpType::BatchSendRecv:
      if (auto it = by_rank_.find(r); it != by_rank_.end()) table_ = it->second;
      break;
  }
  span_end_ = uniform_ ? d * n : table_.empty() ? 0 : table_.back().end;
  return uniform_ || !table_.empty();
}

bool RequiredLayout::next(u64 addr, RequiredBlock& out) {
  if (uniform_) {
    u64 q = addr / stride_;
    if (q >= blocks_n_) return false;
    out.begin = q * stride_;
    out.end = out.begin + stride_;
    out.want = Prov{};
    out.want.set = sets_.single(static_cast<u32>(q));
    out.want.shift = base_ - out.begin;
    return true;
  }
  auto it = std::upper_bound(table_.begin(), table_.end(), addr,
                             [](u64 a, const RequiredBlock& b) { return a < b.end; });
  if (it == table_.end()) return false;
  out = *it;
  return true;
}

std::string RequiredLayout::expected_text(u64 b, u64 e) {
  std::vector<std::string> parts;
  u64 count = 0;
  std::string last;
  RequiredBlock blk;
  for (u64 a = b; a < e && next(a, blk) && blk.begin < e; a = blk.end) {
    std::string s = describe_data(sets_, blk.want, std::max(b, blk.begin), std::min(e, blk.end));
    if (count < 2) parts.push_back(s);
    last = s;
    ++count;
    if (uniform_ && count == 2 && e > blk.end) {  // jump to the last block: O(1) for any stretch
      u64 q_last = (e - 1) / stride_;
      count = q_last - b / stride_ + 1;
      next(q_last * stride_, blk);
      last = describe_data(sets_, blk.want, std::max(b, blk.begin), std::min(e, blk.end));
      break;
    }
  }
  if (count == 0) return "nothing";
  if (count == 1) return parts[0];
  if (count == 2) return parts[0] + " and " + last;
  if (count == 3) return fmt::format("{}, {} and {}", parts[0], parts[1], last);
  return fmt::format("{}, {}, …, {} ({} ranges)", parts[0], parts[1], last, count);
}

}  // namespace cc
