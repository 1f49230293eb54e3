#include "model/describe.h"

#include <fmt/format.h>

#include "model/ccu_names.h"
#include "model/msccl_describe.h"

namespace cc {

const AivLaunch* aiv_launch_of(const Trace& t, u32 task, u32* index) {
  const Task& k = t.tasks[task];
  if (!(k.flags & kTaskAiv) || t.aiv.launches.empty()) return nullptr;
  const AivLaunch* l = t.aiv.launch_at(k.rank, k.stream);
  u32 at = t.task_index(task);
  if (!l || at >= l->nodes.size()) return nullptr;
  if (index) *index = at;
  return l;
}

u32 aiv_flag_access(const Trace& t, u32 task, bool& write) {
  u32 i = 0;
  const AivLaunch* l = aiv_launch_of(t, task, &i);
  if (!l) return kNone;
  const AivNodeInfo& n = l->nodes[i];
  if (n.kind != AivNodeKind::FlagSet && n.kind != AivNodeKind::FlagWait) return kNone;
  write = n.kind == AivNodeKind::FlagSet;
  return n.cell_slice;
}

const CcuMission* ccu_mission_of(const Trace& t, u32 task, u32* seq) {
  const Task& k = t.tasks[task];
  if (!(k.flags & kTaskCcu) || t.ccu.missions.empty()) return nullptr;
  const CcuMission* m = t.ccu.mission_at(k.rank, k.stream);
  u32 at = t.task_index(task);
  if (!m || at >= m->nodes.size()) return nullptr;
  if (seq) *seq = at;
  return m;
}

namespace {

// "pc 6 TransLocMemToRmtMem, lane 1" for a CCU node.
std::string ccu_origin(const Trace& t, const CcuNodeInfo& n) {
  std::string out;
  if (n.pc != kNone) {
    std::string_view mn = ccu_mnemonic(t.ccu.isa, n.header);
    out = mn.empty() ? fmt::format("pc {} [{:#06x}]", n.pc, n.header) : fmt::format("pc {} {}", n.pc, mn);
  }
  if (n.lane) out += fmt::format("{}lane {}", out.empty() ? "" : ", ", n.lane);
  return out;
}

std::string describe_ccu_placeholder(const Trace& t, const Task& k) {
  if (k.notify() >= t.ccu.sqes.size()) return "CCU_GRAPH";
  const CcuSqe& q = t.ccu.sqes[k.notify()];
  return fmt::format("CCU_GRAPH die {} mission {} instructions [{},{}) args {}", q.die, q.mission, q.inst_start,
                     u32{q.inst_start} + q.inst_count, q.arg_size);
}

// "L0.b0.S[2]", "L0.START", "L0.b0.BARRIER(S[3],MTE2[5],MTE3[2])",
// "L0.SYNCALL(round 1)".
std::string aiv_lane_name(const AivLaunch& l, const AivNodeInfo& n) {
  switch (n.kind) {
    case AivNodeKind::Start: return fmt::format("L{}.START", l.launch);
    case AivNodeKind::End: return fmt::format("L{}.END", l.launch);
    case AivNodeKind::Barrier: {
      std::string m;
      for (const AivMember& x : l.groups[n.group].members)
        m += fmt::format("{}{}[{}]", m.empty() ? "" : ",", aiv_pipe_name(x.pipe), x.pos);
      return fmt::format("L{}.b{}.BARRIER({})", l.launch, n.block, m);
    }
    case AivNodeKind::SyncAll:
      return fmt::format("L{}.SYNCALL(round {})", l.launch, l.groups[n.group].value);
    default:
      return fmt::format("L{}.b{}.{}[{}]", l.launch, n.block, aiv_pipe_name(n.pipe), n.pos);
  }
}

// What an AIV node does (copies and reduces are described like any task).
std::string describe_aiv_node(const Trace& t, const AivLaunch& l, const AivNodeInfo& n) {
  switch (n.kind) {
    case AivNodeKind::Start:
      return fmt::format("START(AIV_SUB_GRAPH) rank {} launch {}", l.rank, l.launch);
    case AivNodeKind::End:
      return fmt::format("END(AIV_SUB_GRAPH) rank {} launch {}", l.rank, l.launch);
    case AivNodeKind::Barrier:
    case AivNodeKind::SyncAll: {
      const AivGroup& g = l.groups[n.group];
      std::string m;
      for (const AivMember& x : g.members)
        m += fmt::format("{}b{}.{}[{}]", m.empty() ? "" : ", ", x.block, aiv_pipe_name(x.pipe), x.pos);
      return g.sync_all ? fmt::format("SYNCALL round {} of {}", g.value, m)
                        : fmt::format("BARRIER {} of {}", aiv_pipe_name(g.value), m);
    }
    case AivNodeKind::EventSet:
    case AivNodeKind::EventWait:
      return fmt::format("{} {}\u2192{} #{}", n.kind == AivNodeKind::EventSet ? "SET_FLAG" : "WAIT_FLAG",
                         aiv_pipe_name(n.src_pipe), aiv_pipe_name(n.dst_pipe), n.event);
    case AivNodeKind::FlagSet:
      return fmt::format("SEND_FLAG cell {}:{:#x} := {}", n.owner, n.offset, n.value);
    case AivNodeKind::FlagWait:
      return fmt::format("RECV_FLAG cell {}:{:#x} == {}", n.owner, n.offset, n.value);
    default:
      (void)t;
      return {};
  }
}

}  // namespace

std::string aiv_short_name(const Trace& t, u32 task) {
  u32 i = 0;
  const AivLaunch* l = aiv_launch_of(t, task, &i);
  if (!l) return task_position(t, task);
  return fmt::format("rank{} {}", l->rank, aiv_lane_name(*l, l->nodes[i]));
}

void aiv_task_ref(const Trace& t, u32 task, TaskRef& ref) {
  u32 i = 0;
  const AivLaunch* l = aiv_launch_of(t, task, &i);
  if (!l) return;
  const AivNodeInfo& n = l->nodes[i];
  ref.aiv_launch = l->launch;
  ref.aiv_block = n.block;
  ref.aiv_pos = n.pos;
  ref.aiv_task_id = n.task_id;
  switch (n.kind) {
    case AivNodeKind::Start: ref.aiv_pipe = "START"; break;
    case AivNodeKind::End: ref.aiv_pipe = "END"; break;
    case AivNodeKind::Barrier: ref.aiv_pipe = "BARRIER"; break;
    case AivNodeKind::SyncAll: ref.aiv_pipe = "SYNCALL"; break;
    default: ref.aiv_pipe = aiv_pipe_name(n.pipe); break;
  }
  // The node is named by its placeholder's host position (0/0/3:L0.b1.S[2]):
  // rank, stream and index are the placeholder's, as in the text report,
  // not those of the stream the expansion keeps the launch's nodes in,
  // which no input has.
  if (l->placeholder != kNone) {
    const Task& p = t.tasks[l->placeholder];
    ref.rank = p.rank, ref.stream = p.stream, ref.index = t.task_index(p), ref.line = p.line;
  }
  if (l->snapshot != kNone && t.aiv.snapshots[l->snapshot].line) ref.line = t.aiv.snapshots[l->snapshot].line;
  if (ref.line && ref.file.empty()) ref.file = t.file;
}

void ccu_task_ref(const Trace& t, u32 task, TaskRef& ref) {
  u32 seq = 0;
  const CcuMission* m = ccu_mission_of(t, task, &seq);
  if (!m || m->placeholder == kNone) return;
  const Task& p = t.tasks[m->placeholder];
  ref.rank = p.rank, ref.stream = p.stream, ref.index = t.task_index(p), ref.line = p.line;
  ref.file = p.line ? t.file : std::string();
  ref.ccu_node = seq;
}

std::string hex_range(u64 begin, u64 end) { return fmt::format("[{:#x},{:#x})", begin, end); }

std::string describe_slice(const Trace& t, const Slice& s) {
  const std::string& buf = s.buf < t.buffers.names.size() ? t.buffers.name(s.buf) : "?";
  // offset+len may overflow in an invalid slice; print the end as written.
  u64 end = s.offset + s.len;
  if (end < s.offset) return fmt::format("rank {} {} [{:#x},+{:#x})", s.rank, buf, s.offset, s.len);
  return fmt::format("rank {} {} {}", s.rank, buf, hex_range(s.offset, end));
}

std::string task_position(const Trace& t, u32 task) {
  if (auto m = msccl_position(t, task)) return *m;
  const Task& k = t.tasks[task];
  u32 seq = 0;
  if (const CcuMission* m = ccu_mission_of(t, task, &seq); m && m->placeholder != kNone)
    return fmt::format("{}:{}", task_position(t, m->placeholder), seq);
  if (const AivLaunch* l = aiv_launch_of(t, task, &seq); l && l->placeholder != kNone)
    return fmt::format("{}:{}", task_position(t, l->placeholder), aiv_lane_name(*l, l->nodes[seq]));
  return fmt::format("{}/{}/{}", k.rank, k.stream, t.task_index(task));
}

std::string task_ref(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
  u32 idx = 0;
  if (const AivLaunch* l = aiv_launch_of(t, task, &idx); l && l->placeholder != kNone) {
    // "0/0/0:L0.b0.S[2] taskId=8 (t.jsonl:3)": the snapshot line of a trace,
    // or the snapshot file and the record's row of a database.
    const AivNodeInfo& n = l->nodes[idx];
    std::string id = n.task_id != kNone ? fmt::format(" taskId={}", n.task_id) : std::string();
    const AivSnapshot* s = l->snapshot != kNone ? &t.aiv.snapshots[l->snapshot] : nullptr;
    const Task& p = t.tasks[l->placeholder];
    std::string where;
    if (s && s->line) where = fmt::format("{}:{}", t.file, s->line);
    else if (s) where = s->where(t.file);
    else if (p.line) where = fmt::format("{}:{}", t.file, p.line);
    if (l->record != kNone && !t.aiv.records[l->record].origin.empty())
      where += (where.empty() ? "" : ", ") + t.aiv.records[l->record].origin;
    return fmt::format("{}{}{}", task_position(t, task), id, where.empty() ? "" : " (" + where + ")");
  }
  if (k.type == TaskType::AIV_GRAPH && k.notify() < t.aiv.records.size() && !t.aiv.records[k.notify()].origin.empty() &&
      k.line == 0)
    return fmt::format("{} ({})", task_position(t, task), t.aiv.records[k.notify()].origin);
  u32 line = k.line;
  if (const CcuMission* m = ccu_mission_of(t, task, nullptr); m && m->placeholder != kNone)
    line = t.tasks[m->placeholder].line;
  if (line == 0) return task_position(t, task);
  if (line != k.line) return fmt::format("{} ({}:{})", task_position(t, task), t.file, line);
  return fmt::format("{} ({}:{})", task_position(t, task), t.file, k.line);
}

std::string describe_sync(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
  u32 seq = 0;
  if (const AivLaunch* l = aiv_launch_of(t, task, &seq)) return describe_aiv_node(t, *l, l->nodes[seq]);
  if (const CcuMission* m = ccu_mission_of(t, task, &seq)) {
    const CcuNodeInfo& n = m->nodes[seq];
    std::string where = k.type == TaskType::RECORD ? fmt::format("{}\u2192{} ", k.rank, k.peer()) : std::string();
    return fmt::format("{}(ccu {}die {} cke {} mask {:#x}{})", name(k.type), where, n.die, n.cke, n.mask,
                       n.kind == CcuNodeKind::Blocked ? ", never satisfied" : "");
  }
  std::string_view key = t.notify_name(k.notify());
  return fmt::format("{}({}\u2192{} #{}{}{})", name(k.type), record_rank(k), wait_rank(k), k.notify(),
                     key.empty() ? "" : " ", key);
}

std::string describe_ccu_suffix(const Trace& t, u32 task) {
  u32 seq = 0;
  const CcuMission* m = ccu_mission_of(t, task, &seq);
  if (!m) return {};
  std::string o = ccu_origin(t, m->nodes[seq]);
  return o.empty() ? std::string() : " (" + o + ")";
}

std::string describe_task(const Trace& t, u32 task) {
  if (auto m = msccl_description(t, task)) return *m;
  return generic_task_description(t, task);
}

std::string generic_task_description(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
  u32 seq = 0;
  if (const AivLaunch* l = aiv_launch_of(t, task, &seq); l && !is_data_task(k.type))
    return describe_aiv_node(t, *l, l->nodes[seq]);
  if (const CcuMission* m = ccu_mission_of(t, task, &seq); m && k.type == TaskType::CCU_GRAPH) {
    const CcuNodeInfo& n = m->nodes[seq];
    std::string o = ccu_origin(t, n);
    std::string s = o.empty() ? std::string() : " (" + o + ")";
    switch (n.kind) {
      case CcuNodeKind::SubStart:
        return fmt::format("START(CCU_SUB_GRAPH) rank {} die {} mission {}", m->rank, m->die, m->mission);
      case CcuNodeKind::SubEnd:
        return fmt::format("END(CCU_SUB_GRAPH) rank {} die {} mission {}", m->rank, m->die, m->mission);
      case CcuNodeKind::LoopStart:
        if (n.copies > 1)
          return fmt::format("START(LOOP {} merged: {} copies x {} iterations){}", n.loop, n.copies, n.iterations, s);
        return fmt::format("START(LOOP {} copy {}, {} iterations){}", n.loop, n.copy, n.iterations, s);
      case CcuNodeKind::LoopEnd:
        return fmt::format("END(LOOP {} copy {}){}", n.loop, n.copy, s);
      default:
        break;
    }
  }
  std::string out(name(k.type));
  // A destination recorded larger than its copy shows its recorded length.
  auto slice = [&](u32 i) {
    std::string s = describe_slice(t, t.slices[i]);
    if (auto rec = t.recorded_len(i)) s += fmt::format(" (recorded {:#x})", *rec);
    return s;
  };
  switch (k.type) {
    case TaskType::TRANS_MEM:
    case TaskType::REDUCE:
      if (k.group_count() == 1) {
        const Group& g = t.group(k, 0);
        if (k.type == TaskType::TRANS_MEM && g.src_count == 1) {
          out += " src=" + slice(g.first_src);
        } else {
          out += " srcs=[";
          for (u32 s = 0; s < g.src_count; ++s) out += (s ? ", " : "") + slice(g.first_src + s);
          out += "]";
        }
        out += " dst=" + slice(g.dst);
      }
      break;
    case TaskType::BATCH_TRANS_MEM:
    case TaskType::BATCH_REDUCE:
      out += k.type == TaskType::BATCH_TRANS_MEM ? " pairs=[" : " groups=[";
      for (u32 i = 0; i < k.group_count(); ++i) {
        const Group& g = t.group(k, i);
        if (i) out += "; ";
        for (u32 s = 0; s < g.src_count; ++s) out += (s ? ", " : "") + slice(g.first_src + s);
        out += " \u2192 " + slice(g.dst);
      }
      out += "]";
      break;
    case TaskType::RECORD:
    case TaskType::WAIT:
      return describe_sync(t, task) + (k.link != Link::NONE ? fmt::format(" link={}", name(k.link)) : "") +
             (k.tag ? fmt::format(" tag={}", t.tag_of(k)) : "") + describe_ccu_suffix(t, task);
    case TaskType::UNKNOWN:
      return "unknown task";
    case TaskType::CCU_GRAPH:
      if (!(k.flags & kTaskCcu)) return describe_ccu_placeholder(t, k);
      break;
    case TaskType::AIV_GRAPH:
      if (k.notify() < t.aiv.records.size()) return fmt::format("AIV_GRAPH launch {}", t.aiv.records[k.notify()].launch);
      break;
  }
  if (is_reduce_task(k.type))
    out += fmt::format(" op={} dataType={}", name(k.reduce_op), name(k.data_type));
  if (k.link != Link::NONE) out += fmt::format(" link={}", name(k.link));
  return out + describe_ccu_suffix(t, task);
}

std::string task_line(const Trace& t, u32 task) {
  return task_ref(t, task) + " " + describe_task(t, task);
}

}  // namespace cc
