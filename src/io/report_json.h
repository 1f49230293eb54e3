// The machine-readable report of checks.md ("--json FILE").
#pragma once

#include <string>
#include <vector>

#include "check/run_checks.h"

namespace cc {

// An input that could not be checked at all (exit status 2).
struct InputError {
  std::string input;
  std::string message;
  u32 order_file = 0;  // index of the input file (merge-reports order)
};

std::string format_json_report(const std::vector<CheckResult>& results,
                               const std::vector<InputError>& errors);

// JSON string literal for `s`, quotes included. Bytes that are not valid
// UTF-8 (a name taken from a log) become U+FFFD, so the output stays JSON.
std::string json_quote(std::string_view s);
// The length of the valid UTF-8 sequence at the start of `s` (0: invalid).
std::size_t utf8_sequence(std::string_view s);

}  // namespace cc
