#include "graph/marks.h"

namespace cc {

TaskMarks empty_marks(u32 size) {
  TaskMarks m;
  m.size = size;
  m.words.assign((u64{size} + 63) / 64, 0);
  return m;
}

void finish_marks(TaskMarks& m) {
  auto count = static_cast<u32>(m.words.size());
  // next_word has one entry past the last word, so next() can look at
  // w + 1 without a bounds test.
  m.next_word.assign(count + 1, count);
  m.prev_word.assign(count, kNone);
  for (u32 w = count; w-- > 0;) m.next_word[w] = m.words[w] ? w : m.next_word[w + 1];
  u32 last = kNone;
  for (u32 w = 0; w < count; ++w) {
    if (m.words[w]) last = w;
    m.prev_word[w] = last;
  }
}

}  // namespace cc
