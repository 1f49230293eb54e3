#include "gen/slicing.h"

#include <algorithm>

namespace cc::gen {

Parts clipped_pieces(u64 total, u64 piece, u32 k) {
  Parts p(k);
  for (u32 i = 0; i < k; ++i) {
    u64 start = std::min(u64{i} * piece, total);
    p[i] = {start, std::min(piece, total - start)};
  }
  return p;
}

Parts even_split(u64 total, u32 k) {
  return clipped_pieces(total, round_up(ceil_div(total, k), kSliceAlign), k);
}

Parts equal_blocks(u64 block, u32 k) {
  Parts p(k);
  for (u32 i = 0; i < k; ++i) p[i] = {u64{i} * block, block};
  return p;
}

Parts stream_split(Part seg, u32 m) {
  Parts p = clipped_pieces(seg.len, round_up(ceil_div(seg.len, m), kSliceAlign), m);
  for (Part& x : p) x.off += seg.off;
  return p;
}

Part part_range(const Parts& t, u32 a, u32 m) {
  u64 start = t[a].off;
  u64 end = t[a + m - 1].off + t[a + m - 1].len;
  return {start, end - start};
}

std::vector<Part> merged_ranges(const Parts& t, std::vector<u32> idx) {
  std::sort(idx.begin(), idx.end());
  std::vector<Part> out;
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i + 1;
    while (j < idx.size() && idx[j] == idx[j - 1] + 1) ++j;
    out.push_back(part_range(t, idx[i], static_cast<u32>(j - i)));
    i = j;
  }
  return out;
}

u32 nhr_steps(u32 n) {
  u32 bits = 0;
  for (u32 v = n - 1; v; v >>= 1) ++bits;
  return bits;
}

std::vector<u32> nhr_sigma(u32 n) {
  std::vector<u32> tree(n), next(n);
  for (u32 i = 0; i < n; ++i) tree[i] = i;
  u32 len = n;
  for (u32 s = 0; s < 31 && (n - 1 + (u64{1} << s)) / (u64{2} << s) > 1; ++s) {
    // Inside each part of `len`, even offsets go to the front half, odd ones
    // to the back half, so that the slices one step moves become adjacent.
    for (u32 part = 0; part < n; part += len)
      for (u32 o = 0; o < len; ++o) next[part + (o % 2 == 0 ? o / 2 : (o + len) / 2)] = tree[part + o];
    tree.swap(next);
    if (len % 2 == 1) break;
    len /= 2;
  }
  std::vector<u32> sigma(n);
  for (u32 i = 0; i < n; ++i) sigma[tree[i]] = i;
  return sigma;
}

}  // namespace cc::gen
