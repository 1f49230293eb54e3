// bench_gen RANKS FILE: writes the synthetic ring AllReduce trace.
#include <cstdio>
#include <cstdlib>

#include "export/jsonl.h"
#include "synthetic_ring.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_gen RANKS FILE\n");
    return 2;
  }
  cc::u32 n = static_cast<cc::u32>(std::strtoul(argv[1], nullptr, 10));
  cc::Trace t = cc::bench::synthetic_ring_allreduce(n, 64);
  cc::Status st = cc::write_jsonl_file(t, argv[2]);
  if (!st) {
    std::fprintf(stderr, "bench_gen: %s\n", st.message().c_str());
    return 2;
  }
  std::printf("%s: %zu tasks\n", argv[2], t.tasks.size());
  return 0;
}
