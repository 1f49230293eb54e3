// The check stages in their order (graph findings, single task, sync,
// memory conflict, semantics) on one expanded trace and its graph: which
// run, which are skipped and why, their timings and the findings.
#pragma once

#include <string>
#include <vector>

#include "check/check_result.h"
#include "graph/graph.h"

namespace cc {

// Runs the stages on `trace`, whose task graph is `graph`. `pre` are
// findings raised before checking (by the reader, an importer or the
// expansion); `graph_ms` is the time the graph took (reported as a stage).
// The graph's sync-key and pair tables are released once the stages that
// read them ran (release_sync_keys); its `order` is freed while stages 4
// and 5 run and made again after them (the same list); nothing else in it
// changes.
CheckResult run_stages(const Trace& trace, TaskGraph& graph, std::vector<Finding> pre,
                       const CheckOptions& options, double graph_ms = 0);

// The graph built and the stages run, in one call (tests and tools that
// need no graph of their own).
CheckResult run_checks(const Trace& trace, std::vector<Finding> pre, const CheckOptions& options);

}  // namespace cc
