#include "random_dataflow.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "model/builder.h"

namespace cc::test {

namespace {

using Rng = std::mt19937_64;
u64 pick(Rng& rng, u64 n) { return n ? rng() % n : 0; }

// One required range of a result: copy (one source) or reduce (all ranks).
struct Need {
  u32 r = 0;
  u64 out = 0, len = 0;
  bool reduce = false;
  u32 q = 0;    // copy: source rank
  u64 in = 0;   // INPUT offset (of q, or of every rank for a reduce)
};

Op random_op(Rng& rng, OpType type, u32 n) {
  Op op;
  op.type = type;
  op.ranks = n;
  const DataType types[] = {DataType::INT8, DataType::INT16, DataType::INT32};
  op.data_type = types[pick(rng, 3)];
  op.count = 1 + pick(rng, 5);
  op.reduce_op = static_cast<ReduceOp>(pick(rng, 4));
  op.has_reduce_op = op_reduces(type);
  op.root = static_cast<u32>(pick(rng, n));
  if (type == OpType::AllGatherV || type == OpType::ReduceScatterV) {
    op.displs_given = pick(rng, 2);
    u64 at = 0;
    for (u32 q = 0; q < n; ++q) {
      op.counts.push_back(pick(rng, 5));
      if (op.displs_given) at += pick(rng, 3);  // gaps
      op.displs.push_back(at);
      at += op.counts.back();
    }
    if (op.displs_given && n > 1 && pick(rng, 2)) {  // any order, still disjoint
      std::vector<u32> perm(n);
      for (u32 q = 0; q < n; ++q) perm[q] = q;
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<u64> c(n), d(n);
      u64 a = 0;
      for (u32 q : perm) c[q] = op.counts[q], d[q] = a + pick(rng, 2), a = d[q] + c[q];
      op.counts = c;
      op.displs = d;
    }
  }
  if (type == OpType::AllToAllV)
    for (u64 i = 0; i < u64{n} * n; ++i) op.send_counts.push_back(pick(rng, 4));
  if (type == OpType::SendRecv || type == OpType::BatchSendRecv) {
    u32 items = type == OpType::SendRecv ? 1 : 1 + static_cast<u32>(pick(rng, 5));
    for (u32 i = 0; i < items; ++i)
      op.items.push_back({static_cast<u32>(pick(rng, n)), static_cast<u32>(pick(rng, n)), 1 + pick(rng, 3)});
  }
  op.in_place = in_place_allowed(type) && pick(rng, 3) == 0;
  return op;
}

std::vector<Need> needs_of(const Op& op) {
  std::vector<Need> v;
  u32 n = op.ranks;
  u64 u = size_of(op.data_type), d = op.count * u;
  auto copy = [&](u32 r, u64 out, u32 q, u64 in, u64 len) {
    if (len) v.push_back({r, out, len, false, q, in});
  };
  auto red = [&](u32 r, u64 out, u64 in, u64 len) {
    if (len) v.push_back({r, out, len, true, 0, in});
  };
  switch (op.type) {
    case OpType::AllReduce: for (u32 r = 0; r < n; ++r) red(r, 0, 0, d); break;
    case OpType::Reduce: red(op.root, 0, 0, d); break;
    case OpType::ReduceScatter: for (u32 r = 0; r < n; ++r) red(r, 0, r * d, d); break;
    case OpType::ReduceScatterV:
      for (u32 r = 0; r < n; ++r) red(r, 0, op.displs[r] * u, op.counts[r] * u);
      break;
    case OpType::AllGather:
      for (u32 r = 0; r < n; ++r)
        for (u32 q = 0; q < n; ++q) copy(r, q * d, q, 0, d);
      break;
    case OpType::Gather: for (u32 q = 0; q < n; ++q) copy(op.root, q * d, q, 0, d); break;
    case OpType::AllGatherV:
      for (u32 r = 0; r < n; ++r)
        for (u32 q = 0; q < n; ++q) copy(r, op.displs[q] * u, q, 0, op.counts[q] * u);
      break;
    case OpType::Broadcast:
      for (u32 r = 0; r < n; ++r)
        if (!(op.in_place && r == op.root)) copy(r, 0, op.root, 0, d);
      break;
    case OpType::Scatter: for (u32 r = 0; r < n; ++r) copy(r, 0, op.root, r * d, d); break;
    case OpType::AllToAll:
      for (u32 r = 0; r < n; ++r)
        for (u32 q = 0; q < n; ++q) copy(r, q * d, q, r * d, d);
      break;
    case OpType::AllToAllV:
      for (u32 r = 0; r < n; ++r) {
        u64 at = 0;
        for (u32 q = 0; q < n; ++q) {
          u64 from = 0;
          for (u32 j = 0; j < r; ++j) from += op.send_counts[u64{q} * n + j] * u;
          copy(r, at, q, from, op.send_counts[u64{q} * n + r] * u);
          at += op.send_counts[u64{q} * n + r] * u;
        }
      }
      break;
    case OpType::SendRecv:
    case OpType::BatchSendRecv: {
      std::map<u32, u64> sent, got;
      for (const SendRecvItem& it : op.items) {
        copy(it.dst, got[it.dst], it.src, sent[it.src], it.count * u);
        sent[it.src] += it.count * u;
        got[it.dst] += it.count * u;
      }
      break;
    }
  }
  return v;
}

Slice sl(u32 rank, BufId buf, u64 off, u64 len) {
  Slice s;
  s.rank = rank;
  s.buf = buf;
  s.offset = off;
  s.len = len;
  return s;
}

class Planner {
 public:
  Planner(Rng& rng, FlowCase& c) : rng_(rng), c_(c), n_(c.op.ranks) {}

