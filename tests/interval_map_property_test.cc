// The split interval map against a byte-array model: random sequences of
// every operation, over windows small and large (thousands of segments, so
// blocks fill, split, merge and empty), placed at 0, mid-range or ending at
// 2^64 - 1, with ranges near the previous one (the finger's paths) as well
// as anywhere. A wrong split or merge shows as a byte whose value or
// presence differs, a piece out of order, or an unmerged equal neighbour.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "check/interval_map.h"
#include "gen_cases.h"

namespace cc {
namespace {

// A value that owns heap memory: a segment moved from and then read (or
// copied wrongly when a block splits) shows as an empty vector, which no
// model value maps to (the model's values are 1..).
struct Boxed {
  std::vector<int> v;
  bool operator==(const Boxed&) const = default;
};
int as_int(int x) { return x; }
int as_int(const Boxed& x) { return x.v.empty() ? 0 : x.v[0]; }
void set_int(int& x, int v) { x = v; }
void set_int(Boxed& x, int v) { x.v.assign(static_cast<std::size_t>(v % 3 + 1), v); }

using Model = std::vector<std::optional<int>>;  // per byte of the window

template <typename V, u32 kB = 0>
struct Harness {
  u64 base, width;
  SplitIntervalMap<V, kB> m;
  Model model;
  bool canonical = true;  // no visit() since the last check: no equal touching neighbours anywhere

  Harness(u64 b, u64 w) : base(b), width(w), model(w) {}

  // The map's segments must be exactly the model's runs (with canonical,
  // maximal runs; otherwise any split of them with equal values).
  void check_all() {
    u64 at = base;  // next byte not yet covered by a segment seen
    std::size_t count = 0;
    const V* last = nullptr;
    u64 last_end = 0;
    auto segs = m.segments();
    for (auto it = segs.begin(); it != segs.end(); ++it) {
      const auto& s = *it;
      ++count;
      ASSERT_GE(s.begin, base);
      ASSERT_LT(s.begin, s.end);
      ASSERT_LE(s.end - base, width);
      ASSERT_GE(s.begin, at) << "segments overlap or are out of order";
      for (u64 i = at; i < s.begin; ++i) ASSERT_FALSE(model[i - base].has_value()) << "byte " << i - base << " lost";
      for (u64 i = s.begin; i < s.end; ++i) {
        ASSERT_TRUE(model[i - base].has_value()) << "byte " << i - base << " invented";
        ASSERT_EQ(as_int(s.value), *model[i - base]) << "byte " << i - base;
      }
      if (canonical && last && last_end == s.begin) {
        ASSERT_FALSE(*last == s.value) << "unmerged at " << s.begin - base;
      }
      last = &s.value;
      last_end = s.end;
      at = s.end;
    }
    for (u64 i = at - base; i < width; ++i) ASSERT_FALSE(model[i].has_value()) << "byte " << i << " lost";
    ASSERT_EQ(m.size(), count);
    ASSERT_TRUE(m.valid());
    ASSERT_EQ(m.empty(), count == 0);
    // Backwards gives the same segments.
    std::size_t back = 0;
    for (auto it = segs.end(); it != segs.begin();) {
      --it;
      ++back;
      if (it != segs.begin()) {
        ASSERT_LE(std::prev(it)->end, it->begin);
      }
    }
    ASSERT_EQ(back, count);
  }

  // upper_bound of the view, against a walk.
  void check_upper_bound(u64 at) {
    auto segs = m.segments();
    auto want = segs.begin();
    while (want != segs.end() && want->begin <= at) ++want;
    ASSERT_TRUE(segs.upper_bound(at) == want) << "upper_bound(" << at - base << ")";
  }

  void check_scan(u64 a, u64 b) {
    u64 at = a;
    const SplitIntervalMap<V, kB>& cm = m;
    cm.scan(a, b, [&](u64 s, u64 e, const V& x) {
      ASSERT_LE(at, s);
      ASSERT_LT(s, e);
      ASSERT_LE(e, b);
      for (u64 i = at; i < s; ++i) ASSERT_FALSE(model[i - base].has_value());
      for (u64 i = s; i < e; ++i) ASSERT_EQ(model[i - base], std::optional<int>(as_int(x)));
      at = e;
    });
    for (u64 i = at; i < b; ++i) ASSERT_FALSE(model[i - base].has_value());
  }

