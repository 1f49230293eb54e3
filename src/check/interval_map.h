// A split interval map: byte ranges of one buffer, each carrying a value.
//
// Ranges never overlap. Visiting [begin, end) first splits the segments that
// straddle `begin` and `end`, so the visitor sees pieces that lie wholly
// inside the range and may change each piece's value independently; gaps
// (bytes never visited) are created with a default value when asked to.
// After updating, `coalesce` merges neighbours whose values became equal, so
// the map stays as small as the number of distinct runs.
//
// Storage: the segments in address order, cut into blocks of at most kBlock
// segments, each block a vector, the blocks in a std::map by a key between
// the block before and the block's first segment (docs/DESIGN.md, "The
// split interval map"). A segment
// costs its 16 bytes of range and its value instead of a tree node each
// (40 % less for stage 5's values, 15-25 % for stage 4's larger ones); an
// insertion or removal moves at most two blocks' worth of segments and
// touches the index in O(log blocks), so a buffer of 10^6 segments written
// in random order costs no more per write than a tree.
// A position is (block, slot). An insertion may move segments between
// blocks; a removal moves only segments after the removed one, so positions
// before it stay valid (coalescing relies on it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "model/types.h"

namespace cc {

// kBlockSize: segments per block, 0 for about 2 KiB of them (the tests use
// tiny blocks, so that every path between blocks is taken often).
template <typename V, u32 kBlockSize = 0>
class SplitIntervalMap {
 public:
  struct Segment {
    u64 begin, end;
    V value;
  };

 private:
  // About 2 KiB of segments per block: an insertion moves at most that, and
  // the index has one node per few dozen segments.
  static constexpr u32 kBlock =
      kBlockSize >= 2 ? kBlockSize : static_cast<u32>(std::max<std::size_t>(8, 2048 / sizeof(Segment)));
  // Block b's key k: last begin of the block before < k <= b's first begin
  // (0 < k for the first block), so the search finds the block of any
  // address, and a block written at its front or its neighbour's end rarely
  // needs a new key.
  using Index = std::map<u64, std::vector<Segment>>;
  using It = typename Index::iterator;
  struct Pos {
    It b;
    u32 s = 0;
    bool operator==(const Pos&) const = default;
  };

 public:
  class const_iterator {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = Segment;
    using difference_type = std::ptrdiff_t;
    using pointer = const Segment*;
    using reference = const Segment&;
    const_iterator() = default;
    reference operator*() const { return m_->at(p_); }
    pointer operator->() const { return &m_->at(p_); }
    const_iterator& operator++() {
      p_ = m_->next(p_);
      return *this;
    }
    const_iterator& operator--() {
      p_ = m_->prev(p_);
      return *this;
    }
    const_iterator operator++(int) {
      auto t = *this;
      ++*this;
      return t;
    }
    const_iterator operator--(int) {
      auto t = *this;
      --*this;
      return t;
    }
    bool operator==(const const_iterator& o) const { return p_ == o.p_; }

   private:
    friend class SplitIntervalMap;
    const_iterator(const SplitIntervalMap* m, Pos p) : m_(m), p_(p) {}
    const SplitIntervalMap* m_ = nullptr;
    Pos p_;
  };
  // The segments in address order: begin(), end(), upper_bound(at) (the
  // first segment starting after `at`).
  struct View {
    const SplitIntervalMap* m;
    const_iterator begin() const { return {m, Pos{m->index_.begin(), 0}}; }
    const_iterator end() const { return {m, m->end_pos()}; }
    const_iterator upper_bound(u64 at) const { return {m, m->upper_bound(at)}; }
  };

  SplitIntervalMap() = default;
  // The finger is a position in this map: never carried across copies.
  SplitIntervalMap(const SplitIntervalMap& o) : index_(o.index_), size_(o.size_) {}
  SplitIntervalMap(SplitIntervalMap&& o) noexcept : index_(std::move(o.index_)), size_(o.size_) { o.clear(); }
  SplitIntervalMap& operator=(const SplitIntervalMap& o) {
    if (this != &o) {
      index_ = o.index_;
      size_ = o.size_;
      finger_ = end_pos();
    }
    return *this;
  }
  SplitIntervalMap& operator=(SplitIntervalMap&& o) noexcept {
    if (this != &o) {
      index_ = std::move(o.index_);
      size_ = o.size_;
      finger_ = end_pos();
      o.clear();
    }
    return *this;
  }

