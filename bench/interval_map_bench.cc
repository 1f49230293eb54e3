// bench_interval_map: the split interval map (check/interval_map.h) alone,
// on the access patterns of stages 4 and 5 and on the pathological one.
//
//   bench_interval_map [--runs N] [--scale K] [--only WORKLOAD]
//
// Workloads (values of stage 5's size, 24 bytes, and of stage 4's, two
// access sets and a dominator):
//   sweep    1024 buffers of 512 chunks, each written once, chunk order
//            rotating per buffer as in a ring (the finger's path), then
//            every chunk read back with scan;
//   random   one buffer of 64 MiB, 10^6 writes of 16..256 bytes at random
//            offsets, each with its own value (no merging: ~7·10^5 segments);
//   merging  the same with four values, so that most writes coalesce.
// Prints the CPU time of each (median of N runs) and the peak resident
// memory growth of the first run, in the process's own allocator.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "check/access_set.h"
#include "check/interval_map.h"

namespace cc {
namespace {

struct Small {  // stage 5's Prov: 24 bytes
  u64 shift = 0;
  u32 set = 0, writer = 0;
  u8 op = 0, flags = 0;
  bool operator==(const Small&) const = default;
};
struct Large {  // stage 4's Frontier
  AccessSet writes, reads;
  u32 dom = 0;
  bool operator==(const Large& o) const { return writes == o.writes && reads == o.reads; }
};
void stamp(Small& v, u32 x) { v.set = x, v.writer = x; }
void stamp(Large& v, u32 x) {
  v.writes.clear();
  v.writes.insert(x);
  v.reads.clear();
  v.dom = x;
}

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }
long max_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

volatile u64 g_sink = 0;  // keeps the reads from being optimised away

template <typename V>
std::size_t sweep(int scale) {
  const u64 chunk = 4096;
  const u32 buffers = 1024 / static_cast<u32>(scale), chunks = 512;
  std::vector<SplitIntervalMap<V>> maps(buffers);
  std::size_t segments = 0;
  for (u32 b = 0; b < buffers; ++b) {
    SplitIntervalMap<V>& m = maps[b];
    for (u32 i = 0; i < chunks; ++i) {
      u32 c = (b + chunks - i) % chunks;  // descending from the buffer's own chunk, as a ring's steps
      m.update(c * chunk, (c + 1) * chunk, [&](u64, u64, V& v) { stamp(v, b * chunks + i + 1); });
    }
    u64 sum = 0;
    for (u32 c = 0; c < chunks; ++c)
      m.scan(c * chunk, (c + 1) * chunk, [&](u64 s, u64 e, const V&) { sum += e - s; });
    g_sink = g_sink + sum;
    segments += m.size();
  }
  return segments;
}

template <typename V>
std::size_t random_writes(int scale, u32 values) {
  const u64 width = u64{64} << 20;
  const u32 writes = 1000000 / static_cast<u32>(scale);
  std::mt19937_64 rng(1);
  SplitIntervalMap<V> m;
  for (u32 i = 0; i < writes; ++i) {
    u64 len = 16 + rng() % 241, at = rng() % (width - len);
    u32 x = values ? 1 + static_cast<u32>(rng() % values) : i + 1;
    m.update(at, at + len, [&](u64, u64, V& v) { stamp(v, x); });
  }
  return m.size();
}

template <typename F>
void run(const char* name, int runs, F&& body) {
  std::vector<double> t;
  long rss0 = max_rss_kb();
  std::size_t segments = 0;
  long grew = 0;
  for (int r = 0; r < runs; ++r) {
    double c0 = cpu_seconds();
    segments = body();
    t.push_back(cpu_seconds() - c0);
    if (r == 0) grew = max_rss_kb() - rss0;
  }
  std::sort(t.begin(), t.end());
  std::printf("%-16s %9zu segments  %8.3f s cpu (median of %d)  +%ld MB peak RSS\n", name, segments,
              t[t.size() / 2], runs, grew / 1024);
}

}  // namespace
}  // namespace cc

int main(int argc, char** argv) {
  int runs = 3, scale = 1;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs")) runs = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--scale")) scale = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
  }
  using namespace cc;
  // The first workload to run sets the peak RSS, so each is run alone with
  // --only when the memory figure matters.
  auto want = [&](const char* n) { return only.empty() || only == n; };
  if (want("sweep-small")) run("sweep-small", runs, [&] { return sweep<Small>(scale); });
  if (want("sweep-large")) run("sweep-large", runs, [&] { return sweep<Large>(scale); });
  if (want("random-small")) run("random-small", runs, [&] { return random_writes<Small>(scale, 0); });
  if (want("random-large")) run("random-large", runs, [&] { return random_writes<Large>(scale, 0); });
  if (want("merging-small")) run("merging-small", runs, [&] { return random_writes<Small>(scale, 4); });
  if (want("merging-large")) run("merging-large", runs, [&] { return random_writes<Large>(scale, 4); });
  return 0;
}
