#include "check/interval_map.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace cc {
namespace {

// Reference: one value per byte.
TEST(SplitIntervalMap, MatchesBytewiseModel) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    SplitIntervalMap<int> m;
    std::vector<int> bytes(64, 0);
    std::vector<bool> present(64, false);
    for (int op = 0; op < 40; ++op) {
      u64 a = rng() % 64, b = rng() % 65;
      if (a > b) std::swap(a, b);
      int v = static_cast<int>(rng() % 3);
      bool fill = rng() % 2;
      bool fused = rng() % 3 == 0;
      auto fn = [&](u64 s, u64 e, int& x) {
        ASSERT_LE(a, s);
        ASSERT_LE(e, b);
        ASSERT_LT(s, e);
        x += v;
      };
      if (fused) {
        fill = true;
        m.update(a, b, fn);
      } else {
        m.visit(a, b, fill, fn);
      }
      for (u64 i = a; i < b; ++i) {
        if (!present[i] && !fill) continue;
        present[i] = true;
        bytes[i] += v;
      }
      if (fused) {
        // update() coalesces: no two touching neighbours around it are equal.
        for (auto it = m.segments().begin(); it != m.segments().end(); ++it) {
          auto next = std::next(it);
          if (next == m.segments().end()) break;
          bool inside = next->begin >= a && next->begin <= b;
          if (inside && it->end == next->begin) {
            ASSERT_NE(it->value, next->value);
          }
        }
      } else if (rng() % 2) {
        m.coalesce(a, b);
      }
      if (rng() % 10 == 0) {
        m.erase(a, b);
        for (u64 i = a; i < b; ++i) present[i] = false, bytes[i] = 0;
      }
      // Compare.
      std::vector<bool> seen(64, false);
      u64 last_end = 0;
      for (const auto& seg : m.segments()) {
        ASSERT_GE(seg.begin, last_end) << "segments overlap";
        ASSERT_LT(seg.begin, seg.end);
        last_end = seg.end;
        for (u64 i = seg.begin; i < seg.end; ++i) {
          seen[i] = true;
          ASSERT_EQ(seg.value, bytes[i]) << "byte " << i;
        }
      }
      for (int i = 0; i < 64; ++i) ASSERT_EQ(seen[i], bool(present[i])) << "byte " << i;
      int pieces = 0;
      m.scan(a, b, [&](u64 s, u64 e, const int& x) {
        ++pieces;
        for (u64 i = s; i < e; ++i) ASSERT_EQ(x, bytes[i]);
      });
      (void)pieces;
    }
  }
}

TEST(SplitIntervalMap, CoalesceMergesEqualNeighbours) {
  SplitIntervalMap<int> m;
  m.visit(0, 10, true, [](u64, u64, int& v) { v = 1; });
  m.visit(10, 20, true, [](u64, u64, int& v) { v = 1; });
  m.visit(30, 40, true, [](u64, u64, int& v) { v = 1; });
  EXPECT_EQ(m.size(), 3u);
  m.coalesce(0, 40);
  EXPECT_EQ(m.size(), 2u) << "a gap keeps [30,40) apart";
  m.visit(5, 15, false, [](u64, u64, int& v) { v = 2; });
  EXPECT_EQ(m.size(), 4u);
  m.visit(5, 15, false, [](u64, u64, int& v) { v = 1; });
  m.coalesce(5, 15);
  EXPECT_EQ(m.size(), 2u);
}

}  // namespace
}  // namespace cc
