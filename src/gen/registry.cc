#include "gen/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "gen/hd.h"
#include "gen/hierarchical.h"
#include "gen/mesh.h"
#include "gen/mesh1d.h"
#include "gen/nhr.h"
#include "gen/pairwise.h"
#include "gen/ring.h"
#include "gen/rooted.h"
#include "gen/send_recv.h"

namespace cc::gen {

namespace {

using O = OpType;
using GenFn = Result<Trace> (*)(const GenParams&);

Result<Trace> hier_ring(const GenParams& p) { return gen_hierarchical(p, InterServer::Ring); }
Result<Trace> hier_nhr(const GenParams& p) { return gen_hierarchical(p, InterServer::Nhr); }
Result<Trace> hier_hd(const GenParams& p) { return gen_hierarchical(p, InterServer::Hd); }

struct Entry {
  std::string_view algo;
  OpType op;
  GenFn fn;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = {
      {"ring", O::AllReduce, gen_ring_allreduce},
      {"ring", O::AllGather, gen_ring_allgather},
      {"ring", O::ReduceScatter, gen_ring_reduce_scatter},
      {"ring", O::Broadcast, gen_broadcast_ring},
      {"ring", O::Reduce, gen_reduce_ring},
      {"mesh", O::AllReduce, gen_mesh_allreduce},
      {"mesh", O::AllGather, gen_mesh_allgather},
      {"mesh", O::ReduceScatter, gen_mesh_reduce_scatter},
      {"mesh", O::Scatter, gen_scatter_mesh},
      {"mesh1d", O::AllReduce, gen_mesh1d_allreduce},
      {"mesh1d", O::AllGather, gen_mesh1d_allgather},
      {"mesh1d", O::ReduceScatter, gen_mesh1d_reduce_scatter},
      {"hd", O::AllReduce, gen_hd_allreduce},
      {"nhr", O::AllReduce, gen_nhr_allreduce},
      {"nhr", O::AllGather, gen_nhr_allgather},
      {"nhr", O::ReduceScatter, gen_nhr_reduce_scatter},
      {"nhr", O::Broadcast, gen_broadcast_nhr},
      {"pairwise", O::AllToAllV, gen_pairwise},
      {"pairwise", O::AllToAll, gen_pairwise},
      {"star", O::Broadcast, gen_broadcast_star},
      {"star", O::Gather, gen_gather_star},
      {"send-recv", O::SendRecv, gen_send_recv},
      {"batch-send-recv", O::BatchSendRecv, gen_batch_send_recv},
      {"hierarchical", O::AllReduce, hier_ring},
      {"hierarchical-nhr", O::AllReduce, hier_nhr},
      {"hierarchical-hd", O::AllReduce, hier_hd},
  };
  return e;
}

std::vector<OpType> ops_of(std::string_view algo) {
  std::vector<OpType> ops;
  for (const Entry& x : entries())
    if (x.algo == algo) ops.push_back(x.op);
  return ops;
}

}  // namespace

const std::vector<Algorithm>& algorithms() {
  static const std::vector<Algorithm> a = [] {
    std::vector<Algorithm> v = {
        {"ring", "ring (chain for Broadcast and Reduce), one stream, READY/FIN", "§2–§4, §10.1, §11", {}},
        {"mesh", "mesh inside one server, v1 slave streams and local notifies", "§5, §12", {}, false, 256},
        {"mesh1d", "new-op mesh1D on one CCL buffer, a thread per peer, ACK/DATA", "§6", {}, false, 256},
        {"hd", "recursive halving-doubling, folding for non-powers of two", "§7", {}},
        {"nhr", "non-uniform hierarchical ring, ⌈log2 n⌉ steps per phase", "§8, §10.3", {}},
        {"pairwise", "pairwise exchange, CCL staging and chunks in op-base", "§9", {}},
        {"star", "star around the root", "§10.2, §13", {}},
        {"send-recv", "one send, chunked through the CCL", "§14", {}},
        {"batch-send-recv", "sends on the main stream, receives on a slave stream", "§15", {}},
        {"hierarchical", "mesh per server, ring across servers (--servers S)", "§16", {}, true, 256},
        {"hierarchical-nhr", "mesh per server, NHR across servers (--servers S)", "§16", {}, true, 256},
        {"hierarchical-hd", "mesh per server, halving-doubling across servers (--servers S)", "§16", {}, true, 256},
    };
    for (Algorithm& x : v) x.ops = ops_of(x.name);
    return v;
  }();
  return a;
}

const Algorithm* find_algorithm(std::string_view name) {
  for (const Algorithm& a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

namespace {

std::string normalized(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Other names people use for the same schedules.
const Algorithm* find_alias(const std::string& n) {
  static const std::pair<std::string_view, std::string_view> aliases[] = {
      {"recursive-hd", "hd"},        {"rhd", "hd"},
      {"halving-doubling", "hd"},    {"recursive-halving-doubling", "hd"},
      {"mesh-1d", "mesh1d"},         {"sendrecv", "send-recv"},
      {"send", "send-recv"},         {"batchsendrecv", "batch-send-recv"},
      {"batch", "batch-send-recv"},  {"hier", "hierarchical"},
      {"hierarchical-ring", "hierarchical"}, {"hier-ring", "hierarchical"},
      {"hier-nhr", "hierarchical-nhr"}, {"hier-hd", "hierarchical-hd"},
  };
  if (const Algorithm* a = find_algorithm(n)) return a;
  for (auto [alias, algo] : aliases)
    if (n == alias) return find_algorithm(algo);
  return nullptr;
}

}  // namespace

Resolved resolve_algorithm(std::string_view name) {
  std::string n = normalized(name);
  if (const Algorithm* a = find_alias(n)) return {a, std::nullopt};
  // FAMILY-OPERATOR, e.g. ring-allgather, mesh_AllReduce, pairwise-alltoallv.
  for (std::size_t dash = n.rfind('-'); dash != std::string::npos && dash > 0; dash = n.rfind('-', dash - 1)) {
    const Algorithm* a = find_alias(n.substr(0, dash));
    if (!a) continue;
    std::string op = n.substr(dash + 1);
    for (OpType o : a->ops)
      if (normalized(cc::name(o)) == op) return {a, o};
  }
  return {};
}

Result<Trace> generate(std::string_view algorithm, GenParams p, bool op_given) {
  Resolved r = resolve_algorithm(algorithm);
  const Algorithm* a = r.algorithm;
  if (!a) return Error{fmt::format("unknown algorithm \"{}\" (collcheck gen --list)", algorithm)};
  if (r.op) {
    if (op_given && p.op != *r.op)
      return Error{fmt::format("{} names {} but --op-type is {}", algorithm, name(*r.op), name(p.op))};
    p.op = *r.op;
    op_given = true;
  }
  algorithm = a->name;
  if (!op_given) p.op = a->ops.front();
  GenFn fn = nullptr;
  for (const Entry& x : entries())
    if (x.algo == algorithm && x.op == p.op) fn = x.fn;
  if (!fn) {
    std::string served;
    for (OpType o : a->ops) served += fmt::format("{}{}", served.empty() ? "" : ", ", name(o));
    return Error{fmt::format("{} does not serve {} (it serves {})", algorithm, name(p.op), served)};
  }
  u32 n = p.ranks;
  if (n < 2 || n > kMaxRanks) return Error{fmt::format("--ranks must be 2 … {}", kMaxRanks)};
  if ((op_has_root(p.op) || p.op == OpType::SendRecv) && p.root >= n)
    return Error{fmt::format("--root {} is not a rank of {}", p.root, n)};
  u64 u = size_of(p.dtype);
  if (!checked_mul(p.count, u) || !checked_mul(p.count * u, u64{n} * n))
    return Error{"--count is too large"};
  if (!p.send_counts.empty() && p.send_counts.size() != u64{n} * n)
    return Error{fmt::format("--send-counts must be a {}×{} matrix", n, n)};
  for (u64 c : p.send_counts)
    if (!checked_mul(c, u) || !checked_mul(c * u, u64{n} * n)) return Error{"--send-counts entry too large"};
  u32 per_server = n;
  if (a->uses_servers) {
    if (p.servers == 0) p.servers = n % 2 == 0 && n > 2 ? 2 : 1;
    if (n % p.servers != 0)
      return Error{fmt::format("--servers {} does not divide --ranks {}", p.servers, n)};
    per_server = n / p.servers;
  } else if (p.servers != 0) {
    return Error{fmt::format("--servers applies to the hierarchical algorithms only")};
  }
  if (p.nhr_staging_bug && (algorithm != "nhr" || p.op != OpType::ReduceScatter || !p.non_inline))
    return Error{"--nhr-staging-bug applies to nhr ReduceScatter with --non-inline only"};
  if (per_server > a->max_ranks)
    return Error{fmt::format("{} takes at most {} ranks{}: its notify channels are 0 … 255", algorithm,
                             a->max_ranks, a->uses_servers ? " per server" : "")};
  return fn(p);
}

}  // namespace cc::gen
