// A small set of access ids (slice indices), kept sorted: the frontier sets
// W and R of one memory segment. Frontiers of correct schedules hold one or
// two accesses, so up to two live inline and only larger sets allocate.
//
// Twelve bytes, aligned to four: a segment of stage 4's interval maps holds
// two of them, and a 10^7-task trace has millions of segments (a frontier
// of 28 bytes instead of 72 makes each segment 48 bytes smaller).
#pragma once

#include <algorithm>
#include <cstring>

#include "model/types.h"

namespace cc {

class AccessSet {
 public:
  AccessSet() = default;
  AccessSet(const AccessSet& o) { assign(o.begin(), o.size_); }
  AccessSet& operator=(const AccessSet& o) {
    if (this != &o) {
      release();
      assign(o.begin(), o.size_);
    }
    return *this;
  }
  AccessSet(AccessSet&& o) noexcept { take(o); }
  AccessSet& operator=(AccessSet&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~AccessSet() { release(); }

  u32 size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const u32* begin() const { return data(); }
  const u32* end() const { return data() + size_; }
  u32 operator[](u32 i) const { return data()[i]; }

  void clear() {
    release();
    size_ = 0;
  }
  // Inserts keeping the order; no effect if present.
  void insert(u32 v) {
    const u32* d = data();
    const u32* pos = std::lower_bound(d, d + size_, v);
    if (pos != d + size_ && *pos == v) return;
    u32 at = static_cast<u32>(pos - d);
    if (size_ < kInline) {
      std::copy_backward(slot_ + at, slot_ + size_, slot_ + size_ + 1);
      slot_[at] = v;
    } else if (size_ == kInline || heap()[-1] == size_) {  // to the heap, or to a larger block
      const u32* old = data();
      // Capacities 3, 7, 15, ...: with the capacity in front, a block is
      // a power of two of u32s (an allocator's size class, nothing wasted).
      u32* bigger = allocate(2 * size_ + 1);
      std::copy(old, old + at, bigger);
      bigger[at] = v;
      std::copy(old + at, old + size_, bigger + at + 1);
      if (size_ > kInline) deallocate(heap());
      set_heap(bigger);
    } else {
      u32* h = heap();
      std::copy_backward(h + at, h + size_, h + size_ + 1);
      h[at] = v;
    }
    ++size_;
  }
  // Keeps the elements for which keep(v) is true.
  template <typename F>
  void retain(F&& keep) {
    if (size_ <= kInline) {
      u32 n = 0;
      for (u32 i = 0; i < size_; ++i)
        if (keep(slot_[i])) slot_[n++] = slot_[i];
      size_ = n;
      return;
    }
    u32* h = heap();
    u32 n = 0;
    for (u32 i = 0; i < size_; ++i)
      if (keep(h[i])) h[n++] = h[i];
    size_ = n;
    if (n <= kInline) {  // back inline
      std::copy(h, h + n, slot_);
      deallocate(h);
    }
  }

  bool operator==(const AccessSet& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }

 private:
  static constexpr u32 kInline = 2;
  // A set of more than kInline elements lives in a heap block whose
  // address is in slot_ (copied in and out: the slots are only aligned to
  // four bytes); the block's capacity is stored just before its elements.
  static u32* allocate(u32 capacity) {
    u32* block = new u32[capacity + 1];
    block[0] = capacity;
    return block + 1;
  }
  static void deallocate(u32* elements) { delete[] (elements - 1); }
  u32* heap() const {
    u32* p;
    std::memcpy(&p, slot_, sizeof p);
    return p;
  }
  void set_heap(u32* p) { std::memcpy(slot_, &p, sizeof p); }
  const u32* data() const { return size_ <= kInline ? slot_ : heap(); }
  void release() {
    if (size_ > kInline) deallocate(heap());
    size_ = 0;
  }
  void take(AccessSet& o) {
    size_ = o.size_;
    std::copy(o.slot_, o.slot_ + kInline, slot_);
    o.size_ = 0;
  }
  void assign(const u32* src, u32 n) {
    if (n > kInline) {
      u32* h = allocate(n);
      std::copy(src, src + n, h);
      set_heap(h);
    } else {
      std::copy(src, src + n, slot_);
    }
    size_ = n;
  }

  u32 size_ = 0;
  u32 slot_[kInline] = {0, 0};
  static_assert(sizeof(u32*) <= sizeof(u32) * kInline);
};

}  // namespace cc
