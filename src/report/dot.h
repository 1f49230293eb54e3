// The task graph as Graphviz DOT: a cluster per rank, a lane per stream in
// execution order, solid stream edges, dashed RECORD->WAIT edges, dotted
// explicit edges, and the tasks of every finding highlighted with its codes.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "model/finding.h"

namespace cc {

struct DotOptions {
  // Draw only the tasks within `radius` edges of these tasks (all if empty).
  std::vector<u32> focus;
  u32 radius = 3;
  std::string title;  // graph label, e.g. the file and its verdict
};

std::string format_dot(const Trace& trace, const TaskGraph& graph,
                       const std::vector<Finding>& findings, const DotOptions& options);

}  // namespace cc
