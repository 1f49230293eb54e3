// The machine-readable report of checks.md ("--json FILE").
#pragma once

#include <string>
#include <vector>

#include "check/check_result.h"

namespace cc {

// An input that could not be checked at all (exit status 2).
struct InputError {
  std::string input;
  std::string message;
  u32 order_file = 0;  // index of the input file (merge-reports order)
};

// The JSON report's version of its own shape (docs/report.schema.json):
// raised when a field changes meaning or goes away, not when one is added.
inline constexpr int kReportSchemaVersion = 1;

// The report's top-level "summary": what the run's tally line says.
struct ReportSummary {
  u64 operators = 0, pass = 0, fail = 0;
  u64 unusable = 0;     // inputs that could not be checked
  int exit_status = 0;  // what the command exits with
};

// `"summary":{...}`, for the check's report and merge-reports' alike.
std::string json_summary(const ReportSummary& s);

std::string format_json_report(const std::vector<CheckResult>& results,
                               const std::vector<InputError>& errors, int exit_status);

}  // namespace cc