  // Calls fn(begin, end, V&) for every piece of [begin, end), in address
  // order. With `fill_gaps`, bytes not yet in the map become pieces with a
  // default V first; otherwise gaps are skipped.
  template <typename F>
  void visit(u64 begin, u64 end, bool fill_gaps, F&& fn) {
    if (begin >= end) return;
    finger_ = end_pos();
    split_at(begin);
    split_at(end);
    u64 at = begin;
    Pos p = lower_bound(begin);
    while (at < end) {
      if (is_end(p) || this->at(p).begin > at) {
        u64 gap_end = is_end(p) ? end : std::min(end, this->at(p).begin);
        if (fill_gaps) {
          p = insert(p, Segment{at, gap_end, V{}});
          fn(at, gap_end, this->at(p).value);
          p = next(p);
        }
        at = gap_end;
        continue;
      }
      Segment& s = this->at(p);
      fn(s.begin, s.end, s.value);
      at = s.end;
      p = next(p);
    }
  }

  // Like visit(.., fill_gaps = true, ..), then coalesce(begin, end), with a
  // single search: the hot path of the sweeps, where a range usually covers
  // one or two segments.
  template <typename F>
  void update(u64 begin, u64 end, F&& fn) {
    if (begin >= end) return;
    Pos p = upper_bound_near(begin);
    if (!is_first(p)) {
      Pos q = prev(p);
      if (at(q).end > begin) {
        if (at(q).begin < begin) {  // split the segment straddling begin
          Segment right{begin, at(q).end, at(q).value};
          at(q).end = begin;
          p = insert(p, std::move(right));
        } else {
          p = q;
        }
      }
    }
    // `p`: first segment starting at or after begin (or the one at begin).
    u64 at = begin;
    while (at < end) {
      if (is_end(p) || this->at(p).begin > at) {
        u64 gap_end = is_end(p) ? end : std::min(end, this->at(p).begin);
        p = insert(p, Segment{at, gap_end, V{}});
      } else if (this->at(p).end > end) {  // split the segment straddling end
        Segment right{end, this->at(p).end, this->at(p).value};
        this->at(p).end = end;
        p = prev(insert(next(p), std::move(right)));
      }
      Segment& s = this->at(p);
      fn(s.begin, s.end, s.value);
      at = s.end;
      p = next(p);
    }
    // Back to the piece before the range (a step per piece: insertions may
    // have moved segments between blocks), and coalesce from there to the
    // piece after the range.
    Pos first = p;
    while (!is_first(first) && this->at(prev(first)).begin >= begin) first = prev(first);
    if (!is_first(first)) first = prev(first);
    finger_ = first;
    merge_from(first, end);
  }

  // Read-only walk over the pieces of [begin, end) that exist (no splitting):
  // fn(piece_begin, piece_end, const V&) with the piece clipped to the range.
  template <typename F>
  void scan(u64 begin, u64 end, F&& fn) const {
    if (begin >= end) return;
    Pos p = upper_bound(begin);
    if (!is_first(p)) {
      Pos q = prev(p);
      if (at(q).end > begin) p = q;
    }
    for (; !is_end(p) && at(p).begin < end; p = next(p)) {
      const Segment& s = at(p);
      fn(std::max(begin, s.begin), std::min(end, s.end), s.value);
    }
  }

  // Merges touching neighbours with equal values in and around [begin, end).
  void coalesce(u64 begin, u64 end) {
    finger_ = end_pos();
    Pos p = lower_bound(begin);
    if (!is_first(p)) p = prev(p);
    merge_from(p, end);
  }

  // Removes the pieces of [begin, end) (after splitting at its ends).
  void erase(u64 begin, u64 end) {
    if (begin >= end) return;
    finger_ = end_pos();
    split_at(begin);
    split_at(end);
    Pos p = lower_bound(begin);
    while (!is_end(p) && at(p).begin < end) {
      const std::vector<Segment>& seg = p.b->second;
      u32 j = p.s;
      while (j < seg.size() && seg[j].begin < end) ++j;
      p = remove(p, j - p.s);
    }
  }

