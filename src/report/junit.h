// The JUnit XML report ("--junit FILE"), which CI servers (Jenkins, GitLab,
// GitHub test reporters) show as test results.
#pragma once

#include <string>
#include <vector>

#include "check/check_result.h"
#include "report/json.h"

namespace cc {

struct JunitOptions {
  // --fail-on warning: warnings fail their operator too, as <failure>s.
  bool warnings_fail = false;
};

// A <testsuite> per input file, a <testcase> per operator (its case name;
// classname = the file), a <failure> per finding that fails it (message:
// its code and headline; body: its text), the other findings as
// <system-out>, and an unusable input as a testcase with an <error>.
std::string format_junit_report(const std::vector<CheckResult>& results, const std::vector<InputError>& errors,
                                const JunitOptions& options);

}  // namespace cc
