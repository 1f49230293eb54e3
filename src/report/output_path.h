// Names of per-case output files.
#pragma once

#include <string>

namespace cc {

// Where the DOT or HTML file of one case goes: `path` itself when the input
// holds one case (or `path` is "-"), else `path` with the case's tag before
// the extension. The tag is CASE of the case name INPUT#CASE, with every
// character other than a letter, digit, '-', '_' or '.' replaced by '_':
// ("out.html", "db", "db#w0-op1") -> "out.w0-op1.html"; "out" -> "out.w0-op1".
std::string case_output_path(const std::string& path, const std::string& input,
                             const std::string& case_name, bool several);

}  // namespace cc
