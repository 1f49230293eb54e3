#include "model/aiv_data.h"

#include <fmt/format.h>

namespace cc {

std::string aiv_pipe_name(u32 pipe) {
  switch (pipe) {
    case kAivPipeS: return "S";
    case kAivPipeMte2: return "MTE2";
    case kAivPipeMte3: return "MTE3";
    case kAivPipeAll: return "PIPE_ALL";
    default: return fmt::format("pipe {}", pipe);
  }
}

std::string aiv_task_type_name(u32 type) {
  static constexpr std::string_view kNames[kAivTaskTypes] = {"MEM_COPY",     "REDUCE",   "SET_FLAG",  "WAIT_FLAG",
                                                             "PIPE_BARRIER", "SYNC_ALL", "SEND_FLAG", "RECV_FLAG"};
  return type < kAivTaskTypes ? std::string(kNames[type]) : fmt::format("taskType {}", type);
}

std::string aiv_buffer_type_name(u32 type) {
  static constexpr std::string_view kNames[kAivBufferTypes] = {"INPUT", "OUTPUT", "CCL", "UB", "AIV_COMM"};
  return type < kAivBufferTypes ? std::string(kNames[type]) : fmt::format("bufferType {}", type);
}

std::string_view aiv_node_kind_name(AivNodeKind k) {
  switch (k) {
    case AivNodeKind::Start: return "START(AIV_SUB_GRAPH)";
    case AivNodeKind::End: return "END(AIV_SUB_GRAPH)";
    case AivNodeKind::Copy: return "MEM_COPY";
    case AivNodeKind::Reduce: return "REDUCE";
    case AivNodeKind::EventSet: return "SET_FLAG";
    case AivNodeKind::EventWait: return "WAIT_FLAG";
    case AivNodeKind::Barrier: return "BARRIER";
    case AivNodeKind::SyncAll: return "SYNCALL";
    case AivNodeKind::FlagSet: return "SEND_FLAG";
    case AivNodeKind::FlagWait: return "RECV_FLAG";
  }
  return "?";
}

std::string AivSnapshot::where(std::string_view trace_file) const {
  if (line) return fmt::format("{}:{}", trace_file, line);
  if (!file.empty()) {
    std::size_t slash = file.find_last_of('/');
    return slash == std::string::npos ? file : file.substr(slash + 1);
  }
  return aiv_snapshot_file_name(rank, launch);
}

std::string aiv_snapshot_file_name(u32 rank, u64 launch) {
  return fmt::format("hcclvm_aiv_rank{}_launch{}_task.json", rank, launch);
}

void AivData::remap(const std::vector<u32>& new_id) {
  auto map = [&](u32& id) {
    if (id != kNone && id < new_id.size()) id = new_id[id];
  };
  for (AivLaunch& l : launches) map(l.placeholder);
  for (AivEvent& e : events)
    for (auto& [s, w] : e.pairs) {
      map(s);
      map(w);
    }
  for (AivCell& c : cells)
    for (u32& w : c.writes) map(w);
  for (AivObservation& o : observations) map(o.wait);
}

}  // namespace cc
