#include "model/describe.h"

#include <fmt/format.h>

namespace cc {

std::string hex_range(u64 begin, u64 end) { return fmt::format("[{:#x},{:#x})", begin, end); }

std::string describe_slice(const Trace& t, const Slice& s) {
  const std::string& buf = s.buf < t.buffers.names.size() ? t.buffers.name(s.buf) : "?";
  // offset+len may overflow in an invalid slice; print the end as written.
  u64 end = s.offset + s.len;
  if (end < s.offset) return fmt::format("rank {} {} [{:#x},+{:#x})", s.rank, buf, s.offset, s.len);
  return fmt::format("rank {} {} {}", s.rank, buf, hex_range(s.offset, end));
}

std::string task_position(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
  return fmt::format("{}/{}/{}", k.rank, k.stream, k.index);
}

std::string task_ref(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
  if (k.line == 0) return task_position(t, task);
  return fmt::format("{} ({}:{})", task_position(t, task), t.file, k.line);
}

std::string describe_sync(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
  return fmt::format("{}({}\u2192{} #{})", name(k.type), record_rank(k), wait_rank(k), k.notify);
}

std::string describe_task(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
  std::string out(name(k.type));
  auto slice = [&](u32 i) { return describe_slice(t, t.slices[i]); };
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
      return describe_sync(t, task) + (k.link != Link::NONE ? fmt::format(" link={}", name(k.link)) : "");
    case TaskType::UNKNOWN:
      return "unknown task";
  }
  if (is_reduce_task(k.type))
    out += fmt::format(" op={} dataType={}", name(k.reduce_op), name(k.data_type));
  if (k.link != Link::NONE) out += fmt::format(" link={}", name(k.link));
  return out;
}

std::string task_line(const Trace& t, u32 task) {
  return task_ref(t, task) + " " + describe_task(t, task);
}

}  // namespace cc
