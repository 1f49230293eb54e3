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

std::string format_json_report(const std::vector<CheckResult>& results,
                               const std::vector<InputError>& errors);

}  // namespace cc
