// Brute-force references for the differential tests: full reachability by
// bitsets and all conflicting pairs by nested loops (memconflict.md). Test
// code only: quadratic in the number of tasks.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace cc::test {

class ReferenceReach {
 public:
  ReferenceReach(const Trace& t, const TaskGraph& g);
  // A path from a to b (a == b counts).
  bool reaches(u32 a, u32 b) const { return a == b || ((bits_[a][b / 64] >> (b % 64)) & 1); }
  bool acyclic() const { return acyclic_; }

 private:
  std::vector<std::vector<u64>> bits_;  // bits_[a] = tasks reachable from a
  bool acyclic_ = true;
};

// Every conflicting pair (earlier, later) in τ order of a complete graph.
// Unordered inline reduces (SDMA, RDMA, AIV atomic writes) of one operator and data type into
// the same bytes are not conflicts unless `strict_reduce`; such pairs
// go to `atomic` when given (those of floating-point types to `atomic_fp`).
std::set<std::pair<u32, u32>> reference_conflicts(const Trace& t, const TaskGraph& g,
                                                  const ReferenceReach& r, bool strict_reduce = false,
                                                  std::set<std::pair<u32, u32>>* atomic = nullptr,
                                                  std::set<std::pair<u32, u32>>* atomic_fp = nullptr);

}  // namespace cc::test
