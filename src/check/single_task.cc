#include "check/single_task.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "check/aiv_rules.h"
#include "model/describe.h"

namespace cc {

bool slice_addressable(const Trace& t, const Slice& s) {
  if (s.rank >= t.op.ranks) return false;
  if (t.buffer_size(s.rank, s.buf) == BufferSizes::kUndeclared) return false;
  return s.offset + s.len >= s.offset;
}

namespace {

// Problems of one slice, appended to `why` (text built only on a problem:
// this runs for every slice of every trace).
void slice_problems(const Trace& t, const Slice& s, std::string_view role,
                    std::vector<std::string>& why) {
  auto what = [&] { return fmt::format("{} {}", role, describe_slice(t, s)); };
  if (s.rank >= t.op.ranks) {
    why.push_back(fmt::format("{}: rank {} is outside the operator's ranks 0..{}", what(), s.rank,
                              t.op.ranks - 1));
    return;
  }
  u64 size = t.buffer_size(s.rank, s.buf);
  if (size == BufferSizes::kUndeclared) {
    why.push_back(fmt::format("{}: buffer type {} is not declared for rank {}", what(),
                              t.buffers.name(s.buf), s.rank));
    return;
  }
  u64 end;
  if (__builtin_add_overflow(s.offset, s.len, &end)) {
    why.push_back(fmt::format("{}: offset + len overflows 64 bits", what()));
    return;
  }
  if (t.aiv.is_own_buffer(s.buf)) return;  // AIV_UB, AIV_COMM: bounded by their snapshot (aiv_task_problems)
  if (end > BufferSizes::end_limit(size))
    why.push_back(fmt::format("{}: ends at {:#x}, past the end of the buffer (size {:#x})", what(),
                              end, size));
}

// A destination recorded larger than what its copy moves (an importer's
// Trace::recorded_lens) must lie in its buffer as recorded, too; checked
// only once the slice itself is valid, so that nothing is said twice.
void recorded_problems(const Trace& t, u32 slice, std::string_view role, std::vector<std::string>& why) {
  auto rec = t.recorded_len(slice);
  if (!rec) return;
  const Slice& s = t.slices[slice];
  if (s.rank >= t.op.ranks) return;
  u64 size = t.buffer_size(s.rank, s.buf), end;
  if (size == BufferSizes::kUndeclared || __builtin_add_overflow(s.offset, s.len, &end) ||
      end > BufferSizes::end_limit(size))
    return;
  std::string what = fmt::format("{} {} recorded with length {:#x}", role, describe_slice(t, s), *rec);
  if (__builtin_add_overflow(s.offset, *rec, &end))
    why.push_back(fmt::format("{}: offset + recorded length overflows 64 bits", what));
  else if (end > BufferSizes::end_limit(size))
    why.push_back(fmt::format("{}: as recorded it ends at {:#x}, past the end of the buffer (size {:#x})", what,
                              end, size));
}

bool overlap(const Slice& a, const Slice& b) {
  if (a.len == 0 || b.len == 0 || a.rank != b.rank || a.buf != b.buf) return false;
  // [a.o, a.o+a.len) and [b.o, b.o+b.len) intersect; written without overflow.
  return a.offset <= b.offset ? b.offset - a.offset < a.len : a.offset - b.offset < b.len;
}

// The MS buffer of CCU nodes (ccu.md §6.2), kNoBuf if the trace has none.
BufId ms_buffer(const Trace& t) {
  auto it = t.buffers.ids.find("MS");
  return it == t.buffers.ids.end() ? kNoBuf : it->second;
}

void task_problems(const Trace& t, u32 id, BufId ms, std::vector<std::string>& why) {
  const Task& k = t.tasks[id];
  if ((k.flags & kTaskCcu) && ms != kNoBuf)  // one MS operation moves at most one slot (ccu.md §6.2)
    for (u32 gi = 0; gi < k.group_count(); ++gi) {
      const Group& g = t.group(k, gi);
      for (u32 i = 0; i <= g.src_count; ++i) {
        const Slice& s = t.slices[i < g.src_count ? g.first_src + i : g.dst];
        if (s.buf == ms && s.len > kCcuMsSlotBytes)
          why.push_back(fmt::format("MS operand {} is longer than one {}-byte slot", describe_slice(t, s),
                                    kCcuMsSlotBytes));
      }
    }
  bool reduce = is_reduce_task(k.type);
  bool batch = k.type == TaskType::BATCH_TRANS_MEM || k.type == TaskType::BATCH_REDUCE;
  u32 u = size_of(k.data_type);
  for (u32 gi = 0; gi < k.group_count(); ++gi) {
    const Group& g = t.group(k, gi);
    const Slice& dst = t.slices[g.dst];
    std::string where = batch ? fmt::format("{} {}: ", reduce ? "group" : "pair", gi) : std::string();
    for (u32 i = 0; i < g.src_count; ++i)
      slice_problems(t, t.slices[g.first_src + i], where + "src", why);
    slice_problems(t, dst, where + "dst", why);
    recorded_problems(t, g.dst, where + "dst", why);
    if (g.src_count == 0) {
      why.push_back(where + (batch ? "the group has no source" : "the reduce has no source"));
      continue;
    }
    for (u32 i = 0; i < g.src_count; ++i) {
      const Slice& src = t.slices[g.first_src + i];
      if (src.len != dst.len)
        why.push_back(fmt::format("{}src len {:#x} differs from dst len {:#x}", where, src.len,
                                  dst.len));
      else if (reduce && src.len % u != 0)
        why.push_back(fmt::format("{}reduce length {:#x} is not a multiple of the {} element size ({})",
                                  where, src.len, name(k.data_type), u));
    }
  }
}

// 202: pairs of slices of one task that must not overlap. In a CCU batch
// (a merged loop, ccu.md §9.6) the pairs of different iterations reuse
// their MS slots: MS slices of different groups are never compared.
bool find_overlap(const Trace& t, const Task& k, BufId ms, u32& a, u32& b) {
  bool batch = k.type == TaskType::BATCH_TRANS_MEM || k.type == TaskType::BATCH_REDUCE;
  auto reused_ms = [&](u32 gi, u32 gj, const Slice& x, const Slice& y) {
    return gi != gj && (k.flags & kTaskCcu) && x.buf == ms && y.buf == ms;
  };
  for (u32 gi = 0; gi < k.group_count(); ++gi) {
    const Group& g = t.group(k, gi);
    // Sources of this group (and, in a batch, of every group) vs destinations.
    for (u32 gj = batch ? 0 : gi; gj < (batch ? k.group_count() : gi + 1); ++gj) {
      const Group& h = t.group(k, gj);
      for (u32 i = 0; i < h.src_count; ++i) {
        u32 s = h.first_src + i;
        if (overlap(t.slices[s], t.slices[g.dst]) && !reused_ms(gi, gj, t.slices[s], t.slices[g.dst])) {
          if ((k.flags & kTaskCcu) && t.slices[s].offset == t.slices[g.dst].offset &&
              t.slices[s].len == t.slices[g.dst].len)
            continue;  // CCU nodes may read and write exactly one slice
          a = s, b = g.dst;
          return true;
        }
      }
      if (batch && gj > gi && overlap(t.slices[h.dst], t.slices[g.dst]) &&
          !reused_ms(gi, gj, t.slices[h.dst], t.slices[g.dst])) {
        a = g.dst, b = h.dst;
        return true;
      }
    }
  }
  return false;
}

// The same rules for a batch of many groups (a merged CCU loop has one per
// iteration and copy): sorted by start, each slice is compared only with
// the slices it overlaps, so the cost follows the overlaps, not groups².
bool find_overlap_sorted(const Trace& t, const Task& k, BufId ms, u32& a, u32& b) {
  struct Entry {
    u32 slice, group;
    bool dst;
  };
  bool ccu = k.flags & kTaskCcu;
  // In a CCU batch an MS slice meets only the MS slices of its own group
  // (the iterations reuse the slots), so MS slices are checked group by
  // group here and kept out of the sweep: a loop of thousands of copies
  // through one slot would otherwise keep every one of them active at once
  // and compare them all with each other.
  std::vector<Entry> e;
  std::vector<u32> own_ms;
  for (u32 gi = 0; gi < k.group_count(); ++gi) {
    const Group& g = t.group(k, gi);
    own_ms.clear();
    for (u32 i = 0; i < g.src_count; ++i) {
      u32 s = g.first_src + i;
      if (!t.slices[s].len) continue;
      if (ccu && t.slices[s].buf == ms) own_ms.push_back(s);
      else e.push_back({s, gi, false});
    }
    if (!t.slices[g.dst].len) continue;
    if (!ccu || t.slices[g.dst].buf != ms) {
      e.push_back({g.dst, gi, true});
      continue;
    }
    const Slice& d = t.slices[g.dst];
    for (u32 s : own_ms) {
      const Slice& x = t.slices[s];
      if (overlap(x, d) && !(x.offset == d.offset && x.len == d.len)) {
        a = s, b = g.dst;
        return true;
      }
    }
  }
  auto key = [&](const Entry& x) {
    const Slice& s = t.slices[x.slice];
    return std::make_tuple(s.rank, s.buf, s.offset);
  };
  std::sort(e.begin(), e.end(), [&](const Entry& x, const Entry& y) { return key(x) < key(y); });
  // Whether x and y (overlapping) break a rule, and which slice comes first.
  auto breaks = [&](const Entry& x, const Entry& y) {
    if (!x.dst && !y.dst) return false;
    const Slice& sx = t.slices[x.slice];
    const Slice& sy = t.slices[y.slice];
    if (x.dst && y.dst) {
      if (x.group == y.group) return false;
      a = x.group < y.group ? x.slice : y.slice;
      b = x.group < y.group ? y.slice : x.slice;
      return true;
    }
    if (ccu && sx.offset == sy.offset && sx.len == sy.len) return false;  // one slice read and written
    a = x.dst ? y.slice : x.slice;
    b = x.dst ? x.slice : y.slice;
    return true;
  };
  std::vector<Entry> active;
  for (std::size_t i = 0; i < e.size(); ++i) {
    const Slice& s = t.slices[e[i].slice];
    std::erase_if(active, [&](const Entry& x) {
      const Slice& v = t.slices[x.slice];
      return v.rank != s.rank || v.buf != s.buf || s.offset - v.offset >= v.len;
    });
    for (const Entry& x : active)
      if (breaks(x, e[i])) return true;
    active.push_back(e[i]);
  }
  return false;
}

}  // namespace

void check_single_tasks(const Trace& t, FindingSink& out) {
  std::vector<std::string> why;
  BufId ms = ms_buffer(t);
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    const Task& k = t.tasks[id];
    if (!is_data_task(k.type)) continue;
    why.clear();
    task_problems(t, id, ms, why);
    if (k.flags & kTaskAiv) aiv_task_problems(t, id, why);
    if (!why.empty()) {
      if (out.wants(201)) {
        Finding f = make_finding(201, StageTag::SingleTaskCheck,
                                 fmt::format("Invalid slice in {}: {}.", task_position(t, id), why[0]));
        for (std::size_t i = 1; i < why.size(); ++i) f.details.push_back("Also : " + why[i]);
        f.details.push_back("Task : " + task_line(t, id));
        f.tasks.push_back(id);
        out.add(std::move(f));
      } else {
        out.count(201, Severity::Error);
      }
    }
    u32 a, b;
    bool many = (k.type == TaskType::BATCH_TRANS_MEM || k.type == TaskType::BATCH_REDUCE) && k.group_count() > 32;
    if (many ? find_overlap_sorted(t, k, ms, a, b) : find_overlap(t, k, ms, a, b)) {
      if (!out.wants(202)) {
        out.count(202, Severity::Error);
        continue;
      }
      Finding f = make_finding(
          202, StageTag::SingleTaskCheck,
          fmt::format("Slices of one task overlap: {} and {}.", describe_slice(t, t.slices[a]),
                      describe_slice(t, t.slices[b])));
      f.details.push_back("Task : " + task_line(t, id));
      f.tasks.push_back(id);
      // The bytes both slices cover.
      const Slice& sa = t.slices[a];
      const Slice& sb = t.slices[b];
      u64 lo = std::max(sa.offset, sb.offset), hi = std::min(sa.offset + sa.len, sb.offset + sb.len);
      if (sa.rank == sb.rank && sa.buf == sb.buf && lo < hi)
        f.bytes = ByteRange{sa.rank, std::string(t.buffers.name(sa.buf)), lo, hi};
      out.add(std::move(f));
    }
  }
}