  // fn's pieces must tile [a, b) where bytes exist (all of it with fill),
  // in order; each piece gets f(old).
  template <typename F>
  void modify(u64 a, u64 b, bool fused, bool fill, F&& f) {
    u64 at = a;
    auto fn = [&](u64 s, u64 e, V& x) {
      ASSERT_LE(at, s);
      ASSERT_LT(s, e);
      ASSERT_LE(e, b);
      if (fill) {
        ASSERT_EQ(s, at) << "a gap left unfilled";
      }
      for (u64 i = s; i < e; ++i) {
        auto& mv = model[i - base];
        ASSERT_EQ(mv.value_or(0), as_int(x)) << "piece value";
        if (!fill) {
          ASSERT_TRUE(mv.has_value());
        }
      }
      int nv = f(as_int(x));
      set_int(x, nv);
      for (u64 i = s; i < e; ++i) model[i - base] = nv;
      at = e;
    };
    if (fused) {
      m.update(a, b, fn);
    } else {
      m.visit(a, b, fill, fn);
      canonical = false;
    }
    if (fill) {
      ASSERT_EQ(at, b);
    }
    for (u64 i = at; i < b; ++i) ASSERT_FALSE(model[i - base].has_value());
    if (fused && a < b) {
      // No equal touching neighbours whose boundary lies in [a, b].
      auto segs = m.segments();
      for (auto nx = a == 0 ? segs.begin() : segs.upper_bound(a - 1); nx != segs.end() && nx->begin <= b; ++nx) {
        if (nx == segs.begin()) continue;
        auto it = std::prev(nx);
        if (it->end == nx->begin) {
          ASSERT_FALSE(it->value == nx->value) << "unmerged at " << nx->begin - base;
        }
      }
    }
  }
};

template <typename V, u32 kB = 0>
void run_sequences(u64 seed, u32 full_rounds) {
  // A quarter of the rounds under the sanitizers (COLLCHECK_QUICK_TESTS).
  const int rounds = static_cast<int>(test::scaled(full_rounds));
  std::mt19937_64 rng(seed);
  auto pick = [&](u64 n) { return n == 0 ? u64{0} : rng() % n; };
  for (int round = 0; round < rounds; ++round) {
    u64 width = std::vector<u64>{64, 64, 256, 1024, 6000}[pick(5)];
    u64 base = std::vector<u64>{0, u64{1} << 40, ~u64{0} - width, (~u64{0} - width) & ~u64{0xfff}}[pick(4)];
    Harness<V, kB> h(base, width);
    bool updates_only = pick(3) == 0;  // the map must stay canonical throughout
    int ops = width > 1024 ? 1500 : 200;
    int check_every = width > 1024 ? 50 : 1;
    int values = 1 + static_cast<int>(pick(4));  // few values: runs merge often
    u64 small = 1 + pick(16);                    // typical range length
    u64 la = 0, lb = 0;                          // previous range, relative
    for (int op = 0; op < ops; ++op) {
      // Ranges: anywhere, just after the last one (a sweep), overlapping or
      // just before it (the finger stepping back), or the whole window.
      u64 a, b;
      switch (pick(6)) {
        case 0: a = pick(width), b = pick(width + 1); break;
        case 1: a = lb, b = lb + 1 + pick(small); break;
        case 2: a = la > small ? la - pick(small) : 0, b = a + 1 + pick(small); break;
        case 3: a = lb > 0 ? lb - 1 : 0, b = a + 1 + pick(3 * small); break;
        case 4: a = pick(width), b = a + 1 + pick(small); break;
        default: a = pick(8), b = width - pick(8); break;
      }
      b = std::min(b, width);
      a = std::min(a, width);
      if (a > b) std::swap(a, b);
      la = a, lb = b;
      u64 A = base + a, B = base + b;
      int v = 1 + static_cast<int>(pick(static_cast<u64>(values)));
      u64 kind = pick(20);
      if (updates_only && kind >= 12 && kind < 16) kind = 0;
      if (kind < 9) {
        h.modify(A, B, true, true, [&](int) { return v; });
      } else if (kind < 11) {
        h.modify(A, B, true, true, [&](int old) { return old + v; });
      } else if (kind < 12) {
        h.modify(A, B, true, true, [&](int old) { return old == 0 ? v : old; });
      } else if (kind < 14) {
        bool fill = pick(2);
        h.modify(A, B, false, fill, [&](int) { return v; });
      } else if (kind < 16) {
        h.m.coalesce(A, B);
      } else if (kind < 17) {
        h.m.erase(A, B);
        for (u64 i = a; i < b; ++i) h.model[i].reset();
      } else if (kind < 19) {
        h.check_scan(A, B);
      } else if (pick(2)) {
        SplitIntervalMap<V, kB> copy(h.m);  // a copy starts without a finger
        h.m = std::move(copy);
      } else {
        SplitIntervalMap<V, kB> copy;
        copy = h.m;
        h.m = SplitIntervalMap<V, kB>(std::move(copy));
      }
      if (::testing::Test::HasFatalFailure()) {
        ADD_FAILURE() << "seed " << seed << " round " << round << " op " << op << " kind " << kind << " [" << a << ","
                      << b << ") base " << base;
        return;
      }
      if (op % check_every == 0 || op + 1 == ops) {
        h.check_all();
        h.check_upper_bound(base + pick(width + 1));
        if (::testing::Test::HasFatalFailure()) {
          ADD_FAILURE() << "seed " << seed << " round " << round << " after op " << op << " kind " << kind;
          return;
        }
      }
    }
  }
}

// The map's own block size, then tiny blocks: every insertion near a block
// boundary, every split and merge of blocks, taken thousands of times.
TEST(SplitIntervalMapProperty, MatchesByteModelInt) { run_sequences<int>(11, 400); }
TEST(SplitIntervalMapProperty, MatchesByteModelSmallBlocks) {
  run_sequences<int, 2>(13, 300);
  run_sequences<int, 3>(14, 300);
  run_sequences<int, 8>(15, 300);
}
TEST(SplitIntervalMapProperty, MatchesByteModelOwningValue) {
  run_sequences<Boxed>(12, 150);
  run_sequences<Boxed, 4>(16, 300);
}

// Many short writes at random offsets of one buffer, each with its own value:
// tens of thousands of segments, each insertion in the middle; the result
// must match the model (and the run stays linear: block moves only).
TEST(SplitIntervalMapProperty, ManyRandomWrites) {
  std::mt19937_64 rng(5);
  const u64 width = 1 << 20;
  Harness<int> h(u64{1} << 50, width);  // the map's own block size
  for (int i = 0; i < 60000; ++i) {
    u64 a = rng() % width, b = std::min(width, a + 1 + rng() % 24);
    int v = i + 1;
    h.modify(h.base + a, h.base + b, true, true, [&](int) { return v; });
    if (i % 3 == 0) {  // and some removals, so blocks shrink and merge
      u64 c = rng() % width, d = std::min(width, c + 1 + rng() % 48);
      h.m.erase(h.base + c, h.base + d);
      for (u64 j = c; j < d; ++j) h.model[j].reset();
    }
    ASSERT_FALSE(HasFatalFailure()) << "write " << i;
  }
  EXPECT_GT(h.m.size(), 30000u);
  h.check_all();
  for (int i = 0; i < 100; ++i) h.check_upper_bound(h.base + rng() % (width + 1));
  // Then everything merges into one run: the blocks empty and go.
  h.modify(h.base, h.base + width, true, true, [](int) { return 1; });
  EXPECT_EQ(h.m.size(), 1u);
  h.check_all();
}

// The last byte of the address space: end == 2^64 - 1 at most (exclusive),
// ranges ending there and segments touching it.
TEST(SplitIntervalMapProperty, TopOfAddressSpace) {
  const u64 top = ~u64{0};
  SplitIntervalMap<int> m;
  m.update(top - 10, top, [](u64, u64, int& x) { x = 1; });
  m.update(top - 5, top, [](u64, u64, int& x) { x = 2; });
  m.update(top - 1, top, [](u64, u64, int& x) { x = 2; });
  ASSERT_EQ(m.size(), 2u);
  auto segs = m.segments();
  EXPECT_EQ(segs.begin()->end, top - 5);
  EXPECT_EQ(std::next(segs.begin())->end, top);
  EXPECT_TRUE(segs.upper_bound(top) == segs.end());
  int pieces = 0;
  m.scan(top - 20, top, [&](u64, u64, const int&) { ++pieces; });
  EXPECT_EQ(pieces, 2);
  m.erase(top - 7, top);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.segments().begin()->end, top - 7);
}

}  // namespace
}  // namespace cc
