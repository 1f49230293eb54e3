// How each fault kind changes a trace (faults.h).
#include <fmt/format.h>

#include <set>

#include "mutate/aiv_faults.h"
#include "mutate/faults.h"
#include "mutate/trace_edit.h"
#include "model/describe.h"

namespace cc::mutate {

namespace {

std::string brief(const Trace& t, u32 id) {
  const Task& k = t.tasks[id];
  std::string what = is_sync_task(k.type) ? describe_sync(t, id) : describe_task(t, id);
  return fmt::format("{} {}", task_position(t, id), what);
}

std::string slice_text(const Trace& t, const Slice& s) { return describe_slice(t, s); }

Task sync_task(TaskType type, u32 rank, u32 stream, u32 notify) {
  Task k;
  k.type = type;
  k.rank = rank;
  k.stream = stream;
  k.set_peer(rank);
  k.set_notify(notify);
  return k;
}

// A fresh local notify id on `rank`: the unique-mode id of channel `ch`
// when unused, else the first unused one from the top of the id space.
u32 fresh_local_id(const Trace& t, u32 rank, u32 ch, u32 type, std::set<u32>& taken) {
  if (taken.empty())
    for (const Task& k : t.tasks)
      if (is_sync_task(k.type) && k.rank == rank && k.peer() == rank) taken.insert(k.notify());
  u32 id = (ch & 0xff) << 4 | type;
  for (u32 top = 0xffffffffu; taken.count(id); --top) id = top;
  taken.insert(id);
  return id;
}

Result<Applied> move_to_stream(const Trace& t, const Site& s) {
  TraceEdit e(t);
  const Task k = t.tasks[s.task];
  u32 new_stream = 0, last_main = kNone;
  for (const Stream& st : t.streams) {
    if (st.rank != k.rank) continue;
    new_stream = std::max(new_stream, st.id + 1);
    if (st.id == 0) last_main = st.first_task + st.task_count - 1;
  }
  std::set<u32> taken;
  u32 go = fresh_local_id(t, k.rank, new_stream, 5, taken);    // M2S
  u32 done = fresh_local_id(t, k.rank, new_stream, 6, taken);  // S2M
  e.remove(s.task);
  e.insert_before(s.task, sync_task(TaskType::RECORD, k.rank, k.stream, go));
  e.append(sync_task(TaskType::WAIT, k.rank, new_stream, go));
  Task moved = k;
  moved.stream = new_stream;
  e.append(moved);
  e.append(sync_task(TaskType::RECORD, k.rank, new_stream, done));
  Task join = sync_task(TaskType::WAIT, k.rank, 0, done);
  if (last_main == kNone) e.append(join);
  else e.insert_after(last_main, join);
  return Applied{e.finish(), fmt::format("moved {} to new stream {} (started at its place, joined at "
                                         "the end of stream 0)",
                                         brief(t, s.task), new_stream)};
}

}  // namespace

Result<Applied> apply_fault(const Trace& t, FaultKind kind, const Site& s) {
  using K = FaultKind;
  if (is_aiv_fault(kind)) return apply_aiv_fault(t, kind, s);
  u64 u = t.op.elem_size();
  if (kind == K::WaitBeforeRecord) {
    TraceEdit e(t);
    std::string ranks;
    for (const Stream& st : t.streams) {
      if (st.id != 0 || s.arg + 1 >= st.task_count) continue;
      u32 a = st.first_task + s.arg, b = a + 1;
      const Task& ra = t.tasks[a];
      const Task& wb = t.tasks[b];
      if (ra.type != TaskType::RECORD || wb.type != TaskType::WAIT || ra.peer() == ra.rank || wb.peer() == wb.rank)
        continue;
      std::swap(e.task(a), e.task(b));
      ranks += fmt::format("{}{}", ranks.empty() ? "" : ",", st.rank);
    }
    if (ranks.empty()) return Error{"no RECORD followed by a WAIT at that position"};
    return Applied{e.finish(), fmt::format("on ranks {}: swapped stream 0's RECORD at {} with the WAIT "
                                           "after it",
                                           ranks, s.arg)};
  }
  if (s.task >= t.tasks.size()) return Error{"no such task"};
  if (kind == K::MoveToStream) return move_to_stream(t, s);
  TraceEdit e(t);
  const Task& k = t.tasks[s.task];
  std::string what;
  switch (kind) {
    case K::DropWait:
    case K::DropRecord:
    case K::DropFinalCopy:
    case K::DropSlaveWait:
    case K::DropSlaveRecord:
      e.remove(s.task);
      what = "deleted " + brief(t, s.task);
      break;
    case K::DropHandshake:
    case K::DropSlaveRecordAndWait:
      e.remove(s.task);
      e.remove(s.other);
      what = fmt::format("deleted {} and {}", brief(t, s.task), brief(t, s.other));
      break;
    case K::SwapNotify: {
      Task& a = e.task(s.task);
      Task& b = e.task(s.other);
      u32 id = a.notify();
      a.set_notify(b.notify());
      b.set_notify(id);
      what = fmt::format("swapped the notify ids of {} and {}", brief(t, s.task), brief(t, s.other));
      break;
    }
    case K::RetargetRecord:
      e.task(s.task).set_peer(s.arg);
      what = fmt::format("{}: waitRank {} became {}", brief(t, s.task), k.peer(), s.arg);
      break;
    case K::ShiftDst:
    case K::ShiftSrc: {
      u32 i = kind == K::ShiftDst ? t.group(k, 0).src_count : 0;
      Slice& sl = e.slice(s.task, i);
      what = fmt::format("{}: {} {} moved by +{}", brief(t, s.task), kind == K::ShiftDst ? "destination" : "source",
                         slice_text(t, sl), u);
      sl.offset += u;
      break;
    }
    case K::WrongPeer: {
      u32 i = s.other == 0 ? 0 : t.group(k, 0).src_count;
      Slice& sl = e.slice(s.task, i);
      what = fmt::format("{}: {} on rank {} became rank {}", brief(t, s.task), s.other == 0 ? "source" : "destination",
                         sl.rank, s.arg);
      sl.rank = s.arg;
      break;
    }
    case K::ShortenCopy:
      e.slice(s.task, 0).len -= u;
      e.slice(s.task, 1).len -= u;
      what = fmt::format("{}: last {} bytes no longer copied", brief(t, s.task), u);
      break;
    case K::WrongReduceOp: {
      ReduceOp to = k.reduce_op == ReduceOp::SUM ? ReduceOp::MAX : ReduceOp::SUM;
      e.task(s.task).reduce_op = to;
      what = fmt::format("{}: reduce op became {}", brief(t, s.task), name(to));
      break;
    }
    case K::DuplicateReduce:
      e.insert_after(s.task, k);
      what = "issued twice: " + brief(t, s.task);
      break;
    case K::GrowSlice: {
      u32 di = t.group(k, 0).src_count;
      const Slice& d = t.slices[t.group(k, 0).dst];
      u64 size = t.buffer_size(d.rank, d.buf);
      u64 grow = size + u - std::min(size, d.offset + d.len);
      for (u32 i = 0; i <= di; ++i) e.slice(s.task, i).len += grow;
      what = fmt::format("{}: grown by {} bytes to end {} bytes past its {}-byte buffer", brief(t, s.task), grow,
                         d.offset + d.len + grow - size, size);
      break;
    }
    case K::OverlapSlice: {
      Slice src = e.slice(s.task, 0);
      Slice& dst = e.slice(s.task, 1);
      dst = src;
      dst.offset = src.offset + src.len / 2;
      what = fmt::format("{}: destination became {}", brief(t, s.task), slice_text(t, dst));
      break;
    }
    case K::EarlyRecord:
      e.remove(s.task);
      e.insert_before(s.other, k);
      what = fmt::format("moved {} before {}", brief(t, s.task), brief(t, s.other));
      break;
    default:
      return Error{"fault kind not applicable here"};
  }
  return Applied{e.finish(), what};
}

}  // namespace cc::mutate
