// Reader of the collcheck trace format (JSON Lines, trace-format.md; version
// 2 adds CCU data, docs/CCU_FORMAT.md).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "io/input.h"
#include "model/result.h"

namespace cc {

// The newest trace format version this collcheck reads and writes.
inline constexpr u64 kTraceVersion = 2;

// Reads and finalizes a trace. `display` is the name used in messages.
// `threads` > 1 lets a large file be read on that many threads
// (parallel_reader.h); the result does not depend on it.
Result<ReadTrace> read_jsonl_file(const std::string& path, unsigned threads = 1);
Result<ReadTrace> read_jsonl_stream(std::FILE* f, const std::string& display);
Result<ReadTrace> read_jsonl_string(const std::string& text, const std::string& display);

}  // namespace cc
