// Stage 5 (SemanticCheck): simulates where every byte's data came from and
// proves that each rank's OUTPUT holds exactly what the operator requires
// (checks.md, stage 5; codes 401-409).
//
// Tasks run in the graph's simulated order τ over per-(rank, buffer) split
// interval maps of provenance (check/provenance.h): copies move provenance
// (all sources of a task are read before any destination is written),
// reduces unite contribution sets and report 401/402/403, copies of empty
// bytes 404. Then the final comparison walks each rank's result buffer
// against the operator's required layout (check/semantic_layout.h) and
// reports 406/407/408/409; parameters it cannot check are 405.
#pragma once

#include <vector>

#include "check/sink.h"
#include "graph/data_order.h"

namespace cc {

struct SemanticStats {
  u64 data_tasks = 0;
  u64 segments = 0;   // provenance segments alive at the end
  u64 sets = 0;       // distinct contribution sets interned
  u64 unions = 0;     // unions computed
  u64 memo_hits = 0;  // unions answered from the memo
};

// A range of a rank's result buffer the final comparison found wrong, before
// any capping (for tests).
struct WrongRange {
  u32 rank = 0;
  u64 begin = 0, end = 0;
  u16 code = 0;  // 406, 407, 408 or 409
};

struct SemanticDetail {
  std::vector<WrongRange> wrong;
  u64 simulation_errors = 0;  // 401/402/403 findings
  u64 empty_reads = 0;        // 404 findings
  u64 unknown_bytes = 0;      // required bytes the stage could not follow
};

// `order`: the graph's memory tasks in τ (graph/data_order.h), the only
// tasks the stage visits.
void check_semantic(const Trace& trace, const DataOrder& order, FindingSink& out,
                    SemanticStats* stats = nullptr, SemanticDetail* detail = nullptr);
// The same, making the list of memory tasks from `graph` itself.
void check_semantic(const Trace& trace, const TaskGraph& graph, FindingSink& out,
                    SemanticStats* stats = nullptr, SemanticDetail* detail = nullptr);

}  // namespace cc