  void plan() {
    const Op& op = c_.op;
    u64 u = size_of(op.data_type);
    BufId res = op.in_place ? kInput : kOutput;
    for (const Need& need : needs_of(op)) {
      // Split into 1-3 pieces at element boundaries.
      std::vector<u64> cuts{0, need.len};
      for (int k = static_cast<int>(pick(rng_, 3)); k > 0; --k) cuts.push_back(pick(rng_, need.len / u + 1) * u);
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
        u64 b = cuts[i], len = cuts[i + 1] - b;
        Slice out = sl(need.r, res, need.out + b, len);
        chains_.emplace_back();
        if (!need.reduce) plan_copy(sl(need.q, kInput, need.in + b, len), out);
        else plan_reduce(need.in + b, len, out);
      }
    }
    interleave();
  }

 private:
  Slice ccl(u64 len) {
    u32 s = static_cast<u32>(pick(rng_, n_));
    u64& at = ccl_used_[s];
    Slice x = sl(s, kCcl, at, len);
    at += len + pick(rng_, 2) * size_of(c_.op.data_type);
    if (at > c_.ccl) c_.ccl = at;
    return x;
  }
  FlowTask task(bool reduce, std::vector<Slice> srcs, Slice dst) {
    FlowTask t;
    t.reduce = reduce;
    t.op = c_.op.reduce_op;
    t.issuer = static_cast<u32>(pick(rng_, n_));
    t.groups.push_back({std::move(srcs), dst});
    return t;
  }
  void step(FlowTask t, bool last_phase = false) {
    (last_phase && c_.op.in_place ? final_ : chains_.back()).push_back(std::move(t));
  }

  void plan_copy(Slice src, Slice out) {
    if (pick(rng_, 2)) {
      step(task(false, {src}, out));
      return;
    }
    Slice mid = ccl(src.len);
    step(task(false, {src}, mid));
    step(task(false, {mid}, out));
  }

  // Reduce every rank's INPUT [in, in+len) into `out`, in a random order,
  // as a chain (in `out` itself or in CCL) or as a tree of two chains.
  void plan_reduce(u64 in, u64 len, Slice out) {
    std::vector<u32> perm(n_);
    for (u32 q = 0; q < n_; ++q) perm[q] = q;
    std::shuffle(perm.begin(), perm.end(), rng_);
    auto src = [&](u32 q) { return sl(q, kInput, in, len); };
    auto chain = [&](Slice acc, std::size_t from, std::size_t to) {
      step(task(false, {src(perm[from])}, acc));
      for (std::size_t k = from + 1; k < to;) {
        std::size_t m = std::min<std::size_t>(to - k, 1 + pick(rng_, 2));  // 1-2 sources per REDUCE
        std::vector<Slice> srcs;
        for (std::size_t j = 0; j < m; ++j) srcs.push_back(src(perm[k + j]));
        step(task(true, srcs, acc));
        k += m;
      }
    };
    int mode = static_cast<int>(pick(rng_, 3));
    if (mode == 0 && !c_.op.in_place) {
      chain(out, 0, n_);
      return;
    }
    Slice a = ccl(len);
    if (mode == 2 && n_ >= 2) {
      Slice b = ccl(len);
      std::size_t half = 1 + pick(rng_, n_ - 1);
      chain(a, 0, half);
      chain(b, half, n_);
      step(task(true, {b}, a));
    } else {
      chain(a, 0, n_);
    }
    step(task(false, {a}, out), true);
  }

