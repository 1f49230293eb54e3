// A set of task ids, one bit each, that answers "the first member at or
// after t" and "the last member at or before t" in a few loads.
//
// The reachability index asks these of the tasks with out-edges and of
// those with in-edges, tens of millions of times per search-heavy check.
// A table holding the answer per task (what the index kept before) costs 4
// bytes per task per question: 84 MB at 10^7 tasks. The bits cost an
// eighth of a byte, and a table per 64-task word of the next and previous
// word with a member (half a bit per task each) jumps over long runs of
// tasks without any, so no question scans more than three words. The bits
// are also small enough to stay in the cache, where the per-task tables
// were a miss per stop.
#pragma once

#include <bit>
#include <vector>

#include "model/types.h"

namespace cc {

struct TaskMarks {
  u32 size = 0;              // task ids [0, size)
  std::vector<u64> words;    // bit t % 64 of word t / 64: t is a member
  std::vector<u32> next_word;  // [w]: first word at or after w with a member, else words.size()
  std::vector<u32> prev_word;  // [w]: last word at or before w with a member, else kNone

  bool operator==(const TaskMarks&) const = default;

  bool has(u32 t) const { return (words[t >> 6] >> (t & 63)) & 1; }
  // The first member at or after t, or `size` if none (t may be `size`).
  u32 next(u32 t) const;
  // The last member at or before t, or kNone if none (t < size).
  u32 prev(u32 t) const;
};

// Empty marks for `size` tasks: words cleared, no word tables yet.
TaskMarks empty_marks(u32 size);
// Derives the word tables once every word is written; before it, only
// has() may be asked.
void finish_marks(TaskMarks& m);

inline u32 TaskMarks::next(u32 t) const {
  u32 w = t >> 6;
  if (w >= words.size()) return size;
  u64 rest = words[w] & (~u64{0} << (t & 63));
  if (rest) return (w << 6) + static_cast<u32>(std::countr_zero(rest));
  w = next_word[w + 1];
  return w == words.size() ? size : (w << 6) + static_cast<u32>(std::countr_zero(words[w]));
}

inline u32 TaskMarks::prev(u32 t) const {
  u32 w = t >> 6;
  u64 upto = words[w] & (~u64{0} >> (63 - (t & 63)));
  if (upto) return (w << 6) + 63 - static_cast<u32>(std::countl_zero(upto));
  if (w == 0) return kNone;
  w = prev_word[w - 1];
  return w == kNone ? kNone : (w << 6) + 63 - static_cast<u32>(std::countl_zero(words[w]));
}

}  // namespace cc
