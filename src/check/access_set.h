// A small set of access ids (slice indices), kept sorted: the frontier sets
// W and R of one memory segment. Frontiers of correct schedules hold one or a
// few accesses, so up to three live inline and only larger sets allocate.
#pragma once

#include <algorithm>
#include <memory>

#include "model/types.h"

namespace cc {

class AccessSet {
 public:
  AccessSet() = default;
  AccessSet(const AccessSet& o) { assign(o.data(), o.size_); }
  AccessSet& operator=(const AccessSet& o) {
    if (this != &o) assign(o.data(), o.size_);
    return *this;
  }
  AccessSet(AccessSet&& o) noexcept { take(o); }
  AccessSet& operator=(AccessSet&& o) noexcept {
    if (this != &o) take(o);
    return *this;
  }

  u32 size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const u32* begin() const { return data(); }
  const u32* end() const { return data() + size_; }
  u32 operator[](u32 i) const { return data()[i]; }

  void clear() { size_ = 0; }
  // Inserts keeping the order; no effect if present.
  void insert(u32 v) {
    u32* d = data();
    u32* pos = std::lower_bound(d, d + size_, v);
    if (pos != d + size_ && *pos == v) return;
    std::size_t at = pos - d;
    reserve(size_ + 1);
    d = data();
    std::copy_backward(d + at, d + size_, d + size_ + 1);
    d[at] = v;
    ++size_;
  }
  // Keeps the elements for which keep(v) is true.
  template <typename F>
  void retain(F&& keep) {
    u32* d = data();
    u32 n = 0;
    for (u32 i = 0; i < size_; ++i)
      if (keep(d[i])) d[n++] = d[i];
    size_ = n;
  }

  bool operator==(const AccessSet& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }

 private:
  static constexpr u32 kInline = 3;
  const u32* data() const { return heap_ ? heap_.get() : inline_; }
  u32* data() { return heap_ ? heap_.get() : inline_; }
  void reserve(u32 n) {
    if (n <= capacity_) return;
    u32 cap = std::max(n, capacity_ * 2);
    std::unique_ptr<u32[]> h(new u32[cap]);
    std::copy(begin(), end(), h.get());
    heap_ = std::move(h);
    capacity_ = cap;
  }
  void take(AccessSet& o) {
    size_ = o.size_;
    capacity_ = o.capacity_;
    std::copy(o.inline_, o.inline_ + kInline, inline_);
    heap_ = std::move(o.heap_);
    o.size_ = 0;
    o.capacity_ = kInline;
  }
  void assign(const u32* src, u32 n) {
    if (n > kInline) {
      heap_.reset(new u32[n]);
      capacity_ = n;
    } else {
      heap_.reset();
      capacity_ = kInline;
    }
    std::copy(src, src + n, data());
    size_ = n;
  }

  u32 size_ = 0;
  u32 capacity_ = kInline;
  u32 inline_[kInline] = {0, 0, 0};
  std::unique_ptr<u32[]> heap_;
};

}  // namespace cc
