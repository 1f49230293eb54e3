#include "mutate/aiv_faults.h"

#include <fmt/format.h>

#include "model/aiv_json.h"

namespace cc::mutate {

namespace {

using K = FaultKind;

bool applies(FaultKind k, const AivTask& t) {
  switch (k) {
    case K::AivDropWaitFlag: return t.type == 3;
    case K::AivWrongFlagValue: return t.type == 6 || t.type == 7;
    case K::AivDropBarrierMember: return t.type == 4 && t.pipe_type == kAivPipeAll;
    case K::AivDropSyncAllMember: return t.type == 5;
    case K::AivWrongFlagOffset: return t.type == 6 || t.type == 7;
    // A copy that loads from global memory (its source is not UB).
    case K::AivWrongSource: return (t.type == 0 || t.type == 1) && t.src.buffer != kAivUb && t.src.buffer < kAivBufferTypes;
    default: return false;
  }
}

std::string where(const AivSnapshot& s, u32 core, u32 pipe, u32 pos, const AivTask& t) {
  return fmt::format("rank {} L{}.b{}.{}[{}] {} (taskId {})", s.rank, s.launch, s.cores[core].block,
                     aiv_pipe_name(pipe), pos, aiv_task_type_name(t.type), t.id);
}

}  // namespace

bool is_aiv_fault(FaultKind k) {
  switch (k) {
    case K::AivDropWaitFlag:
    case K::AivWrongFlagValue:
    case K::AivDropBarrierMember:
    case K::AivDropSyncAllMember:
    case K::AivWrongFlagOffset:
    case K::AivWrongSource:
      return true;
    default:
      return false;
  }
}

std::vector<Site> aiv_fault_sites(const Trace& t, FaultKind k) {
  std::vector<Site> out;
  if (t.aiv.expanded) return out;  // faults change snapshots: only before the expansion
  for (u32 si = 0; si < t.aiv.snapshots.size(); ++si) {
    const AivSnapshot& s = t.aiv.snapshots[si];
    if (!s.problems.empty()) continue;
    for (u32 c = 0; c < s.cores.size(); ++c)
      for (u32 p = 0; p < kAivPipes; ++p)
        for (u32 i = 0; i < s.cores[c].lanes[p].size(); ++i)
          if (applies(k, s.cores[c].lanes[p][i])) out.push_back({si, c * kAivPipes + p, i});
  }
  return out;
}

Result<Applied> apply_aiv_fault(const Trace& t, FaultKind k, const Site& site) {
  if (site.task >= t.aiv.snapshots.size()) return Error{"AIV fault: no such snapshot"};
  Applied a{t, {}};
  AivSnapshot& s = a.trace.aiv.snapshots[site.task];
  u32 core = site.other / kAivPipes, pipe = site.other % kAivPipes;
  if (core >= s.cores.size() || site.arg >= s.cores[core].lanes[pipe].size())
    return Error{"AIV fault: no such task"};
  std::vector<AivTask>& lane = s.cores[core].lanes[pipe];
  AivTask& task = lane[site.arg];
  std::string w = where(s, core, pipe, site.arg, task);
  u32 u = size_of(t.op.data_type);
  switch (k) {
    case K::AivDropWaitFlag:
      a.what = fmt::format("deleted {} {}→{} #{}", w, aiv_pipe_name(task.src_pipe), aiv_pipe_name(task.dst_pipe),
                           task.event);
      lane.erase(lane.begin() + site.arg);
      break;
    case K::AivDropBarrierMember:
    case K::AivDropSyncAllMember:
      a.what = fmt::format("deleted {}", w);
      lane.erase(lane.begin() + site.arg);
      break;
    case K::AivWrongFlagValue:
      a.what = fmt::format("{} {} {} instead of {}", w, task.type == 6 ? "writes" : "waits for", task.value + 1,
                           task.value);
      task.value += 1;
      break;
    case K::AivWrongFlagOffset:
      a.what = fmt::format("{} uses cell {}:{:#x} instead of {:#x}", w, task.flag_rank, task.offset + kAivCellBytes,
                           task.offset);
      task.offset += kAivCellBytes;
      break;
    case K::AivWrongSource:
      a.what = fmt::format("{} reads {} [{:#x},+{:#x}) of rank {} one element further", w,
                           aiv_buffer_type_name(task.src.buffer), task.src.offset, task.src.size, task.src_rank);
      task.src.offset += u;
      break;
    default:
      return Error{"not an AIV fault kind"};
  }
  s.json = aiv::snapshot_json(s);
  return a;
}

}  // namespace cc::mutate
