// Every reference schedule `collcheck gen` knows, with the operators each
// serves (algorithms.md), and the entry point that validates parameters.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "gen/params.h"

namespace cc::gen {

struct Algorithm {
  std::string_view name;
  std::string_view summary;      // one line for --list
  std::string_view section;      // where algorithms.md specifies it
  std::vector<OpType> ops;       // the first is the default --op-type
  bool uses_servers = false;     // --servers applies
  // Most ranks (of one server, for the hierarchical ones) whose notify
  // channels fit in 0 … 255 (algorithms.md §1.4).
  u32 max_ranks = kMaxRanks;
};

const std::vector<Algorithm>& algorithms();
const Algorithm* find_algorithm(std::string_view name);  // exact name

// A name as users write it: an algorithm, an alias (rhd, recursive-hd,
// sendrecv, hier, …) or FAMILY-OPERATOR (ring-allgather,
// pairwise_AllToAllV); case and '_' / '-' do not matter.
struct Resolved {
  const Algorithm* algorithm = nullptr;
  std::optional<OpType> op;  // when the name carries the operator
};
Resolved resolve_algorithm(std::string_view name);

// Checks `p` against the algorithm and generates. `op_given` false takes
// the algorithm's first operator.
Result<Trace> generate(std::string_view algorithm, GenParams p, bool op_given);

}  // namespace cc::gen
