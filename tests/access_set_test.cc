// AccessSet (check/access_set.h), the frontier sets of stage 4: inline up
// to two elements, in a heap block beyond. Random inserts and retains
// against std::set, with copies, moves and comparisons across the border.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "check/access_set.h"

namespace cc::test::access_set_test {
namespace {

std::vector<u32> elements(const AccessSet& s) { return {s.begin(), s.end()}; }

TEST(AccessSet, IsSmall) { EXPECT_LE(sizeof(AccessSet), 12u); }

TEST(AccessSet, AgreesWithStdSet) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    AccessSet a;
    std::set<u32> ref;
    u32 range = 1 + static_cast<u32>(rng() % 40);
    for (int step = 0; step < 60; ++step) {
      switch (rng() % 6) {
        case 0:
        case 1:
        case 2: {
          u32 v = static_cast<u32>(rng() % range);
          a.insert(v);
          ref.insert(v);
          break;
        }
        case 3: {
          u32 m = 1 + static_cast<u32>(rng() % 4);
          a.retain([&](u32 v) { return v % m != 0; });
          std::erase_if(ref, [&](u32 v) { return v % m == 0; });
          break;
        }
        case 4: {  // copies and moves keep the elements, and the original
          AccessSet copy = a;
          ASSERT_TRUE(copy == a);
          AccessSet assigned;
          assigned.insert(1000), assigned.insert(1001), assigned.insert(1002);
          assigned = copy;
          ASSERT_TRUE(assigned == a);
          AccessSet moved = std::move(copy);
          ASSERT_TRUE(moved == a);
          ASSERT_TRUE(copy.empty());
          a = std::move(moved);
          break;
        }
        default:
          if (rng() % 8 == 0) {
            a.clear();
            ref.clear();
          }
      }
      ASSERT_EQ(elements(a), std::vector<u32>(ref.begin(), ref.end())) << "round " << round << " step " << step;
      ASSERT_EQ(a.size(), ref.size());
    }
  }
}

TEST(AccessSet, EqualityLooksAtTheElementsOnly) {
  AccessSet a, b;
  for (u32 v : {5u, 1u, 9u, 3u}) a.insert(v);
  for (u32 v : {3u, 9u, 1u, 5u, 7u}) b.insert(v);
  EXPECT_FALSE(a == b);
  b.retain([](u32 v) { return v != 7; });  // from a larger block
  EXPECT_TRUE(a == b);
  a.retain([](u32 v) { return v < 4; });  // back inline
  b.retain([](u32 v) { return v != 5 && v != 9; });
  EXPECT_TRUE(a == b);
  EXPECT_EQ(elements(a), (std::vector<u32>{1, 3}));
}

}  // namespace
}  // namespace cc::test::access_set_test
