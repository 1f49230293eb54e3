#include <unistd.h>

#include "cli/commands.h"
#include "cli/memory_guard.h"

namespace cc {

void add_long_run_options(CLI::App* c, LongRunArgs& a) {
  c->add_option("--max-memory", a.max_memory, "stop with exit status 2 before growing past SIZE bytes (K, M, G)");
  c->add_flag("--progress", a.progress, "draw a progress line on standard error (default: on a terminal)");
  c->add_flag("--no-progress", a.no_progress, "never draw the progress line");
}

bool progress_wanted(const LongRunArgs& a) {
  return a.progress ? true : a.no_progress ? false : isatty(2) != 0;
}

bool start_memory_limit(const LongRunArgs& a) {
  if (a.max_memory.empty()) return true;
  Result<u64> limit = parse_memory_size(a.max_memory);
  if (!limit) return print_error(limit.error().message), false;
  start_memory_guard(*limit, a.max_memory);
  return true;
}

}  // namespace cc
