// --max-memory: stop cleanly, with a message and exit status 2, before the
// process grows past a limit (rather than being killed by the system).
#pragma once

#include <string>

#include "model/result.h"
#include "model/types.h"

namespace cc {

// Parses "SIZE" with an optional K, M or G suffix (powers of 1024).
Result<u64> parse_memory_size(const std::string& text);

// Starts a watchdog thread that samples the resident set size every 10 ms;
// past `limit` bytes it prints "collcheck: error: ..." and exits with 2.
// A process can hold one guard; it lives until the process ends.
void start_memory_guard(u64 limit, const std::string& limit_text);

// Current resident set size in bytes (0 if unknown).
u64 resident_bytes();

}  // namespace cc
