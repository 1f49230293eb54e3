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
std::set<std::pair<u32, u32>> reference_conflicts(const Trace& t, const TaskGraph& g,
                                                  const ReferenceReach& r);

}  // namespace cc::test
