// TaskMarks (graph/marks.h) against the scan it replaces: the next and the
// previous member of a random set, asked at every task, for sets from
// empty to full, with members alone and in runs, and gaps of many words.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "graph/marks.h"

namespace cc {
namespace {

TaskMarks marks_of(const std::vector<bool>& member) {
  TaskMarks m = empty_marks(static_cast<u32>(member.size()));
  for (u32 t = 0; t < member.size(); ++t)
    if (member[t]) m.words[t / 64] |= u64{1} << (t % 64);
  finish_marks(m);
  return m;
}

void expect_by_scanning(const std::vector<bool>& member, const std::string& what) {
  TaskMarks m = marks_of(member);
  auto n = static_cast<u32>(member.size());
  u32 next = n;
  for (u32 t = n + 1; t-- > 0;) {
    if (t < n && member[t]) next = t;
    ASSERT_EQ(m.next(t), next) << what << ": next(" << t << ")";
  }
  u32 prev = kNone;
  for (u32 t = 0; t < n; ++t) {
    if (member[t]) prev = t;
    ASSERT_EQ(m.prev(t), prev) << what << ": prev(" << t << ")";
    ASSERT_EQ(m.has(t), member[t]) << what << ": has(" << t << ")";
  }
}

TEST(TaskMarks, EmptyAndFullSets) {
  for (u32 n : {0u, 1u, 63u, 64u, 65u, 200u}) {
    expect_by_scanning(std::vector<bool>(n, false), "none of " + std::to_string(n));
    expect_by_scanning(std::vector<bool>(n, true), "all of " + std::to_string(n));
  }
}

TEST(TaskMarks, WordEdges) {
  std::vector<bool> m(64 * 5 + 7, false);
  for (u32 t : {0u, 63u, 64u, 127u, 64u * 4, 64u * 5 + 6}) m[t] = true;
  expect_by_scanning(m, "word edges");
}

TEST(TaskMarks, RandomSetsMatchAScan) {
  std::mt19937_64 rng(20261204);
  for (int round = 0; round < 2000; ++round) {
    u32 n = std::uniform_int_distribution<u32>(0, 1500)(rng);
    // From sparse (long gaps of empty words) to dense, sometimes in runs.
    double density = std::pow(10.0, -std::uniform_real_distribution<double>(0, 3)(rng));
    std::vector<bool> member(n, false);
    for (u32 t = 0; t < n;) {
      if (std::bernoulli_distribution(density)(rng)) {
        u32 run = std::uniform_int_distribution<u32>(1, round % 3 == 0 ? 80 : 1)(rng);
        for (u32 k = 0; k < run && t < n; ++k) member[t++] = true;
      } else {
        ++t;
      }
    }
    expect_by_scanning(member, "round " + std::to_string(round));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace cc
