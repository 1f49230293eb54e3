#include "cli/memory_guard.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace cc {

Result<u64> parse_memory_size(const std::string& text) {
  u64 v = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (v > (~u64{0} - 9) / 10) i = text.size() + 1;  // overflow: rejected below
    else v = v * 10 + static_cast<u64>(text[i] - '0');
  }
  u64 unit = 1;
  if (i + 1 == text.size()) {
    switch (text[i]) {
      case 'K': case 'k': unit = u64{1} << 10; break;
      case 'M': case 'm': unit = u64{1} << 20; break;
      case 'G': case 'g': unit = u64{1} << 30; break;
      default: unit = 0;
    }
    ++i;
  }
  if (i != text.size() || i == 0 || unit == 0 || v == 0 || v > ~u64{0} / unit)
    return Error{fmt::format("--max-memory {}: write a byte count, optionally with K, M or G", text)};
  return v * unit;
}

u64 resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long pages_total = 0, pages_resident = 0;
  int n = std::fscanf(f, "%llu %llu", &pages_total, &pages_resident);
  std::fclose(f);
  if (n != 2) return 0;
  return pages_resident * static_cast<u64>(sysconf(_SC_PAGESIZE));
}

void start_memory_guard(u64 limit, const std::string& limit_text) {
  std::thread([limit, limit_text] {
    for (;;) {
      u64 rss = resident_bytes();
      if (rss > limit) {
        std::fflush(stdout);
        std::fprintf(stderr,
                     "collcheck: error: memory use (%.1f MiB resident) passed --max-memory %s; stopped\n",
                     static_cast<double>(rss) / (1 << 20), limit_text.c_str());
        std::fflush(stderr);
        std::_Exit(2);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }).detach();
}

}  // namespace cc
