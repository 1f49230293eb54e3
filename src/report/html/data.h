// What the HTML report draws, as one JSON object the page's script reads:
// lanes (one per stream), tasks in columns of the simulated execution order,
// memory accesses per (rank, buffer), sync edges and the findings.
#pragma once

#include <string>

#include "check/check_result.h"
#include "graph/graph.h"

namespace cc {

struct HtmlOptions {
  // Above this many tasks the report holds only the neighbourhood of the
  // findings' tasks (whole BFS levels, as many as fit) and says so.
  u64 max_tasks = 200000;
};

std::string html_report_data(const Trace& trace, const TaskGraph& graph, const CheckResult& result,
                             const HtmlOptions& options);

}  // namespace cc
