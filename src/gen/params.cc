#include "gen/params.h"

#include <fmt/format.h>

#include <random>

namespace cc::gen {

std::vector<u64> send_matrix(const GenParams& p) {
  u64 n = p.ranks;
  if (!p.send_counts.empty()) return p.send_counts;
  std::vector<u64> m(n * n, p.count);
  if (p.op == OpType::AllToAll) return m;
  // A fixed engine and hand-made draws, so that a seed gives the same matrix
  // with every standard library.
  std::mt19937_64 rng(p.seed);
  for (u64& v : m) {
    u64 x = rng();
    v = (x & 3) == 0 ? 0 : (x >> 8) % (2 * p.count + 1);
  }
  return m;
}

Op make_op(const GenParams& p) {
  Op op;
  op.type = p.op;
  op.ranks = p.ranks;
  op.data_type = p.dtype;
  op.count = op_has_count(p.op) ? p.count : 0;
  op.reduce_op = p.reduce_op;
  op.has_reduce_op = op_reduces(p.op);
  op.root = op_has_root(p.op) ? p.root : 0;
  op.in_place = p.op == OpType::Broadcast;  // HCCL's Broadcast is in place (§10)
  u32 n = p.ranks;
  if (p.op == OpType::AllToAllV) op.send_counts = send_matrix(p);
  if (p.op == OpType::SendRecv) op.items = {{p.root, (p.root + 1) % n, p.count}};
  if (p.op == OpType::BatchSendRecv) {
    std::vector<u64> m = send_matrix(p);
    for (u32 i = 0; i < n; ++i)
      for (u32 j = 0; j < n; ++j)
        if (m[u64{i} * n + j]) op.items.push_back({i, j, m[u64{i} * n + j]});
  }
  return op;
}

std::string schedule_name(const std::string& algo, const GenParams& p) {
  std::string s = fmt::format("{} {} n={}", algo, name(p.op), p.ranks);
  if (op_has_count(p.op) || p.op == OpType::SendRecv) s += fmt::format(" count={}", p.count);
  s += fmt::format(" {}", name(p.dtype));
  if (op_reduces(p.op)) s += fmt::format(" {}", name(p.reduce_op));
  if (op_has_root(p.op) || p.op == OpType::SendRecv) s += fmt::format(" root={}", p.root);
  if (p.servers) s += fmt::format(" servers={}", p.servers);
  s += p.graph ? " graph" : fmt::format(" opbase C={}", p.ccl_bytes);
  if (p.op == OpType::AllToAllV || p.op == OpType::BatchSendRecv)
    s += p.send_counts.empty() ? fmt::format(" seed={}", p.seed) : " matrix";
  if (p.physical_notify) s += " physical-notify";
  if (p.fold_ccl) s += " fold-ccl";
  if (p.non_inline) s += " non-inline";
  if (p.nhr_staging_bug) s += " nhr-staging-bug";
  return s;
}

Emitter make_emitter(const std::string& algo, const GenParams& p) {
  EmitOptions o;
  o.physical_notify = p.physical_notify;
  o.fold_ccl = p.fold_ccl;
  o.ccl_bytes = p.ccl_bytes;
  return Emitter(make_op(p), schedule_name(algo, p), o);
}

}  // namespace cc::gen
