// Reading one large trace file (JSON Lines) on several threads, to exactly
// the sequential reader's result: the same trace, findings and messages.
//
// The header is parsed first, on the calling thread; the bytes after it are
// cut into one part per thread at line starts; each thread parses its part
// into tables of its own (tasks, slices, groups, buffer names, tags, lines
// numbered within the part); the parts are then merged in file order, which
// renumbers indices, interns names in the order the sequential reader meets
// them and turns part line numbers into file line numbers. The first bad
// line in file order is reported, whichever thread met it first.
#pragma once

#include <optional>
#include <string>

#include "io/input.h"
#include "model/result.h"

namespace cc {

// Below this size a file is read on one thread: starting threads and
// merging would cost about what they save.
inline constexpr u64 kParallelJsonlMinBytes = u64{4} << 20;

// Reads the trace file `path` with up to `threads` threads. nullopt when the
// caller must read it sequentially instead: fewer than two threads, standard
// input, not a regular file, smaller than `min_bytes`, gzip or zstd data, a
// header the sequential reader should report on, a CCU or AIV line or task
// (they add to tables earlier lines fill), a read error, or a table near its
// size limit. The result is then the same, only slower.
std::optional<Result<ReadTrace>> read_jsonl_parallel(const std::string& path, unsigned threads,
                                                     u64 min_bytes = kParallelJsonlMinBytes);

}  // namespace cc
