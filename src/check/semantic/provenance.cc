#include "check/semantic/provenance.h"

#include <fmt/format.h>

#include <algorithm>

namespace cc {

namespace {

u64 mix(u64 h, u64 v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

u64 hash_terms(const ContribTerm* t, std::size_t n) {
  u64 h = n;
  for (std::size_t i = 0; i < n; ++i) h = mix(mix(mix(mix(h, t[i].lo), t[i].hi), t[i].delta), t[i].mult);
  return h;
}

// Deltas are differences of offsets: ordered as signed numbers, the
// smallest one is the same whatever shift the set is seen at, so a set
// translated by c canonicalises to the same id with the shift moved by c.
bool delta_less(u64 a, u64 b) { return static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b); }

bool term_less(const ContribTerm& a, const ContribTerm& b) {
  return a.delta != b.delta ? delta_less(a.delta, b.delta) : a.lo < b.lo;
}

}  // namespace

ContribSets::ContribSets() : table_(1024, kNone), memo_(kMemoSlots) {
  sets_.push_back({});  // kEmptySet
  sets_.push_back({});  // kUnknownSet
}

void ContribSets::grow_table() {
  std::vector<SetId> bigger(table_.size() * 2, kNone);
  std::size_t mask = bigger.size() - 1;
  for (SetId s : table_) {
    if (s == kNone) continue;
    std::size_t i = sets_[s].hash & mask;
    while (bigger[i] != kNone) i = (i + 1) & mask;
    bigger[i] = s;
  }
  table_ = std::move(bigger);
}

SetId ContribSets::intern_canonical(const ContribTerm* terms, std::size_t count) {
  u32 h = static_cast<u32>(hash_terms(terms, count));
  std::size_t mask = table_.size() - 1, i = h & mask;
  for (; table_[i] != kNone; i = (i + 1) & mask) {
    const SetInfo& s = sets_[table_[i]];
    if (s.hash == h && term_count(table_[i]) == count && std::equal(terms, terms + count, pool_.begin() + s.first))
      return table_[i];
  }
  SetInfo info;
  info.first = static_cast<u32>(pool_.size());
  info.hash = h;
  for (std::size_t k = 0; k < count; ++k) info.total += u64{terms[k].hi - terms[k].lo} * terms[k].mult;
  pool_.insert(pool_.end(), terms, terms + count);
  SetId id = static_cast<SetId>(sets_.size());
  sets_.push_back(info);
  table_[i] = id;
  if (sets_.size() * 2 > table_.size()) grow_table();
  return id;
}

SetId ContribSets::intern(std::vector<ContribTerm>& terms, u64& adjust) {
  std::sort(terms.begin(), terms.end(), term_less);
  // Per delta, sweep the range ends summing multiplicities, so overlapping
  // terms become disjoint ranges and touching equal ones merge.
  std::vector<ContribTerm>& out = canon_;
  out.clear();
  std::size_t i = 0;
  while (i < terms.size()) {
    std::size_t j = i;
    while (j < terms.size() && terms[j].delta == terms[i].delta) ++j;
    events_.clear();
    for (std::size_t k = i; k < j; ++k) {
      if (terms[k].lo >= terms[k].hi || terms[k].mult == 0) continue;
      events_.push_back({terms[k].lo, terms[k].mult});
      events_.push_back({terms[k].hi, -static_cast<std::int64_t>(terms[k].mult)});
    }
    std::sort(events_.begin(), events_.end());
    std::int64_t level = 0;
    for (std::size_t k = 0; k < events_.size();) {
      u32 at = events_[k].first;
      while (k < events_.size() && events_[k].first == at) level += events_[k++].second;
      if (k == events_.size()) break;
      u32 next = events_[k].first;
      if (level <= 0) continue;
      u32 m = static_cast<u32>(level);
      if (!out.empty() && out.back().delta == terms[i].delta && out.back().hi == at && out.back().mult == m)
        out.back().hi = next;
      else
        out.push_back({at, next, terms[i].delta, m});
    }
    i = j;
  }
  adjust = out.empty() ? 0 : out.front().delta;
  for (ContribTerm& x : out) x.delta -= adjust;
  if (out.empty()) return kEmptySet;
  return intern_canonical(out.data(), out.size());
}

SetId ContribSets::single(u32 rank) {
  if (rank < singles_.size() && singles_[rank] != kNone) return singles_[rank];
  ContribTerm t{rank, rank + 1, 0, 1};
  SetId s = intern_canonical(&t, 1);
  // Only ranks that occur get an entry: the table grows with use, not with
  // the operator's rank count.
  if (rank < (u32{1} << 20)) {
    if (rank >= singles_.size()) singles_.resize(rank + 1, kNone);
    singles_[rank] = s;
  }
  return s;
}

SetId ContribSets::ranks(u32 lo, u32 hi) {
  if (lo == 0 && all_ != kNone && all_n_ == hi) return all_;
  ContribTerm t{lo, hi, 0, 1};
  SetId s = lo < hi ? intern_canonical(&t, 1) : kEmptySet;
  if (lo == 0) all_ = s, all_n_ = hi;
  return s;
}

ContribSets::Union ContribSets::unite(SetId a, SetId b, u64 rel) {
  MemoEntry& slot = memo_[mix(mix(a, b), rel) & (kMemoSlots - 1)];
  if (slot.a == a && slot.b == b && slot.rel == rel) {
    ++memo_hits_;
    return slot.u;
  }
  ++unions_;
  Union u;
  std::span<const ContribTerm> ta = terms(a), tb = terms(b);
  if (ta.size() == 1 && tb.size() == 1 && ta[0].mult == 1 && tb[0].mult == 1 && rel == 0 &&
      (ta[0].hi == tb[0].lo || tb[0].hi == ta[0].lo)) {
    // The common step of a chain or ring: one range of ranks grows by a
    // touching range at the same offsets. Canonical as it stands.
    ContribTerm t{std::min(ta[0].lo, tb[0].lo), std::max(ta[0].hi, tb[0].hi), 0, 1};
    u.set = intern_canonical(&t, 1);
    slot = {a, b, rel, u};
    return u;
  }
  // b's terms in a's frame, sorted; then a two-pointer walk finds a
  // contribution both sides hold (same delta, intersecting ranks).
  scratch_.assign(tb.begin(), tb.end());
  for (ContribTerm& x : scratch_) x.delta += rel;
  std::sort(scratch_.begin(), scratch_.end(), term_less);
  for (std::size_t i = 0, j = 0; i < ta.size() && j < scratch_.size() && !u.overlap;) {
    const ContribTerm &x = ta[i], &y = scratch_[j];
    if (x.delta != y.delta) {
      (delta_less(x.delta, y.delta) ? i : j)++;
      continue;
    }
    if (x.hi <= y.lo) ++i;
    else if (y.hi <= x.lo) ++j;
    else u.overlap = true;
  }
  merged_.assign(ta.begin(), ta.end());
  merged_.insert(merged_.end(), scratch_.begin(), scratch_.end());
  u.set = intern(merged_, u.adjust);
  slot = {a, b, rel, u};
  return u;
}

namespace {

std::string op_text(u8 op) {
  if (op == kMixedOp) return "mixed ops";
  if (op == kNoOp) return "no op";
  return std::string(name(static_cast<ReduceOp>(op)));
}

// "ranks 0-3,5" for consecutive terms [i, j) of equal delta and mult.
std::string rank_list(std::span<const ContribTerm> t, std::size_t i, std::size_t j) {
  u64 n = 0;
  std::string s;
  for (std::size_t k = i; k < j; ++k) {
    n += t[k].hi - t[k].lo;
    if (k > i) s += ",";
    s += t[k].hi - t[k].lo == 1 ? fmt::format("{}", t[k].lo) : fmt::format("{}-{}", t[k].lo, t[k].hi - 1);
  }
  return (n == 1 ? "rank " : "ranks ") + s;
}

// Calls fn(text of ranks, delta, mult) per run of terms sharing delta and
// mult; at most `cap` runs, returns how many were left out.
template <typename F>
std::size_t for_runs(std::span<const ContribTerm> t, std::size_t cap, F&& fn) {
  std::size_t runs = 0, left = 0;
  for (std::size_t i = 0; i < t.size();) {
    std::size_t j = i + 1;
    while (j < t.size() && t[j].delta == t[i].delta && t[j].mult == t[i].mult) ++j;
    if (runs++ < cap) fn(rank_list(t, i, j), t[i].delta, t[i].mult);
    else ++left;
    i = j;
  }
  return left;
}

std::string times(u32 mult) { return mult == 1 ? "" : mult == 2 ? " twice" : fmt::format(" {} times", mult); }

}  // namespace

std::string describe_prov(const ContribSets& sets, const Prov& p, u64 addr) {
  if (p.empty()) return "no data";
  if (p.unknown()) return "unknown (written by a task whose data the semantic stage cannot follow)";
  u64 n = sets.total(p.set);
  std::string s = fmt::format("{} contribution{}", n, n == 1 ? "" : "s");
  if (n > 1) s += " (" + op_text(p.op) + ")";
  s += ":";
  std::string sep = " ";
  std::size_t left = for_runs(sets.terms(p.set), 6, [&](const std::string& who, u64 delta, u32 mult) {
    s += fmt::format("{}{} INPUT offset {:#x}{}", sep, who, addr + p.shift + delta, times(mult));
    sep = ", ";
  });
  if (left) s += fmt::format(" and {} more", left);
  if (p.flags & kProvPoisoned) s += "; poisoned (reduced with an unfilled side)";
  return s;
}

std::string describe_data(const ContribSets& sets, const Prov& p, u64 b, u64 e) {
  if (p.empty()) return "nothing";
  if (p.unknown()) return "data the semantic stage cannot follow";
  std::string s;
  if (sets.total(p.set) > 1)
    s = p.op == kMixedOp ? "a mix of reduce ops over " : p.op == kNoOp ? "" : "the " + op_text(p.op) + " of ";
  std::string sep;
  std::size_t left = for_runs(sets.terms(p.set), 4, [&](const std::string& who, u64 delta, u32 mult) {
    u64 o = b + p.shift + delta;
    s += fmt::format("{}{} INPUT [{:#x},{:#x}){}", sep, who, o, o + (e - b), times(mult));
    sep = ", ";
  });
  if (left) s += fmt::format(" and {} more", left);
  if (p.flags & kProvPoisoned) s += " reduced into unfilled bytes";
  return s;
}

}  // namespace cc