  // Random interleaving of the chains (each in its own order), independent
  // neighbours now and then fused into one batch task.
  void interleave() {
    auto emit = [&](std::vector<std::vector<FlowTask>>& chains) {
      std::vector<std::size_t> pos(chains.size(), 0);
      std::vector<std::size_t> live;
      for (std::size_t i = 0; i < chains.size(); ++i)
        if (!chains[i].empty()) live.push_back(i);
      std::vector<std::size_t> in_last;  // chains the last task has a group of
      while (!live.empty()) {
        std::size_t li = pick(rng_, live.size()), ci = live[li];
        FlowTask t = chains[ci][pos[ci]++];
        bool fuse = !c_.tasks.empty() && !in_last.empty() &&
                    std::find(in_last.begin(), in_last.end(), ci) == in_last.end() && pick(rng_, 4) == 0 &&
                    c_.tasks.back().reduce == t.reduce;
        if (fuse) {
          c_.tasks.back().groups.push_back(t.groups[0]);
        } else {
          c_.tasks.push_back(std::move(t));
          in_last.clear();
        }
        in_last.push_back(ci);
        if (pos[ci] == chains[ci].size()) live.erase(live.begin() + static_cast<std::ptrdiff_t>(li));
      }
    };
    emit(chains_);
    std::vector<std::vector<FlowTask>> fin;
    for (FlowTask& t : final_) fin.push_back({t});
    emit(fin);
  }

  Rng& rng_;
  FlowCase& c_;
  u32 n_;
  std::map<u32, u64> ccl_used_;
  std::vector<std::vector<FlowTask>> chains_;
  std::vector<FlowTask> final_;
};

}  // namespace

FlowCase random_flow(Rng& rng, OpType type, u32 ranks, u32 max_ranks) {
  FlowCase c;
  u32 n = ranks ? ranks : 1 + static_cast<u32>(pick(rng, max_ranks));
  c.op = random_op(rng, type, n);
  c.ccl = 0;
  Planner(rng, c).plan();
  c.ccl = std::max<u64>(c.ccl, 64);
  return c;
}

namespace {

u64 buffer_bytes(const FlowCase& c, const Slice& s) {
  if (s.buf == kCcl) return c.ccl;
  std::optional<u64> v = s.buf == kInput ? implied_input_size(c.op, s.rank) : implied_output_size(c.op, s.rank);
  return v ? *v : 0;
}

bool overlap(const Slice& a, const Slice& b) {
  return a.rank == b.rank && a.buf == b.buf && a.len && b.len && a.offset < b.offset + b.len &&
         b.offset < a.offset + a.len;
}

// No 201 (bounds, lengths, element multiples) and no 202 in any task.
bool valid(const FlowCase& c) {
  u64 u = size_of(c.op.data_type);
  for (const FlowTask& t : c.tasks) {
    for (const auto& [srcs, dst] : t.groups) {
      if (srcs.empty()) return false;
      for (const Slice& s : srcs) {
        if (s.len != dst.len || s.rank >= c.op.ranks) return false;
        if (s.offset > buffer_bytes(c, s) || s.len > buffer_bytes(c, s) - s.offset) return false;
      }
      if (dst.rank >= c.op.ranks || dst.offset > buffer_bytes(c, dst) || dst.len > buffer_bytes(c, dst) - dst.offset)
        return false;
      if (t.reduce && dst.len % u) return false;
    }
    for (const auto& [srcs, dst] : t.groups)
      for (const auto& [srcs2, dst2] : t.groups) {
        for (const Slice& s : srcs2)
          if (overlap(s, dst)) return false;
        if (&dst != &dst2 && overlap(dst, dst2)) return false;
      }
  }
  return true;
}

}  // namespace

