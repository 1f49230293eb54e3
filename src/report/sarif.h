// The SARIF 2.1.0 report ("--sarif FILE"): the findings in the OASIS format
// that code-scanning services (GitHub, GitLab, editors) import.
#pragma once

#include <string>
#include <vector>

#include "check/check_result.h"
#include "report/json.h"

namespace cc {

// One run of the tool "collcheck": a rule per code (or named warning) that
// occurs, a result per finding located at its tasks' file:line (tasks
// without a line, e.g. a database's, are named as logical locations), and
// the unusable inputs as error notifications of the invocation.
std::string format_sarif_report(const std::vector<CheckResult>& results, const std::vector<InputError>& errors);

// A file path as a SARIF URI reference: kept relative as given, '\' turned
// into '/', every byte outside letters, digits and "-._~/" percent-encoded.
std::string sarif_uri(std::string_view path);

}  // namespace cc
