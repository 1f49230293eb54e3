#include "graph/stats.h"

#include <fmt/format.h>

namespace cc {

TraceStats compute_stats(const Trace& t, const TaskGraph& g) {
  TraceStats s;
  s.ranks = t.op.ranks;
  s.streams = t.streams.size();
  for (const Stream& st : t.streams) {
    bool ccu = st.task_count && (t.tasks[st.first_task].flags & kTaskCcu);  // a CCU mission's nodes
    bool aiv = st.task_count && (t.tasks[st.first_task].flags & kTaskAiv);  // an AIV launch's nodes
    s.ccu_streams += ccu;
    s.aiv_streams += aiv;
    s.slave_streams += st.id != 0 && !ccu && !aiv;
  }
  s.tasks = t.tasks.size();
  s.aiv_launches = t.aiv.launches.size();
  for (const AivLaunch& l : t.aiv.launches)
    for (const AivNodeInfo& n : l.nodes) s.aiv_by_kind[std::string(aiv_node_kind_name(n.kind))]++;
  s.sync_keys = g.key_count;
  s.explicit_edges = g.out_to.size();
  // The unified buffers of all AIV blocks count as one line.
  auto buffer = [&](BufId b) -> std::string {
    const std::string& n = t.buffers.name(b);
    return t.aiv.is_own_buffer(b) && n.starts_with("AIV_UB(") ? std::string("AIV_UB") : n;
  };
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    const Task& k = t.tasks[id];
    s.tasks_by_type[std::string(name(k.type))]++;
    if (is_sync_task(k.type)) {
      if (k.type == TaskType::RECORD && !(k.flags & kTaskAiv)) {
        (k.peer() == k.rank ? s.local_syncs : s.cross_rank_syncs)++;
        if (g.partner[id] != kNone) s.sync_edges++;
      }
      continue;
    }
    bool remote = false;
    for (u32 gi = 0; gi < k.group_count(); ++gi) {
      const Group& gr = t.group(k, gi);
      for (u32 i = 0; i < gr.src_count; ++i) {
        const Slice& sl = t.slices[gr.first_src + i];
        s.bytes_by_buffer[buffer(sl.buf)].read += sl.len;
        remote |= sl.rank != k.rank;
      }
      const Slice& d = t.slices[gr.dst];
      s.bytes_by_buffer[buffer(d.buf)].written += d.len;
      remote |= d.rank != k.rank;
    }
    s.remote_transfers += remote;
  }
  return s;
}

std::string format_stats(const Trace& t, const TraceStats& s) {
  std::string out = t.op.known ? fmt::format("operator : {} ranks={} dataType={}", name(t.op.type), s.ranks,
                                             name(t.op.data_type))
                               : fmt::format("operator : unknown (no operator parameters) ranks={}", s.ranks);
  if (t.op.known && op_has_count(t.op.type)) out += fmt::format(" count={}", t.op.count);
  if (!t.name.empty()) out += fmt::format(" name=\"{}\"", t.name);
  out += "\n";
  out += fmt::format("streams  : {} ({} main, {} slave{}{})\n", s.streams,
                     s.streams - s.slave_streams - s.ccu_streams - s.aiv_streams, s.slave_streams,
                     s.ccu_streams ? fmt::format(", {} of CCU mission nodes", s.ccu_streams) : std::string(),
                     s.aiv_streams ? fmt::format(", {} of AIV launch nodes", s.aiv_streams) : std::string());
  if (t.msccl.present()) {  // an MSCCL algorithm: its steps as written, by type
    u64 n = 0;
    std::string by;
    for (const auto& [type, k] : t.msccl.step_counts) n += k, by += fmt::format(" {} {}", type, k);
    out += fmt::format("msccl    : {} steps:{} ({}; chunk {} bytes = {} iterations of {})\n", n, by, t.msccl.mode,
                       t.msccl.chunk_bytes, t.msccl.iterations, t.msccl.slice_bytes);
  }
  out += fmt::format("tasks    : {}\n", s.tasks);
  for (const auto& [type, n] : s.tasks_by_type) out += fmt::format("  {:<16} {}\n", type, n);
  if (s.aiv_launches) {
    u64 nodes = 0;
    for (const auto& [k, n] : s.aiv_by_kind) nodes += n;
    out += fmt::format("aiv      : {} launches, {} nodes (of the tasks above; events and flags are counted as RECORD "
                       "and WAIT there)\n",
                       s.aiv_launches, nodes);
    for (const auto& [k, n] : s.aiv_by_kind) out += fmt::format("  {:<22} {}\n", k, n);
  }
  out += fmt::format("syncs    : {} RECORD->WAIT edges, {} keys, {} local and {} cross-rank RECORDs\n",
                     s.sync_edges, s.sync_keys, s.local_syncs, s.cross_rank_syncs);
  if (s.explicit_edges) out += fmt::format("explicit : {} edges\n", s.explicit_edges);
  out += fmt::format("transfers: {} data tasks touch another rank\n", s.remote_transfers);
  out += "bytes    : buffer            read         written\n";
  for (const auto& [buf, b] : s.bytes_by_buffer)
    out += fmt::format("  {:<16} {:>14} {:>14}\n", buf, b.read, b.written);
  return out;
}

}  // namespace cc
