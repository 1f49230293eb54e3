// The reference of every error code and named warning, docs/ERRORS.md, as
// the binary carries it: one entry per section, for `collcheck explain` and
// for reports that attach help to a code (SARIF rules).
#pragma once

#include <span>
#include <string_view>

namespace cc {

struct ErrorDoc {
  std::string_view code;     // "302"; a named warning: its tag ("ATOMIC-REDUCE-ORDER")
  std::string_view name;     // "MEMCONFLICT_DETECTED"; a named warning: its tag again
  std::string_view stage;    // "MemConflict", as printed in `[Stage]`
  std::string_view summary;  // the first sentence of what triggers it, on one line
  std::string_view body;     // the section's Markdown below its heading
  std::string_view section;  // the whole section, heading included, as in the file
};

// Every section of docs/ERRORS.md that documents a code, in the file's
// order (codes ascending, then the named warnings).
std::span<const ErrorDoc> error_docs();

// The entry whose code or name is `code_or_name`, letters compared without
// case ("302", "memconflict_detected", "atomic-reduce-order"); null if none.
const ErrorDoc* find_error_doc(std::string_view code_or_name);


}  // namespace cc