bool mutate_flow(Rng& rng, FlowCase& c, int kind) {
  if (c.tasks.empty()) return false;
  if (kind < 0) kind = static_cast<int>(pick(rng, kFlowFaultKinds));
  FlowCase m = c;
  u64 u = size_of(c.op.data_type);
  std::size_t i = pick(rng, m.tasks.size());
  FlowTask& t = m.tasks[i];
  auto& g = t.groups[pick(rng, t.groups.size())];
  Slice& src = g.first[pick(rng, g.first.size())];
  int sign = pick(rng, 2) ? 1 : -1;
  switch (kind) {
    case 0:
      m.what = fmt::format("drop task {}", i);
      m.tasks.erase(m.tasks.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    case 1: {
      std::size_t at = i + 1 + pick(rng, m.tasks.size() - i);
      m.what = fmt::format("duplicate task {} at {}", i, at);
      FlowTask copy = t;
      m.tasks.insert(m.tasks.begin() + static_cast<std::ptrdiff_t>(at), copy);
      break;
    }
    case 2:
      src.offset += sign * static_cast<std::int64_t>(u);
      m.what = fmt::format("task {}: source offset {:+}", i, sign * static_cast<int>(u));
      break;
    case 3:
      src.rank = static_cast<u32>(pick(rng, c.op.ranks));
      m.what = fmt::format("task {}: source rank {}", i, src.rank);
      break;
    case 4:
      g.second.offset += sign * static_cast<std::int64_t>(u);
      m.what = fmt::format("task {}: destination offset {:+}", i, sign * static_cast<int>(u));
      break;
    case 5:
      if (!t.reduce) return false;
      t.op = static_cast<ReduceOp>((static_cast<int>(t.op) + 1 + pick(rng, 3)) % 4);
      m.what = fmt::format("task {}: reduce op {}", i, name(t.op));
      break;
    case 6:
      if (g.second.len <= u) return false;
      g.second.len -= u;
      for (Slice& s : g.first) s.len -= u;
      m.what = fmt::format("task {}: one element shorter", i);
      break;
    case 7: {
      std::size_t j = pick(rng, m.tasks.size());
      std::swap(m.tasks[i], m.tasks[j]);
      m.what = fmt::format("swap tasks {} and {}", i, j);
      break;
    }
    case 8:
      g.second.rank = static_cast<u32>(pick(rng, c.op.ranks));
      m.what = fmt::format("task {}: destination rank {}", i, g.second.rank);
      break;
    default: {
      FlowTask moved = t;
      m.tasks.erase(m.tasks.begin() + static_cast<std::ptrdiff_t>(i));
      std::size_t at = pick(rng, m.tasks.size() + 1);
      m.tasks.insert(m.tasks.begin() + static_cast<std::ptrdiff_t>(at), moved);
      m.what = fmt::format("move task {} to {}", i, at);
      break;
    }
  }
  if (!valid(m)) return false;
  c = std::move(m);
  return true;
}

bool shift_one_source(Rng& rng, FlowCase& c) {
  // A source in INPUT: staging copies may hold the same data twice, so a
  // shifted read of CCL can be harmless; a shifted INPUT read never is.
  u64 u = size_of(c.op.data_type);
  for (int tries = 0; tries < 40 && !c.tasks.empty(); ++tries) {
    FlowCase m = c;
    std::size_t i = pick(rng, m.tasks.size());
    auto& g = m.tasks[i].groups[pick(rng, m.tasks[i].groups.size())];
    Slice& src = g.first[0];
    if (src.buf != kInput) continue;
    int sign = pick(rng, 2) ? 1 : -1;
    src.offset += sign * static_cast<std::int64_t>(u);
    m.what = fmt::format("task {}: INPUT source offset {:+}", i, sign * static_cast<int>(u));
    if (!valid(m)) continue;
    c = std::move(m);
    return true;
  }
  return false;
}

Trace flow_trace(const FlowCase& c) {
  TraceBuilder b(c.op, "random data flow" + (c.what.empty() ? std::string() : ": " + c.what));
  BufId ccl = b.declare("CCL", c.ccl);
  (void)ccl;  // interned third: id 2 == kCcl
  u32 prev = kNone, notify = 0;
  for (const FlowTask& t : c.tasks) {
    if (prev != kNone && prev != t.issuer) {
      b.record(prev, 0, t.issuer, notify);
      b.wait(t.issuer, 0, prev, notify);
      ++notify;
    }
    prev = t.issuer;
    if (!t.reduce) {
      std::vector<std::pair<Slice, Slice>> pairs;
      for (const auto& [srcs, dst] : t.groups) pairs.push_back({srcs[0], dst});
      b.batch_copy(t.issuer, 0, pairs);
    } else if (t.groups.size() == 1) {
      b.reduce_with(t.issuer, 0, t.groups[0].first, t.groups[0].second, t.op, c.op.data_type);
    } else {
      u32 id = b.batch_reduce(t.issuer, 0, t.groups);
      b.trace().tasks[id].reduce_op = t.op;
    }
  }
  return b.finish();
}

}  // namespace cc::test
