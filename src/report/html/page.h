// The visual report ("check --html FILE"): one self-contained HTML page with
// the verdict, the findings, a timeline of every stream in execution order
// and a memory view per (rank, buffer). Its styles and script are embedded
// (src/io/html/), so it opens anywhere without a network.
#pragma once

#include <string>

#include "report/html/data.h"

namespace cc {

std::string format_html_report(const Trace& trace, const TaskGraph& graph, const CheckResult& result,
                               const HtmlOptions& options = {});

}  // namespace cc
