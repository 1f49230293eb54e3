// The human report: one block per finding, then one summary line.
#pragma once

#include <string>

#include "check/check_result.h"
#include "model/trace.h"

namespace cc {

enum class Verbosity { Quiet, Normal, Verbose };

// Blocks for every finding of `r` (none when quiet) and the summary line.
// `trace` resolves task ids; it may be null when findings name no tasks.
std::string format_text_report(const CheckResult& r, const Trace* trace, Verbosity v,
                               u32 max_errors);

// "FILE: FAIL (2 errors: 302×1, 406×1; 0 warnings)": the verdict without
// timings, for titles that must not change from run to run.
std::string verdict_line(const CheckResult& r);

// "collcheck: FILE: FAIL (2 errors: 302×1, 406×1; 0 warnings) ranks=8 tasks=1234 in 12 ms"
std::string summary_line(const CheckResult& r);

// "[MemConflict] [ErrorCode: 302] message" and its indented detail lines.
std::string format_finding(const Finding& f);

}  // namespace cc
