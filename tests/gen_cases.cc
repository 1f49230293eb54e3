#include "gen_cases.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "gen/registry.h"
#include "graph/parts.h"

namespace cc::test {

bool long_tests() {
  const char* v = std::getenv("COLLCHECK_LONG_TESTS");
  return v && *v && std::string(v) != "0";
}

bool quick_tests() {
  const char* v = std::getenv("COLLCHECK_QUICK_TESTS");
  return v && *v && std::string(v) != "0";
}

u32 scaled(u32 n) { return quick_tests() ? std::max<u32>(1, n / 4) : n; }

bool sampled(u64 i) { return !quick_tests() || i % 4 == 0; }

std::string GenCase::label() const {
  return fmt::format("collcheck gen {} --op-type {} --ranks {} --count {} --dtype {} --root {} "
                     "--reduce-op {} --mode {} --ccl-bytes {}{}{}{}{}",
                     algo, name(p.op), p.ranks, p.count, name(p.dtype), p.root, name(p.reduce_op),
                     p.graph ? "graph" : "opbase", p.ccl_bytes,
                     p.servers ? fmt::format(" --servers {}", p.servers) : "",
                     p.physical_notify ? " --physical-notify" : "", p.fold_ccl ? " --fold-ccl" : "",
                     p.non_inline ? " --non-inline" : "") +
         (p.op == OpType::AllToAllV || p.op == OpType::BatchSendRecv ? fmt::format(" --seed {}", p.seed) : "");
}

std::vector<std::string> registry_pairs() {
  std::vector<std::string> out;
  for (const gen::Algorithm& a : gen::algorithms())
    for (OpType o : a.ops) out.push_back(fmt::format("{}/{}", a.name, name(o)));
  return out;
}

namespace {

bool blocked(OpType o) {
  return o == OpType::AllGather || o == OpType::ReduceScatter || o == OpType::Scatter;
}

struct Variant {
  bool graph, physical, fold, non_inline;
};

}  // namespace

std::vector<GenCase> gen_cases(const std::string& pair, bool full) {
  std::string algo = pair.substr(0, pair.find('/'));
  OpType op = *parse_op_type(pair.substr(pair.find('/') + 1));
  const gen::Algorithm* a = gen::find_algorithm(algo);
  std::vector<std::pair<u32, u32>> shapes;  // (ranks, servers)
  if (a->uses_servers) {
    shapes = {{4, 2}, {8, 2}, {12, 3}, {8, 4}, {4, 1}, {3, 3}};
    if (full) shapes.insert(shapes.end(), {{16, 2}, {16, 4}, {6, 2}, {10, 5}, {64, 8}, {9, 3}});
  } else {
    std::vector<u32> ranks = full ? std::vector<u32>{2, 3, 4, 5, 6, 7, 8, 16, 64} : std::vector<u32>{2, 3, 4, 5, 8};
    for (u32 n : ranks) shapes.push_back({n, 0});
    if (!full) shapes.push_back({16, 0});
  }
  std::vector<Variant> variants = {{false, false, false, false}, {true, true, false, false},
                                   {false, true, true, true}};
  if (full) variants.insert(variants.end(), {{true, false, false, true}, {false, false, true, false}, {false, true, false, false}});
  const DataType types[] = {DataType::FP32, DataType::INT8, DataType::FP16, DataType::INT64};
  const ReduceOp rops[] = {ReduceOp::SUM, ReduceOp::MAX, ReduceOp::PROD, ReduceOp::MIN};
  std::vector<GenCase> out;
  u32 k = 0;
  for (auto [n, servers] : shapes) {
    // Up to 16 ranks everything; 64 ranks with one-iteration counts and the
    // three base variants (a 64-rank mesh AllReduce of 1000 elements in
    // three iterations is 7·10^6 tasks).
    bool big_n = n > 16 || (!full && n > 8);
    std::vector<u64> counts = {1, 77, 1000};
    if (full && !big_n) counts.insert(counts.end(), {0, 383, 384, 385});
    if (big_n) counts = {1, 77};
    std::vector<u32> roots = {0};
    if (op_has_root(op) || op == OpType::SendRecv) {
      roots = {0, n - 1};
      if (full && n <= 8) {
        roots.clear();
        for (u32 r = 0; r < n; ++r) roots.push_back(r);
      }
    }
    std::vector<Variant> vs = big_n ? std::vector<Variant>(variants.begin(), variants.begin() + 3) : variants;
    for (u64 count : counts)
      for (const Variant& v : vs)
        for (u32 root : roots) {
          ++k;
          gen::GenParams p;
          p.op = op;
          p.ranks = n;
          p.servers = servers;
          p.count = count;
          // 383, 384, 385 FP32 elements are C − 1, C and C + 1 elements of one
          // iteration; the other counts rotate over 1-, 2-, 4- and 8-byte types.
          bool around_c = count >= 383 && count <= 385;
          p.dtype = full && !around_c ? types[k % 4] : (count == 77 ? DataType::INT16 : DataType::FP32);
          p.reduce_op = rops[k % 4];
          p.root = root;
          p.graph = v.graph;
          p.physical_notify = v.physical;
          p.fold_ccl = v.fold;
          p.non_inline = v.non_inline;
          p.seed = k;
          // About three iterations for 1000 FP32 elements; 384 FP32 is exactly C.
          p.ccl_bytes = blocked(op) || (algo == "mesh1d" && op != OpType::AllReduce) ? u64{1536} * n : 1536;
          out.push_back({algo, p});
        }
  }
  return out;
}

Trace ring_over_parallel_threshold() {
  gen::GenParams p;
  p.ranks = 64;
  p.count = 4096;
  Result<Trace> ring = gen::generate("ring", p, true);
  if (!ring) {
    ADD_FAILURE() << ring.error().message;
    return {};
  }
  EXPECT_GT(ring->tasks.size(), kParallelTasks);
  return std::move(*ring);
}

}  // namespace cc::test
