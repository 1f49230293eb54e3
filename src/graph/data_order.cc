#include "graph/data_order.h"

#include <atomic>
#include <bit>

#include "graph/parts.h"
#include "model/describe.h"

namespace cc {

bool touches_memory(const Trace& trace, u32 task) {
  const Task& k = trace.tasks[task];
  if (is_data_task(k.type)) return true;
  bool write = false;
  return (k.flags & kTaskAiv) && aiv_flag_access(trace, task, write) != kNone;
}

// Two passes, cut into parts (parts.h):
//  1. over the tasks in id order (their records read front to back, not at
//     τ's scattered addresses), a bit per τ position: "a memory task runs
//     here";
//  2. over the bits, in parts of whole words: each part counts its bits,
//     then writes order[p] for each, from where the parts before it end.
DataOrder data_order(const Trace& trace, const TaskGraph& graph, unsigned workers) {
  DataOrder out;
  u32 n = graph.task_count;
  u32 executed = static_cast<u32>(graph.order.size());
  std::vector<u64> here((u64{executed} + 63) / 64, 0);
  unsigned threads = pass_threads(workers, n);
  u32 parts = part_count(workers, n);
  run_parts(threads, parts, [&](u32 p) {
    for (u32 id = cut(n, parts, p); id < cut(n, parts, p + 1); ++id) {
      u32 at = graph.tau[id];
      if (at == kNone || !touches_memory(trace, id)) continue;
      // Parts set bits anywhere in τ: a word may be another part's too.
      std::atomic_ref<u64>(here[at / 64]).fetch_or(u64{1} << (at % 64), std::memory_order_relaxed);
    }
  });
  u32 words = static_cast<u32>(here.size());
  u32 word_parts = part_count(workers, words);
  std::vector<u32> first(word_parts + 1, 0);
  run_parts(threads, word_parts, [&](u32 p) {
    u32 c = 0;
    for (u32 w = cut(words, word_parts, p); w < cut(words, word_parts, p + 1); ++w) c += std::popcount(here[w]);
    first[p + 1] = c;
  });
  for (u32 p = 0; p < word_parts; ++p) first[p + 1] += first[p];
  out.tasks.resize(first[word_parts]);
  run_parts(threads, word_parts, [&](u32 p) {
    u32 next = first[p];
    for (u32 w = cut(words, word_parts, p); w < cut(words, word_parts, p + 1); ++w)
      for (u64 bits = here[w]; bits; bits &= bits - 1)
        out.tasks[next++] = graph.order[u64{w} * 64 + std::countr_zero(bits)];
  });
  return out;
}

}  // namespace cc
