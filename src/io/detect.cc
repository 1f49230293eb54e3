#include "io/detect.h"

#include "io/byte_source.h"
#include "io/msccl/xml_reader.h"

#include <cstdio>
#include <cstring>
#include <memory>

namespace cc {

namespace {

constexpr std::size_t kHead = 1 << 16;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// First line that is neither blank nor a comment, as JSON, names our format.
bool looks_like_trace(std::string_view head, bool strict) {
  std::size_t pos = 0;
  while (pos < head.size()) {
    std::size_t nl = head.find('\n', pos);
    std::string_view line = head.substr(pos, nl == std::string_view::npos ? head.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? head.size() : nl + 1;
    std::size_t i = line.find_first_not_of(" \t\r");
    if (i == std::string_view::npos || line[i] == '#') continue;
    if (line[i] != '{') return false;
    if (!strict) return true;
    // The header is one JSON object; a cheap textual test is enough to pick
    // the reader, which then validates it exactly.
    return line.find("\"collcheck-trace\"") != std::string_view::npos &&
           line.find("\"format\"") != std::string_view::npos;
  }
  // Only blank and comment lines (within the part read): the trace reader
  // explains what is missing when the file was named explicitly.
  return !strict;
}



// Whether some line of `head` begins with `prefix`.
bool has_line_starting(std::string_view head, std::string_view prefix) {
  if (starts_with(head, prefix)) return true;
  for (std::size_t at = head.find(prefix); at != std::string_view::npos; at = head.find(prefix, at + 1))
    if (head[at - 1] == '\n') return true;
  return false;
}

// A gtest start line or a task line at the start of a line (stlog.md §2):
// a text that merely quotes them (a README beside the logs) is not a log.
bool looks_like_stlog(std::string_view head) {
  return has_line_starting(head, "[ RUN      ] ") || has_line_starting(head, "[rankId:");
}

}  // namespace

InputFormat detect_format_text(std::string_view head, bool strict) {
  if (starts_with(head, std::string_view("SQLite format 3\0", 16))) return InputFormat::HcclVmDb;
  if (looks_like_trace(head, strict)) return InputFormat::Jsonl;
  if (looks_like_msccl(head)) return InputFormat::Msccl;
  if (looks_like_stlog(head)) return InputFormat::StLog;
  return InputFormat::Unknown;
}

InputFormat detect_format(const std::string& name, bool strict) {
  Result<std::string> path = input_path(name);  // "-": standard input's copy
  if (!path) return InputFormat::Unknown;
  std::FILE* f = std::fopen(path->c_str(), "rb");
  if (!f) return InputFormat::Unknown;
  std::fclose(f);
  // A gzip or zstd file is recognised by what it holds.
  return detect_format_text(read_head(*path, kHead), strict);
}

std::string_view format_name(InputFormat f) {
  switch (f) {
    case InputFormat::Jsonl: return "jsonl";
    case InputFormat::HcclVmDb: return "hcclvm-db";
    case InputFormat::StLog: return "stlog";
    case InputFormat::Msccl: return "msccl";
    case InputFormat::Unknown: return "unknown";
  }
  return "unknown";
}

InputFormat parse_format(std::string_view s) {
  if (s == "jsonl") return InputFormat::Jsonl;
  if (s == "hcclvm-db") return InputFormat::HcclVmDb;
  if (s == "stlog") return InputFormat::StLog;
  if (s == "msccl") return InputFormat::Msccl;
  return InputFormat::Unknown;
}

}  // namespace cc
