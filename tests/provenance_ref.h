// A brute-force reference of the semantic stage (checks.md, stage 5) for
// the generator and mutation tests: provenance byte by byte, tasks applied
// in the graph's simulated order, every rank's OUTPUT compared with what the
// operator requires. Test code only: memory per byte touched.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace cc::test {

struct ProvenanceOutcome {
  bool ran = false;           // false: graph incomplete or buffers too large
  u64 reduce_errors = 0;      // 401/402/403 during the simulation
  u64 empty_reads = 0;        // 404 (bytes copied without provenance)
  u64 wrong_bytes = 0;        // final comparison: bytes not as required
  std::vector<std::string> first_problems;  // a few, for messages
  std::vector<std::pair<u32, u64>> wrong_at;  // (rank, byte) of every wrong result byte
  bool ok() const { return ran && reduce_errors == 0 && wrong_bytes == 0; }
};

// `max_bytes` bounds the bytes simulated (touched bytes of all buffers).
ProvenanceOutcome reference_provenance(const Trace& t, const TaskGraph& g, u64 max_bytes = 64u << 20);

}  // namespace cc::test
