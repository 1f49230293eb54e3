// The task graph as Graphviz DOT: a cluster per rank, a lane per stream,
// solid stream edges, dashed RECORD->WAIT edges, findings highlighted.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "model/finding.h"

namespace cc {

struct DotOptions {
  u32 focus = kNone;  // draw only tasks within `radius` edges of this task
  u32 radius = 3;
};

std::string format_dot(const Trace& trace, const TaskGraph& graph,
                       const std::vector<Finding>& findings, const DotOptions& options);

}  // namespace cc
