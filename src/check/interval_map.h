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
// segments, each block a vector of its own (docs/DESIGN.md, "The split
// interval map"). A segment costs its 16 bytes of range and its value, not a
// tree node (about half as much), and an insertion or removal moves at most
// two blocks' worth of segments, so 10^5 segments written in random order
// cost no more each than 10^2 do, unlike one sorted vector.
// A position is (block, slot). An insertion may move segments between
// blocks; a removal moves only segments after the removed one, so positions
// before it stay valid (coalescing relies on it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
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
  // About 2 KiB of segments per block: a block's insertion moves at most
  // that, and the block index stays a few hundred bytes per 10^4 segments.
  static constexpr u32 kBlock =
      kBlockSize >= 2 ? kBlockSize : static_cast<u32>(std::max<std::size_t>(8, 2048 / sizeof(Segment)));
  struct Block {
    u64 lo;  // seg.front().begin, kept here so the search touches one array
    std::vector<Segment> seg;
  };
  struct Pos {
    u32 b = 0, s = 0;
    bool operator==(const Pos&) const = default;
  };
  static constexpr Pos kNoPos{~u32{0}, 0};

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
    const_iterator& operator++() { p_ = m_->next(p_); return *this; }
    const_iterator& operator--() { p_ = m_->prev(p_); return *this; }
    const_iterator operator++(int) { auto t = *this; ++*this; return t; }
    const_iterator operator--(int) { auto t = *this; --*this; return t; }
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
    const_iterator begin() const { return {m, Pos{}}; }
    const_iterator end() const { return {m, m->end_pos()}; }
    const_iterator upper_bound(u64 at) const { return {m, m->upper_bound(at)}; }
  };

  SplitIntervalMap() = default;
  // The finger is a position in this map: never carried across copies.
  SplitIntervalMap(const SplitIntervalMap& o) : blocks_(o.blocks_), size_(o.size_) {}
  SplitIntervalMap(SplitIntervalMap&& o) noexcept : blocks_(std::move(o.blocks_)), size_(o.size_) { o.clear(); }
  SplitIntervalMap& operator=(const SplitIntervalMap& o) {
    if (this != &o) {
      blocks_ = o.blocks_;
      size_ = o.size_;
      finger_ = kNoPos;
    }
    return *this;
  }
  SplitIntervalMap& operator=(SplitIntervalMap&& o) noexcept {
    if (this != &o) {
      blocks_ = std::move(o.blocks_);
      size_ = o.size_;
      finger_ = kNoPos;
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
    finger_ = kNoPos;
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
    finger_ = kNoPos;
    Pos p = lower_bound(begin);
    if (!is_first(p)) p = prev(p);
    merge_from(p, end);
  }

  // Removes the pieces of [begin, end) (after splitting at its ends).
  void erase(u64 begin, u64 end) {
    if (begin >= end) return;
    finger_ = kNoPos;
    split_at(begin);
    split_at(end);
    Pos p = lower_bound(begin);
    while (!is_end(p) && at(p).begin < end) p = remove(p);
  }

  View segments() const { return {this}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The blocks' invariants (for the tests): none empty or over kBlock,
  // each block's key its first segment's, segments in order, size() right.
  bool valid() const {
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const std::vector<Segment>& seg = blocks_[b].seg;
      if (seg.empty() || seg.size() > kBlock || blocks_[b].lo != seg.front().begin) return false;
      if (b > 0 && blocks_[b - 1].seg.back().end > seg.front().begin) return false;
      n += seg.size();
    }
    return n == size_;
  }

 private:
  Segment& at(Pos p) { return blocks_[p.b].seg[p.s]; }
  const Segment& at(Pos p) const { return blocks_[p.b].seg[p.s]; }
  Pos end_pos() const { return {static_cast<u32>(blocks_.size()), 0}; }
  bool is_end(Pos p) const { return p.b == blocks_.size(); }
  static bool is_first(Pos p) { return p.b == 0 && p.s == 0; }
  Pos next(Pos p) const {
    if (++p.s == blocks_[p.b].seg.size()) ++p.b, p.s = 0;
    return p;
  }
  Pos prev(Pos p) const {
    if (p.s > 0) return {p.b, p.s - 1};
    return {p.b - 1, static_cast<u32>(blocks_[p.b - 1].seg.size() - 1)};
  }
  void clear() {
    blocks_.clear();
    size_ = 0;
    finger_ = kNoPos;
  }

  // The first segment starting after `at` (upper) or at or after it.
  template <bool kUpper>
  Pos search(u64 at) const {
    auto after = [](u64 a, u64 key) { return kUpper ? a < key : a <= key; };
    auto bi = std::upper_bound(blocks_.begin(), blocks_.end(), at,
                               [&](u64 a, const Block& b) { return after(a, b.lo); });
    if (bi == blocks_.begin()) return {};
    u32 b = static_cast<u32>(bi - blocks_.begin() - 1);
    const std::vector<Segment>& seg = blocks_[b].seg;
    auto si = std::upper_bound(seg.begin(), seg.end(), at,
                               [&](u64 a, const Segment& s) { return after(a, s.begin); });
    if (si == seg.end()) return {b + 1, 0};
    return {b, static_cast<u32>(si - seg.begin())};
  }
  Pos upper_bound(u64 at) const { return search<true>(at); }
  Pos lower_bound(u64 at) const { return search<false>(at); }

  // Inserts `x` before `p` (x.begin lies between its neighbours); returns
  // x's position. Other positions are invalid afterwards: a full block
  // passes segments to a neighbour with room, or splits in two.
  Pos insert(Pos p, Segment&& x) {
    ++size_;
    if (blocks_.empty()) {
      blocks_.push_back(Block{x.begin, {}});
      return put(Pos{}, std::move(x));
    }
    // At a block's start the end of the block before serves as well.
    if (p.s == 0 && p.b > 0 && (is_end(p) || count(p.b - 1) < kBlock || count(p.b) == kBlock))
      p = {p.b - 1, count(p.b - 1)};
    if (count(p.b) < kBlock) return put(p, std::move(x));
    u32 b = p.b;
    // A full block at either end of the map, written at its outer end: a new
    // block, so that writes in address order (or in reverse) fill blocks.
    if ((p.s == kBlock && b + 1 == blocks_.size()) || (p.s == 0 && b == 0)) {
      u32 at = p.s == 0 ? b : b + 1;
      blocks_.insert(blocks_.begin() + at, Block{x.begin, {}});
      blocks_[at].seg.reserve(kBlock);
      return put(Pos{at, 0}, std::move(x));
    }
    // Half the room of a neighbour (the next one first), else a split.
    u32 moved;
    if (b + 1 < blocks_.size() && count(b + 1) < kBlock) {
      moved = (kBlock - count(b + 1) + 1) / 2;
      move_tail(b, moved);
    } else if (b > 0 && count(b - 1) < kBlock) {
      moved = (kBlock - count(b - 1) + 1) / 2;
      move_head(b, moved);
      if (p.s < moved) return put(Pos{b - 1, count(b - 1) - moved + p.s}, std::move(x));
      return put(Pos{b, p.s - moved}, std::move(x));
    } else {
      blocks_.insert(blocks_.begin() + b + 1, Block{0, {}});
      blocks_[b + 1].seg.reserve(kBlock);
      moved = kBlock / 2;
      move_tail(b, moved);
    }
    u32 kept = kBlock - moved;
    return p.s <= kept ? put(Pos{b, p.s}, std::move(x)) : put(Pos{b + 1, p.s - kept}, std::move(x));
  }

  // Removes the segment at `p`; returns the position of the one after it.
  // Positions before `p` stay valid: a block left under a quarter full
  // takes segments from the next block only.
  Pos remove(Pos p) {
    --size_;
    std::vector<Segment>& seg = blocks_[p.b].seg;
    seg.erase(seg.begin() + p.s);
    if (seg.empty()) {
      blocks_.erase(blocks_.begin() + p.b);
      return {p.b, 0};
    }
    if (p.s == 0) blocks_[p.b].lo = seg.front().begin;
    if (count(p.b) < kBlock / 4 && p.b + 1 < blocks_.size()) {
      u32 have = count(p.b), next = count(p.b + 1);
      if (have + next <= kBlock) {
        move_head(p.b + 1, next);
        blocks_.erase(blocks_.begin() + p.b + 1);
      } else {
        move_head(p.b + 1, (next - have) / 2);
      }
    } else if (blocks_.size() == 1 && seg.capacity() >= 4 * capacity_for(seg.size())) {
      seg.shrink_to_fit();  // a map that shrank gives its memory back
    }
    return p.s == count(p.b) ? Pos{p.b + 1, 0} : p;
  }

  u32 count(u32 b) const { return static_cast<u32>(blocks_[b].seg.size()); }

  // Inserts into a block with room.
  Pos put(Pos p, Segment&& x) {
    std::vector<Segment>& seg = blocks_[p.b].seg;
    if (seg.size() == seg.capacity()) seg.reserve(capacity_for(seg.size() + 1));
    seg.insert(seg.begin() + p.s, std::move(x));
    if (p.s == 0) blocks_[p.b].lo = seg.front().begin;
    return p;
  }

  // The last n segments of block b to the front of block b + 1, or the
  // first n of block b to the end of block b - 1.
  void move_tail(u32 b, u32 n) {
    std::vector<Segment>& from = blocks_[b].seg;
    std::vector<Segment>& to = blocks_[b + 1].seg;
    to.reserve(kBlock);
    to.insert(to.begin(), std::make_move_iterator(from.end() - n), std::make_move_iterator(from.end()));
    from.erase(from.end() - n, from.end());
    blocks_[b + 1].lo = to.front().begin;
  }
  void move_head(u32 b, u32 n) {
    std::vector<Segment>& from = blocks_[b].seg;
    std::vector<Segment>& to = blocks_[b - 1].seg;
    to.reserve(kBlock);
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.begin() + n));
    from.erase(from.begin(), from.begin() + n);
    if (!from.empty()) blocks_[b].lo = from.front().begin;
  }

  // A lone block grows by half (at most to kBlock), not by doubling: the
  // spare room is memory the segments pay for. A map of several blocks
  // gives each block room for kBlock, so that none reallocates again.
  static std::size_t capacity_for(std::size_t n) { return std::min<std::size_t>(kBlock, std::max<std::size_t>(2, n + n / 2)); }

  // Merges equal touching neighbours from `p` while segments start at or
  // before `end`. Only segments after `p` are removed: `p` stays valid.
  void merge_from(Pos p, u64 end) {
    while (!is_end(p) && at(p).begin <= end) {
      Pos nx = next(p);
      if (is_end(nx)) break;
      Segment& s = at(p);
      if (s.end == at(nx).begin && s.value == at(nx).value) {
        s.end = at(nx).end;
        remove(nx);
      } else {
        p = nx;
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
    if (f.b >= blocks_.size() || f.s >= blocks_[f.b].seg.size()) return upper_bound(at);
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

  std::vector<Block> blocks_;
  std::size_t size_ = 0;
  Pos finger_ = kNoPos;
};

}  // namespace cc
