#include "mutate/faults.h"

#include "graph/graph.h"
#include "mutate/aiv_faults.h"

namespace cc::mutate {

namespace {

// Codes of the semantic stage a data fault may raise.
#define SEMANTIC 401, 402, 403, 404, 406, 407, 408, 409

}  // namespace

const std::vector<FaultInfo>& fault_kinds() {
  using K = FaultKind;
  static const std::vector<FaultInfo> kinds = {
      {K::DropWait, "drop-wait", "F1, F2", "delete a WAIT (not a slave stream's first task)", {103},
       ""},
      {K::DropRecord, "drop-record", "F6", "delete a RECORD (not a slave stream's last task)", {102}, ""},
      {K::SwapNotify, "swap-notify", "F4",
       "exchange the notify ids of a RECORD and the next RECORD of its stream",
       {102, 103, 302, 602, SEMANTIC},
       "both RECORDs go to the same peer: the swap only delays a release"},
      {K::RetargetRecord, "retarget-record", "F5", "send a cross-rank RECORD to another rank",
       {102, 103}, ""},
      {K::ShiftDst, "shift-dst", "F7", "move a data task's destination one element up",
       {201, 202, 302, SEMANTIC}, "the bytes it misses and the byte it adds are rewritten before anyone reads them, or lie outside the checked result"},
      {K::ShiftSrc, "shift-src", "F8", "move a data task's source one element up",
       {201, 202, 302, SEMANTIC}, "the bytes read are the same data, or the destination is rewritten before anyone reads it"},
      {K::WrongPeer, "wrong-peer", "F9, F10", "make a data task read or write another rank's buffer",
       {201, 302, SEMANTIC}, "the other rank holds the same data at that time"},
      {K::ShortenCopy, "shorten-copy", "", "drop the last element of a copy", {SEMANTIC},
       "the element it no longer copies is rewritten before anyone reads it, or lies outside the checked result"},
      {K::DropFinalCopy, "drop-final-copy", "F11", "delete a copy into the operator's result buffer",
       {SEMANTIC}, "the bytes are outside the checked result (e.g. a non-root's OUTPUT of Reduce)"},
      {K::WrongReduceOp, "wrong-reduce-op", "F12", "a reduce uses another operator", {403, 409}, ""},
      {K::DuplicateReduce, "duplicate-reduce", "F13", "issue a reduce twice", {403, 409}, ""},
      {K::DropHandshake, "drop-handshake", "F3, F14",
       "delete a cross-rank RECORD and the WAIT it releases (a CCL slot reused without its handshake)",
       {302, 602}, "the ordering it gave is implied by other synchronisation"},
      {K::MoveToStream, "move-to-stream", "",
       "issue a data task on a new stream of its rank that the main stream joins only at its end",
       {302}, "nothing later on its rank or beyond touches the task's bytes before the end"},
      {K::DropSlaveWait, "drop-slave-wait", "F17", "delete a slave stream's opening local WAIT", {203},
       ""},
      {K::DropSlaveRecord, "drop-slave-record", "F15", "delete a slave stream's closing local RECORD",
       {203}, ""},
      {K::DropSlaveRecordAndWait, "drop-slave-record-and-wait", "F16",
       "delete a slave stream's closing local RECORD and the main stream's WAIT for it", {203}, ""},
      {K::GrowSlice, "grow-slice", "F18", "grow a data task so that it ends one element past its buffer",
       {201}, ""},
      {K::OverlapSlice, "overlap-slice", "F19",
       "point a local copy's destination into its own source, half its length further", {202}, ""},
      {K::EarlyRecord, "early-record", "F20",
       "move a RECORD before the nearest WAIT preceding it on its stream (no RECORD in between)",
       {302, 602}, "the WAIT it overtakes guards nothing the peer's use of the notify depends on"},
      {K::WaitBeforeRecord, "wait-before-record", "F21",
       "on every rank, swap the main stream's RECORD at one position with the WAIT after it", {102},
       "no two ranks now wait for each other"},
      {K::AivDropWaitFlag, "drop-wait-flag", "", "AIV: delete a WaitFlag of a snapshot (a pipe event not waited for)",
       {302, 602, SEMANTIC},
       "the event ordered nothing that is read or written later (the final wait for a UB slot's release)"},
      {K::AivWrongFlagValue, "wrong-flag-value", "",
       "AIV: a SendFlag writes, or a RecvFlag waits for, its value plus one", {102, 302, 602, SEMANTIC},
       "the value is a reset nobody waits for"},
      {K::AivDropBarrierMember, "drop-barrier-member", "",
       "AIV: delete one member of a PIPE_ALL barrier (the others still list it)", {104}, ""},
      {K::AivDropSyncAllMember, "drop-syncall-member", "", "AIV: delete one member of a SyncAll round", {104}, ""},
      {K::AivWrongFlagOffset, "wrong-flag-offset", "",
       "AIV: a SendFlag or RecvFlag uses the next cell (commInfoOffset + 128)", {102, 201, 302, 602, SEMANTIC},
       "the cell is a reset nobody waits for"},
      {K::AivWrongSource, "wrong-source", "",
       "AIV: a copy that loads from global memory reads one element further", {201, 202, 302, SEMANTIC},
       "the bytes read are the same data"},
  };
  return kinds;
}

const FaultInfo& fault_info(FaultKind k) { return fault_kinds()[static_cast<std::size_t>(k)]; }

const FaultInfo* find_fault(std::string_view name) {
  for (const FaultInfo& f : fault_kinds())
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

bool local_sync(const Task& k) { return is_sync_task(k.type) && k.peer() == k.rank; }
bool cross_sync(const Task& k, TaskType t) { return k.type == t && k.peer() != k.rank; }

const Slice& first_src(const Trace& t, const Task& k) { return t.slices[t.group(k, 0).first_src]; }
const Slice& first_dst(const Trace& t, const Task& k) { return t.slices[t.group(k, 0).dst]; }

bool has_source(const Trace& t, const Task& k) {
  return is_data_task(k.type) && k.group_count() > 0 && t.group(k, 0).src_count > 0;
}

// The stream's first and last task ids of slave streams.
struct SlaveEnds {
  u32 first, last;
};
std::vector<SlaveEnds> slave_ends(const Trace& t) {
  std::vector<SlaveEnds> out;
  for (const Stream& s : t.streams)
    if (s.id != 0 && s.task_count > 0) out.push_back({s.first_task, s.first_task + s.task_count - 1});
  return out;
}

}  // namespace

std::vector<Site> fault_sites(const Trace& t, FaultKind kind) {
  if (is_aiv_fault(kind)) return aiv_fault_sites(t, kind);
  std::vector<Site> out;
  u32 n = static_cast<u32>(t.tasks.size());
  std::vector<u8> slave_first(n), slave_last(n);
  for (const SlaveEnds& e : slave_ends(t)) {
    slave_first[e.first] = 1;
    slave_last[e.last] = 1;
  }
  u64 u = t.op.elem_size();
  BufId result = t.op.in_place ? kInput : kOutput;
  auto other_rank = [&](u32 not1, u32 not2, u32 from) {
    for (u32 i = 1; i <= t.op.ranks; ++i) {
      u32 q = (from + i) % t.op.ranks;
      if (q != not1 && q != not2) return q;
    }
    return kNone;
  };
  using K = FaultKind;
  if (kind == K::DropHandshake || kind == K::DropSlaveRecordAndWait) {
    TaskGraph g = build_graph(t);
    for (u32 id = 0; id < n; ++id) {
      const Task& k = t.tasks[id];
      if (k.type != TaskType::RECORD || g.partner[id] == kNone) continue;
      if (kind == K::DropHandshake && k.peer() != k.rank) out.push_back({id, g.partner[id], 0});
      if (kind == K::DropSlaveRecordAndWait && slave_last[id] && local_sync(k))
        out.push_back({id, g.partner[id], 0});
    }
    return out;
  }
  if (kind == K::WaitBeforeRecord) {
    std::vector<u32> ranks_at;  // position -> ranks with the pattern there
    for (const Stream& s : t.streams) {
      if (s.id != 0) continue;
      for (u32 i = 0; i + 1 < s.task_count; ++i) {
        const Task& a = t.tasks[s.first_task + i];
        const Task& b = t.tasks[s.first_task + i + 1];
        if (!cross_sync(a, TaskType::RECORD) || !cross_sync(b, TaskType::WAIT)) continue;
        if (ranks_at.size() <= i) ranks_at.resize(i + 1);
        ranks_at[i]++;
      }
    }
    for (u32 i = 0; i < ranks_at.size(); ++i)
      if (ranks_at[i] >= 2) out.push_back({kNone, kNone, i});
    return out;
  }
  for (u32 id = 0; id < n; ++id) {
    const Task& k = t.tasks[id];
    switch (kind) {
      case K::DropWait:
        if (k.type == TaskType::WAIT && !(slave_first[id] && local_sync(k))) out.push_back({id});
        break;
      case K::DropRecord:
        if (k.type == TaskType::RECORD && !(slave_last[id] && local_sync(k))) out.push_back({id});
        break;
      case K::SwapNotify:
        if (k.type != TaskType::RECORD) break;
        for (u32 j = id + 1; j < n && t.tasks[j].rank == k.rank && t.tasks[j].stream == k.stream; ++j) {
          if (t.tasks[j].type != TaskType::RECORD) continue;
          if (t.tasks[j].notify() != k.notify()) out.push_back({id, j});
          break;
        }
        break;
      case K::RetargetRecord:
        if (cross_sync(k, TaskType::RECORD)) {
          u32 q = other_rank(k.rank, k.peer(), k.peer());
          if (q != kNone) out.push_back({id, kNone, q});
        }
        break;
      case K::ShiftDst:
        if (is_data_task(k.type) && k.group_count() && first_dst(t, k).len) out.push_back({id});
        break;
      case K::ShiftSrc:
        if (has_source(t, k) && first_src(t, k).len) out.push_back({id});
        break;
      case K::WrongPeer:
        if (has_source(t, k)) {
          const Slice& s = first_src(t, k);
          const Slice& d = first_dst(t, k);
          bool src_remote = s.rank != k.rank;
          const Slice& remote = src_remote ? s : d;
          if (remote.rank == k.rank || !remote.len) break;
          u32 q = other_rank(k.rank, remote.rank, remote.rank);
          if (q != kNone) out.push_back({id, src_remote ? 0u : 1u, q});
        }
        break;
      case K::ShortenCopy:
        if (k.type == TaskType::TRANS_MEM && first_src(t, k).len >= 2 * u) out.push_back({id});
        break;
      case K::DropFinalCopy:
        if (k.type == TaskType::TRANS_MEM && first_dst(t, k).buf == result && first_dst(t, k).len)
          out.push_back({id});
        break;
      case K::WrongReduceOp:
      case K::DuplicateReduce:
        if (is_reduce_task(k.type)) out.push_back({id});
        break;
      case K::MoveToStream:
        if (is_data_task(k.type)) out.push_back({id});
        break;
      case K::DropSlaveWait:
        if (slave_first[id] && local_sync(k) && k.type == TaskType::WAIT) out.push_back({id});
        break;
      case K::DropSlaveRecord:
        if (slave_last[id] && local_sync(k) && k.type == TaskType::RECORD) out.push_back({id});
        break;
      case K::GrowSlice:
        if (is_data_task(k.type) && k.group_count() &&
            t.buffer_size(first_dst(t, k).rank, first_dst(t, k).buf) != BufferSizes::kUndeclared)
          out.push_back({id});
        break;
      case K::OverlapSlice:
        if (k.type == TaskType::TRANS_MEM && first_src(t, k).len >= 2 && first_src(t, k).rank == k.rank &&
            first_dst(t, k).rank == k.rank)
          out.push_back({id});
        break;
      case K::EarlyRecord:
        // Not a slave stream's closing RECORD nor before its opening WAIT:
        // those change the stream's shape (drop-slave-* kinds, 203).
        if (k.type != TaskType::RECORD || (slave_last[id] && local_sync(k))) break;
        for (u32 j = id; j-- > 0 && t.tasks[j].rank == k.rank && t.tasks[j].stream == k.stream;) {
          if (t.tasks[j].type == TaskType::RECORD) break;
          if (t.tasks[j].type == TaskType::WAIT) {
            if (!slave_first[j]) out.push_back({id, j});
            break;
          }
        }
        break;
      default:
        break;
    }
  }
  return out;
}

}  // namespace cc::mutate
