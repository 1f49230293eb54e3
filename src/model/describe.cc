#include "model/describe.h"

#include <fmt/format.h>

#include "model/ccu_names.h"
#include "model/msccl_describe.h"

namespace cc {

const CcuMission* ccu_mission_of(const Trace& t, u32 task, u32* seq) {
  const Task& k = t.tasks[task];
  if (!(k.flags & kTaskCcu) || t.ccu.missions.empty()) return nullptr;
  const CcuMission* m = t.ccu.mission_at(k.rank, k.stream);
  if (!m || k.index >= m->nodes.size()) return nullptr;
  if (seq) *seq = k.index;
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
  if (k.notify >= t.ccu.sqes.size()) return "CCU_GRAPH";
  const CcuSqe& q = t.ccu.sqes[k.notify];
  return fmt::format("CCU_GRAPH die {} mission {} instructions [{},{}) args {}", q.die, q.mission, q.inst_start,
                     u32{q.inst_start} + q.inst_count, q.arg_size);
}

}  // namespace

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
  return fmt::format("{}/{}/{}", k.rank, k.stream, k.index);
}

std::string task_ref(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
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
  if (const CcuMission* m = ccu_mission_of(t, task, &seq)) {
    const CcuNodeInfo& n = m->nodes[seq];
    std::string where = k.type == TaskType::RECORD ? fmt::format("{}\u2192{} ", k.rank, k.peer) : std::string();
    return fmt::format("{}(ccu {}die {} cke {} mask {:#x}{})", name(k.type), where, n.die, n.cke, n.mask,
                       n.kind == CcuNodeKind::Blocked ? ", never satisfied" : "");
  }
  std::string_view key = t.notify_name(k.notify);
  return fmt::format("{}({}\u2192{} #{}{}{})", name(k.type), record_rank(k), wait_rank(k), k.notify,
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
      if (k.group_count == 1) {
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
      for (u32 i = 0; i < k.group_count; ++i) {
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
