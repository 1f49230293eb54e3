// The page `check --html FILE` writes at FILE when one input holds several
// operators (an ST log of a test suite, an HCCL VM database of several
// groups): each operator has its own page beside it (FILE.<case>.html), and
// this index lists them with their verdicts, failures first.
#pragma once

#include <string>
#include <vector>

#include "check/check_result.h"

namespace cc {

struct HtmlIndexEntry {
  std::string name;  // the operator's case name
  std::string page;  // its page, relative to the index's directory
  bool pass = false;
  u64 errors = 0, warnings = 0;
};

std::string format_html_index(const std::string& input, const std::vector<HtmlIndexEntry>& entries);

}  // namespace cc