  View segments() const { return {this}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The blocks' invariants (for the tests): none empty or over kBlock,
  // each block's key between its neighbour's and its own first segment,
  // segments in order, size() right.
  bool valid() const {
    std::size_t n = 0;
    const Segment* last = nullptr;
    for (const auto& [key, seg] : index_) {
      if (seg.empty() || seg.size() > kBlock || key > seg.front().begin) return false;
      if (last && (last->end > seg.front().begin || key <= last->begin)) return false;
      last = &seg.back();
      n += seg.size();
    }
    return n == size_;
  }

 private:
  Segment& at(Pos p) const { return p.b->second[p.s]; }
  static u32 count(It b) { return static_cast<u32>(b->second.size()); }
  Pos end_pos() const { return {index_.end(), 0}; }
  bool is_end(Pos p) const { return p.b == index_.end(); }
  bool is_first(Pos p) const { return p.b == index_.begin() && p.s == 0; }
  Pos next(Pos p) const {
    if (++p.s == count(p.b)) ++p.b, p.s = 0;
    return p;
  }
  Pos prev(Pos p) const {
    if (p.s > 0) return {p.b, p.s - 1};
    --p.b;
    return {p.b, count(p.b) - 1};
  }
  void clear() {
    index_.clear();
    size_ = 0;
    finger_ = end_pos();
  }

  // The first segment starting after `at` (upper) or at or after it.
  template <bool kUpper>
  Pos search(u64 at) const {
    It b = kUpper ? index_.upper_bound(at) : index_.lower_bound(at);
    if (b == index_.begin()) return {b, 0};
    --b;
    const std::vector<Segment>& seg = b->second;
    auto si = std::upper_bound(seg.begin(), seg.end(), at,
                               [](u64 a, const Segment& s) { return kUpper ? a < s.begin : a <= s.begin; });
    if (si == seg.end()) return {std::next(b), 0};
    return {b, static_cast<u32>(si - seg.begin())};
  }
  Pos upper_bound(u64 at) const { return search<true>(at); }
  Pos lower_bound(u64 at) const { return search<false>(at); }

  // Gives block b a key again if its own first segment or the last one of
  // the block before moved past it: as low as allowed when the first moved
  // below it (a write in reverse order goes on below), as high as allowed
  // when the one before moved above it (a write in order goes on above).
  // Returns b's iterator.
  It fix_key(It b) {
    u64 lo = b == index_.begin() ? 0 : std::prev(b)->second.back().begin + 1;
    u64 hi = b->second.front().begin;
    if (b->first > hi) return set_key(b, lo);
    if (b->first < lo) return set_key(b, hi);
    return b;
  }
  It set_key(It b, u64 key) {
    It hint = std::next(b);
    auto node = index_.extract(b);
    node.key() = key;
    return index_.insert(hint, std::move(node));
  }

  // Inserts `x` before `p` (x.begin lies between its neighbours); returns
  // x's position. Other positions are invalid afterwards: a full block
  // passes segments to a neighbour with room, or splits in two.
  Pos insert(Pos p, Segment&& x) {
    ++size_;
    if (index_.empty()) return put({index_.emplace(x.begin, std::vector<Segment>{}).first, 0}, std::move(x));
    // At a block's start the end of the block before serves as well.
    if (p.s == 0 && p.b != index_.begin()) {
      It before = std::prev(p.b);
      if (is_end(p) || count(before) < kBlock || count(p.b) == kBlock) p = {before, count(before)};
    }
    It b = p.b;
    if (count(b) < kBlock) return put(p, std::move(x));
    bool first = b == index_.begin(), last = std::next(b) == index_.end();
    // A full block at either end of the map, written at its outer end: a new
    // block, so that writes in address order (or in reverse) fill blocks.
    if ((p.s == kBlock && last) || (p.s == 0 && first)) {
      if (p.s == 0) b = set_key(b, b->second.front().begin);  // the new block goes below
      It nb = index_.emplace_hint(p.s == 0 ? b : std::next(b), x.begin, std::vector<Segment>{});
      nb->second.reserve(kBlock);
      return put({nb, 0}, std::move(x));
    }
    // Half the room of a neighbour (the next one first), else a split.
    u32 moved;
    if (!last && count(std::next(b)) < kBlock) {
      moved = (kBlock - count(std::next(b)) + 1) / 2;
      move_tail(b, moved);
    } else if (!first && count(std::prev(b)) < kBlock) {
      It before = std::prev(b);
      moved = (kBlock - count(before) + 1) / 2;
      b = move_head(b, before, moved);
      if (p.s < moved) return put({before, count(before) - moved + p.s}, std::move(x));
      return put({b, p.s - moved}, std::move(x));
    } else {
      moved = kBlock / 2;
      index_.emplace_hint(std::next(b), b->second[kBlock - moved].begin, std::vector<Segment>{});
      move_tail(b, moved);
    }
    u32 kept = kBlock - moved;
    if (p.s <= kept) return put({b, p.s}, std::move(x));
    return put({std::next(b), p.s - kept}, std::move(x));
  }

  // Removes n segments from `p` on, all in p's block; returns the position
  // of the segment after them. Positions before `p` stay valid: a block
  // left under a quarter full takes segments from the next block only.
  // Removing keeps every key valid.
  Pos remove(Pos p, u32 n) {
    size_ -= n;
    It b = p.b;
    b->second.erase(b->second.begin() + p.s, b->second.begin() + p.s + n);
    if (b->second.empty()) return {index_.erase(b), 0};
    It after = std::next(b);
    if (count(b) < kBlock / 4 && after != index_.end()) {
      u32 have = count(b), more = count(after);
      if (have + more <= kBlock) {
        move_head(after, b, more);
        index_.erase(after);
      } else {
        move_head(after, b, (more - have) / 2);
      }
    } else if (index_.size() == 1 && b->second.capacity() >= 4 * capacity_for(count(b))) {
      b->second.shrink_to_fit();  // a map that shrank gives its memory back
    }
    return p.s == count(b) ? Pos{std::next(b), 0} : Pos{b, p.s};
  }

  // Inserts into a block with room.
  Pos put(Pos p, Segment&& x) {
    std::vector<Segment>& seg = p.b->second;
    if (seg.size() == seg.capacity()) seg.reserve(capacity_for(seg.size() + 1));
    seg.insert(seg.begin() + p.s, std::move(x));
    if (p.s == 0) p.b = fix_key(p.b);
    if (p.s + 1 == seg.size() && std::next(p.b) != index_.end()) fix_key(std::next(p.b));
    return p;
  }

  // The last n segments of block b to the front of the next block; the
  // first n of block b to the end of block `to` before it (returning b's
  // iterator, which changes with its key unless b is left empty).
  void move_tail(It b, u32 n) {
    std::vector<Segment>& from = b->second;
    It to = std::next(b);
    to->second.reserve(kBlock);
    to->second.insert(to->second.begin(), std::make_move_iterator(from.end() - n), std::make_move_iterator(from.end()));
    from.erase(from.end() - n, from.end());
    fix_key(to);
  }
  It move_head(It b, It to, u32 n) {
    std::vector<Segment>& from = b->second;
    to->second.reserve(kBlock);
    to->second.insert(to->second.end(), std::make_move_iterator(from.begin()),
                      std::make_move_iterator(from.begin() + n));
    from.erase(from.begin(), from.begin() + n);
    return from.empty() ? b : fix_key(b);
  }

  // A lone block grows by half (at most to kBlock), not by doubling: the
  // spare room is memory the segments pay for. A map of several blocks
  // gives each block room for kBlock, so that none reallocates again.
  static std::size_t capacity_for(std::size_t n) {
    return std::min<std::size_t>(kBlock, std::max<std::size_t>(2, n + n / 2));
  }

  // Merges equal touching neighbours from `p` while segments start at or
  // before `end`, a run within one block at a time. Only segments after `p`
  // are removed: `p` stays valid.
  void merge_from(Pos p, u64 end) {
    while (!is_end(p) && at(p).begin <= end) {
      Pos nx = next(p);
      if (is_end(nx)) break;
      Segment& s = at(p);
      const std::vector<Segment>& seg = nx.b->second;
      u32 j = nx.s;
      while (j < seg.size() && s.end == seg[j].begin && s.value == seg[j].value) s.end = seg[j++].end;
      if (j == nx.s) {
        p = nx;
      } else {
        remove(nx, j - nx.s);
      }
    }
  }

  // Ensures no segment straddles `at`.
  void split_at(u64 at) {
    Pos p = upper_bound(at);
    if (is_first(p)) return;
    Pos q = prev(p);
    if (this->at(q).begin < at && this->at(q).end > at) {
      Segment right{at, this->at(q).end, this->at(q).value};
      this->at(q).end = at;
      insert(p, std::move(right));
    }
  }

  // upper_bound(at), starting from the segment the last update() touched:
  // sweeps revisit a buffer near where they left it, and a step or two along
  // the segments is far cheaper than a search from cold memory.
  Pos upper_bound_near(u64 at) const {
    Pos f = finger_;
    if (is_end(f)) return upper_bound(at);
    if (this->at(f).begin <= at) {
      Pos it = next(f);
      for (int step = 0; step < 3; ++step) {
        if (is_end(it) || this->at(it).begin > at) return it;
        it = next(it);
      }
    } else if (is_first(f) || this->at(prev(f)).begin <= at) {
      return f;
    }
    return upper_bound(at);
  }

  // mutable: positions hold iterators, which the const members (scan, the
  // view) take from it as well; they only read through them.
  mutable Index index_;
  std::size_t size_ = 0;
  Pos finger_{index_.end(), 0};
};

}  // namespace cc