namespace {

bool is_local_sync(const Task& k, TaskType type) { return k.type == type && k.peer() == k.rank; }

// A TRANS_MEM that moves nothing and stays on its rank (HCCL's "empty" copy).
bool is_empty_local_copy(const Trace& t, const Task& k) {
  if (k.type != TaskType::TRANS_MEM) return false;
  for (u32 gi = 0; gi < k.group_count(); ++gi) {
    const Group& g = t.group(k, gi);
    const Slice& d = t.slices[g.dst];
    if (d.len != 0 || d.rank != k.rank) return false;
    for (u32 i = 0; i < g.src_count; ++i) {
      const Slice& s = t.slices[g.first_src + i];
      if (s.len != 0 || s.rank != k.rank) return false;
    }
  }
  return true;
}

}  // namespace

void check_slave_streams(const Trace& t, FindingSink& out) {
  for (const Stream& s : t.streams) {
    if (s.id == 0) continue;
    // The shape is that of the tasks that run in stream order from its
    // start: an unchained task (a CCU node) and the chain it starts are not
    // part of it, and a stream that begins unchained is not checked.
    u32 first = s.first_task, end = s.first_task + s.task_count;
    if (s.task_count > 0 && (t.tasks[first].flags & kTaskUnchained)) continue;
    // A slave stream that launches AIV kernels is exempt, as in HCCL's checker (aiv.md §4.2).
    if (std::any_of(t.tasks.begin() + first, t.tasks.begin() + first + s.task_count,
                    [](const Task& k) { return k.type == TaskType::AIV_GRAPH; }))
      continue;
    for (u32 i = first + 1; i < end; ++i)
      if (t.tasks[i].flags & kTaskUnchained) {
        end = i;
        break;
      }
    u32 last = end;
    while (last > first && is_empty_local_copy(t, t.tasks[last - 1])) --last;
    std::string why;
    u32 at = first;
    if (last == first) {
      why = "it holds no task but zero-length local copies";
    } else if (!is_local_sync(t.tasks[first], TaskType::WAIT)) {
      why = fmt::format("its first task is {}, not a local WAIT", describe_task(t, first));
    } else if (last - first < 2) {
      why = "it holds a single task: it cannot both begin with a local WAIT and end with a local RECORD";
    } else if (!is_local_sync(t.tasks[last - 1], TaskType::RECORD)) {
      at = last - 1;
      why = fmt::format("its last task is {}, not a local RECORD", describe_task(t, at));
    }
    if (why.empty()) continue;
    if (!out.wants(203)) {
      out.count(203, Severity::Error);
      continue;
    }
    Finding f = make_finding(203, StageTag::StreamCheck,
                             fmt::format("Slave stream rank{}/s{} is invalid: {}.", s.rank, s.id, why));
    if (s.task_count > 0) {
      f.details.push_back("Task : " + task_line(t, at));
      f.tasks.push_back(at);
    }
    out.add(std::move(f));
  }
}

}  // namespace cc
