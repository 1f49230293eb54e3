// A split interval map: byte ranges of one buffer, each carrying a value.
//
// Ranges never overlap. Visiting [begin, end) first splits the segments that
// straddle `begin` and `end`, so the visitor sees pieces that lie wholly
// inside the range and may change each piece's value independently; gaps
// (bytes never visited) are created with a default value when asked to.
// After updating, `coalesce` merges neighbours whose values became equal, so
// the map stays as small as the number of distinct runs.
#pragma once

#include <algorithm>
#include <iterator>
#include <map>

#include "model/types.h"

namespace cc {

template <typename V>
class SplitIntervalMap {
 public:
  struct Segment {
    u64 end;
    V value;
  };
  using Map = std::map<u64, Segment>;  // begin -> segment

  SplitIntervalMap() = default;
  // The finger is an iterator into this map: never carried across copies.
  SplitIntervalMap(const SplitIntervalMap& o) : segments_(o.segments_) {}
  SplitIntervalMap(SplitIntervalMap&& o) noexcept : segments_(std::move(o.segments_)) {
    o.finger_ = o.segments_.end();
  }
  SplitIntervalMap& operator=(const SplitIntervalMap& o) {
    segments_ = o.segments_;
    finger_ = segments_.end();
    return *this;
  }
  SplitIntervalMap& operator=(SplitIntervalMap&& o) noexcept {
    segments_ = std::move(o.segments_);
    finger_ = segments_.end();
    o.finger_ = o.segments_.end();
    return *this;
  }

  // Calls fn(begin, end, V&) for every piece of [begin, end), in address
  // order. With `fill_gaps`, bytes not yet in the map become pieces with a
  // default V first; otherwise gaps are skipped.
  template <typename F>
  void visit(u64 begin, u64 end, bool fill_gaps, F&& fn) {
    if (begin >= end) return;
    finger_ = segments_.end();
    split_at(begin);
    split_at(end);
    u64 at = begin;
    auto it = segments_.lower_bound(begin);
    while (at < end) {
      if (it == segments_.end() || it->first > at) {
        u64 gap_end = it == segments_.end() ? end : std::min(end, it->first);
        if (fill_gaps) {
          it = segments_.emplace_hint(it, at, Segment{gap_end, V{}});
          fn(at, gap_end, it->second.value);
          ++it;
        }
        at = gap_end;
        continue;
      }
      fn(it->first, it->second.end, it->second.value);
      at = it->second.end;
      ++it;
    }
  }

  // Like visit(.., fill_gaps = true, ..), then coalesce(begin, end), with a
  // single tree search: the hot path of the sweeps, where a range usually
  // covers one or two segments.
  template <typename F>
  void update(u64 begin, u64 end, F&& fn) {
    if (begin >= end) return;
    auto it = upper_bound_near(begin);
    if (it != segments_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.end > begin) {
        if (prev->first < begin) {  // split the segment straddling begin
          Segment right{prev->second.end, prev->second.value};
          prev->second.end = begin;
          it = segments_.emplace_hint(it, begin, std::move(right));
        } else {
          it = prev;
        }
      }
    }
    // `it`: first segment starting at or after begin (or the one at begin).
    auto first = it;
    bool first_set = false;
    u64 at = begin;
    while (at < end) {
      if (it == segments_.end() || it->first > at) {
        u64 gap_end = it == segments_.end() ? end : std::min(end, it->first);
        it = segments_.emplace_hint(it, at, Segment{gap_end, V{}});
      } else if (it->second.end > end) {  // split the segment straddling end
        Segment right{it->second.end, it->second.value};
        it->second.end = end;
        segments_.emplace_hint(std::next(it), end, std::move(right));
      }
      if (!first_set) first = it, first_set = true;
      fn(it->first, it->second.end, it->second.value);
      at = it->second.end;
      ++it;
    }
    // Coalesce from the piece before the range to the piece after it.
    if (first != segments_.begin()) --first;
    finger_ = first;
    while (first != segments_.end() && first->first <= end) {
      auto next = std::next(first);
      if (next == segments_.end()) break;
      if (first->second.end == next->first && first->second.value == next->second.value) {
        first->second.end = next->second.end;
        segments_.erase(next);
      } else {
        first = next;
      }
    }
  }

  // Read-only walk over the pieces of [begin, end) that exist (no splitting):
  // fn(piece_begin, piece_end, const V&) with the piece clipped to the range.
  template <typename F>
  void scan(u64 begin, u64 end, F&& fn) const {
    if (begin >= end) return;
    auto it = segments_.upper_bound(begin);
    if (it != segments_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.end > begin) it = prev;
    }
    for (; it != segments_.end() && it->first < end; ++it)
      fn(std::max(begin, it->first), std::min(end, it->second.end), it->second.value);
  }

  // Merges touching neighbours with equal values in and around [begin, end).
  void coalesce(u64 begin, u64 end) {
    finger_ = segments_.end();
    auto it = segments_.lower_bound(begin);
    if (it != segments_.begin()) --it;
    while (it != segments_.end() && it->first <= end) {
      auto next = std::next(it);
      if (next == segments_.end()) break;
      if (it->second.end == next->first && it->second.value == next->second.value) {
        it->second.end = next->second.end;
        segments_.erase(next);
      } else {
        it = next;
      }
    }
  }

  // Removes the pieces of [begin, end) (after splitting at its ends).
  void erase(u64 begin, u64 end) {
    if (begin >= end) return;
    finger_ = segments_.end();
    split_at(begin);
    split_at(end);
    segments_.erase(segments_.lower_bound(begin), segments_.lower_bound(end));
  }

  const Map& segments() const { return segments_; }
  std::size_t size() const { return segments_.size(); }
  bool empty() const { return segments_.empty(); }

 private:
  // Ensures no segment straddles `at`.
  void split_at(u64 at) {
    auto it = segments_.upper_bound(at);
    if (it == segments_.begin()) return;
    --it;
    if (it->first < at && it->second.end > at) {
      Segment right{it->second.end, it->second.value};
      it->second.end = at;
      segments_.emplace_hint(std::next(it), at, std::move(right));
    }
  }

  // upper_bound(at), starting from the segment the last update() touched:
  // sweeps revisit a buffer near where they left it, and a step or two along
  // the list is far cheaper than a walk down a cold tree.
  typename Map::iterator upper_bound_near(u64 at) {
    auto f = finger_;
    if (f == segments_.end()) return segments_.upper_bound(at);
    if (f->first <= at) {
      auto it = std::next(f);
      for (int step = 0; step < 3; ++step) {
        if (it == segments_.end() || it->first > at) return it;
        ++it;
      }
    } else if (f == segments_.begin() || std::prev(f)->first <= at) {
      return f;
    }
    return segments_.upper_bound(at);
  }

  Map segments_;
  typename Map::iterator finger_ = segments_.end();
};

}  // namespace cc
