#include "report/html/data.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "graph/neighbourhood.h"
#include "report/json.h"
#include "text/json.h"
#include "report/text.h"
#include "model/describe.h"
#include "model/msccl_describe.h"

namespace cc {

namespace {

// The tasks the report shows: all, or the findings' neighbourhood.
struct Selection {
  std::vector<u32> tasks;  // shown task ids, in column order
  std::vector<u32> local;  // task id -> position in `tasks`, kNone if not shown
  std::vector<u32> col;    // by position: column on the execution-order axis
  u32 executed_cols = 0;   // columns [0, executed_cols) hold executed tasks
  // The second layout: columns by dependency depth (longest path from START),
  // dense over the depths of shown tasks; unexecuted tasks again after a gap.
  std::vector<u32> depth_col;
  u32 executed_depth_cols = 0;
  std::string note;        // what was left out, if anything
};

// Longest path from START of every executed task, in τ order (every edge
// goes forward in τ, so predecessors are done first).
std::vector<u32> depths(const Trace& t, const TaskGraph& g) {
  std::vector<u32> d(t.tasks.size(), 0);
  for (u32 v : g.order) {
    u32 x = 0;
    if (g.has_stream_pred(v)) x = d[v - 1] + 1;
    if (t.tasks[v].type == TaskType::WAIT && g.partner[v] != kNone) x = std::max(x, d[g.partner[v]] + 1);
    if (g.has_explicit_edges())
      for (u32 e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e) x = std::max(x, d[g.in_from[e]] + 1);
    d[v] = x;
  }
  return d;
}

void assign_depth_columns(const Trace& t, const TaskGraph& g, Selection& sel) {
  std::vector<u32> d = depths(t, g);
  std::vector<u32> used;
  for (u32 id : sel.tasks)
    if (g.executed(id)) used.push_back(d[id]);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  sel.executed_depth_cols = static_cast<u32>(used.size());
  sel.depth_col.resize(sel.tasks.size());
  for (u32 pos = 0; pos < sel.tasks.size(); ++pos) {
    u32 id = sel.tasks[pos];
    if (g.executed(id))
      sel.depth_col[pos] = static_cast<u32>(std::lower_bound(used.begin(), used.end(), d[id]) - used.begin());
    else  // behind the gap, as in the execution-order layout
      sel.depth_col[pos] = sel.executed_depth_cols + (sel.col[pos] - sel.executed_cols);
  }
}

Selection select_tasks(const Trace& t, const TaskGraph& g, const CheckResult& r, u64 max_tasks) {
  Selection sel;
  u32 n = static_cast<u32>(t.tasks.size());
  std::vector<char> keep;
  if (n > max_tasks) {
    std::vector<u32> seeds;
    for (const Finding& f : r.findings)
      for (u32 id : f.tasks) seeds.push_back(id);
    if (!seeds.empty()) {
      Neighbourhood near = neighbourhood(t, g, seeds, ~u32{0}, max_tasks);
      keep = std::move(near.keep);
      sel.note = fmt::format(
          "This trace has {} tasks, too many to draw at once: the report shows the {} tasks "
          "within {} edges of the findings' tasks. Use `collcheck dot --focus` for any other part.",
          n, near.count, near.radius);
    } else {
      // Nothing to centre on: the beginning of the execution.
      keep.assign(n, 0);
      u64 shown = 0;
      for (u32 id : g.order) {
        if (shown == max_tasks) break;
        keep[id] = 1;
        ++shown;
      }
      sel.note = fmt::format(
          "This trace has {} tasks, too many to draw at once: the report shows the first {} "
          "in execution order.",
          n, shown);
    }
  }
  auto shown = [&](u32 id) { return keep.empty() || keep[id]; };
  sel.local.assign(n, kNone);
  for (u32 id : g.order)
    if (shown(id)) {
      sel.local[id] = static_cast<u32>(sel.tasks.size());
      sel.tasks.push_back(id);
      sel.col.push_back(sel.executed_cols++);
    }
  // Tasks the simulation never reached (a deadlock) go to the right of a gap
  // column, each stream's in its own order.
  for (const Stream& s : t.streams) {
    u32 next_col = sel.executed_cols + 1;
    for (u32 id = s.first_task; id < s.first_task + s.task_count; ++id)
      if (!g.executed(id) && shown(id)) {
        sel.local[id] = static_cast<u32>(sel.tasks.size());
        sel.tasks.push_back(id);
        sel.col.push_back(next_col++);
      }
  }
  assign_depth_columns(t, g, sel);
  return sel;
}

template <typename T, typename F>
void append_array(std::string& out, const char* key, const std::vector<T>& items, F&& each) {
  out += fmt::format("\"{}\":[", key);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    each(out, items[i]);
  }
  out += "],";
}

void append_tasks(std::string& out, const Trace& t, const TaskGraph& g, const Selection& sel) {
  auto num = [](std::string& o, u32 v) { fmt::format_to(std::back_inserter(o), "{}", v); };
  auto local_or_minus = [&](std::string& o, u32 id) {
    if (id == kNone || sel.local[id] == kNone) o += "-1";
    else num(o, sel.local[id]);
  };
  out += "\"tasks\":{";
  append_array(out, "lane", sel.tasks, [&](std::string& o, u32 id) { num(o, g.stream_of(id)); });
  append_array(out, "index", sel.tasks, [&](std::string& o, u32 id) { num(o, t.task_index(id)); });
  append_array(out, "type", sel.tasks, [&](std::string& o, u32 id) { o += json_quote(name(t.tasks[id].type)); });
  append_array(out, "col", sel.col, num);
  append_array(out, "depth", sel.depth_col, num);
  append_array(out, "tau", sel.tasks, [&](std::string& o, u32 id) {
    if (g.executed(id)) num(o, g.tau[id]);
    else o += "-1";
  });
  append_array(out, "line", sel.tasks, [&](std::string& o, u32 id) { num(o, t.tasks[id].line); });
  append_array(out, "partner", sel.tasks, [&](std::string& o, u32 id) { local_or_minus(o, g.partner[id]); });
  append_array(out, "desc", sel.tasks, [&](std::string& o, u32 id) { o += json_quote(describe_task(t, id)); });
  // AIV nodes (docs/AIV_MODE.md): their row under the launch (0: START, END
  // and SyncAll rounds, which span the blocks; 1 + block·3 + pipe: a lane),
  // the row's name and the node's name; -1 and "" for host tasks.
  if (!t.aiv.launches.empty()) {
    auto aiv_node = [&](u32 id) -> const AivNodeInfo* {
      if (!(t.tasks[id].flags & kTaskAiv)) return nullptr;
      const Stream& s = t.streams[g.stream_of(id)];
      const AivLaunch* l = t.aiv.launch_at(s.rank, s.id);
      return l && id - s.first_task < l->nodes.size() ? &l->nodes[id - s.first_task] : nullptr;
    };
    auto spans = [](const AivNodeInfo& n) {
      return n.kind == AivNodeKind::Start || n.kind == AivNodeKind::End || n.kind == AivNodeKind::SyncAll;
    };
    append_array(out, "sub", sel.tasks, [&](std::string& o, u32 id) {
      const AivNodeInfo* n = aiv_node(id);
      if (!n) o += "-1";
      else num(o, spans(*n) ? 0 : 1 + n->block_pos * kAivPipes + n->pipe);
    });
    append_array(out, "subName", sel.tasks, [&](std::string& o, u32 id) {
      const AivNodeInfo* n = aiv_node(id);
      const AivLaunch* l = n ? t.aiv.launch_at(t.tasks[id].rank, t.tasks[id].stream) : nullptr;
      if (!n || !l) o += "\"\"";
      else if (spans(*n)) o += json_quote(fmt::format("L{}", l->launch));
      else o += json_quote(fmt::format("L{}.b{}.{}", l->launch, n->block, aiv_pipe_name(n->pipe)));
    });
    append_array(out, "name", sel.tasks, [&](std::string& o, u32 id) {
      o += aiv_node(id) ? json_quote(task_position(t, id)) : "\"\"";
    });
  }
  if (t.msccl.present()) {
    // MSCCL: tasks are named after their steps (gpu/tb/s), and the RECORDs
    // that hand a message to its receive are drawn as message arrows.
    append_array(out, "pos", sel.tasks, [&](std::string& o, u32 id) { o += json_quote(task_position(t, id)); });
    append_array(out, "msg", sel.tasks, [&](std::string& o, u32 id) { o += msccl_message_post(t, id) ? '1' : '0'; });
  }
  out.back() = '}';
  out += ',';
  // Explicit edges between shown tasks, flattened (from, to, from, to, ...).
  std::vector<u32> edges;
  for (auto [a, b] : t.extra_edges)
    if (sel.local[a] != kNone && sel.local[b] != kNone) {
      edges.push_back(sel.local[a]);
      edges.push_back(sel.local[b]);
    }
  append_array(out, "edges", edges, num);
  std::vector<u32> blocked;
  for (u32 id : g.blocked_heads)
    if (sel.local[id] != kNone) blocked.push_back(sel.local[id]);
  append_array(out, "blocked", blocked, num);
}

// Every access of every shown data task, grouped by (rank, buffer) and in
// column order within a group: [task, begin, end, write, ...].
void append_memory(std::string& out, const Trace& t, const Selection& sel) {
  std::map<std::pair<u32, BufId>, std::string> by_buffer;
  auto access = [&](u32 pos, u32 slice, bool write) {
    const Slice& s = t.slices[slice];
    if (s.buf >= t.buffers.names.size() || s.len == 0) return;
    u64 end = s.offset + s.len < s.offset ? ~u64{0} : s.offset + s.len;
    std::string& acc = by_buffer[{s.rank, s.buf}];
    fmt::format_to(std::back_inserter(acc), "{}{},{},{},{}", acc.empty() ? "" : ",", pos, s.offset, end,
                   write ? 1 : 0);
  };
  for (u32 pos = 0; pos < sel.tasks.size(); ++pos) {
    const Task& k = t.tasks[sel.tasks[pos]];
    if (!is_data_task(k.type)) continue;
    for (u32 gi = 0; gi < k.group_count(); ++gi) {
      const Group& g = t.group(k, gi);
      for (u32 i = 0; i < g.src_count; ++i) access(pos, g.first_src + i, false);
      access(pos, g.dst, true);
    }
  }
  out += "\"memory\":[";
  bool first = true;
  for (const auto& [key, acc] : by_buffer) {
    u64 size = t.buffer_size(key.first, key.second);
    out += fmt::format("{}{{\"rank\":{},\"buf\":{},\"size\":{},\"acc\":[{}]}}", first ? "" : ",",
                       key.first, json_quote(t.buffers.name(key.second)),
                       size == BufferSizes::kUndeclared ? std::string("null") : std::to_string(size), acc);
    first = false;
  }
  out += "],";
}

void append_findings(std::string& out, const Trace& t, const CheckResult& r, const Selection& sel) {
  out += "\"findings\":[";
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = r.findings[i];
    out += fmt::format("{}{{\"code\":{},\"name\":{},\"stage\":{},\"severity\":\"{}\",\"message\":{},",
                       i ? "," : "", f.code, json_quote(finding_name(f)), json_quote(name(f.stage)),
                       f.severity == Severity::Error ? "error" : "warning", json_quote(f.message));
    out += fmt::format("\"rootCause\":{},\"consequenceOf\":{},", f.cause_id, f.consequence_of);
    append_array(out, "details", f.details, [](std::string& o, const std::string& d) { o += json_quote(d); });
    std::vector<u32> ids;
    for (u32 id : f.tasks)
      if (id < t.tasks.size()) ids.push_back(id);
    append_array(out, "tasks", ids, [&](std::string& o, u32 id) {
      if (sel.local[id] == kNone) o += "-1";
      else fmt::format_to(std::back_inserter(o), "{}", sel.local[id]);
    });
    append_array(out, "refs", ids, [&](std::string& o, u32 id) {
      o += fmt::format("{{\"pos\":{},\"line\":{},\"desc\":{}}}", json_quote(task_position(t, id)),
                       t.tasks[id].line, json_quote(describe_task(t, id)));
    });
    out.back() = '}';
  }
  out += "],";
  // Findings counted but not kept (--max-errors).
  CountMap kept;
  for (const Finding& f : r.findings) kept[{f.severity, f.code, f.code == 0 ? f.tag : std::string()}]++;
  std::vector<std::string> more;
  for (const auto& [key, n] : r.totals) {
    const auto& [sev, code, tag] = key;
    if (n > kept[key])
      more.push_back(fmt::format("{} more {} findings not shown (--max-errors)", n - kept[key],
                                 code == 0 ? tag : std::to_string(code)));
  }
  append_array(out, "more", more, [](std::string& o, const std::string& m) { o += json_quote(m); });
}

}  // namespace

std::string html_report_data(const Trace& t, const TaskGraph& g, const CheckResult& r,
                             const HtmlOptions& opt) {
  Selection sel = select_tasks(t, g, r, opt.max_tasks);
  std::string out = "{";
  out += fmt::format("\"file\":{},\"verdict\":\"{}\",\"summary\":{},\"operator\":{},", json_quote(r.input),
                     r.pass ? "PASS" : "FAIL", json_quote(summary_line(r)),
                     json_quote(t.op.known ? fmt::format("{}, {} ranks, {} \u00d7 {}{}", name(t.op.type), t.op.ranks,
                                                         name(t.op.data_type), t.op.count,
                                                         t.op.in_place ? ", in place" : "")
                                           : fmt::format("operator unknown, {} ranks", t.op.ranks)));
  out += fmt::format("\"totalTasks\":{},\"note\":{},\"executedCols\":{},\"executedDepthCols\":{},"
                     "\"complete\":{},",
                     t.tasks.size(), json_quote(sel.note), sel.executed_cols, sel.executed_depth_cols,
                     g.complete ? "true" : "false");
  std::vector<u32> lanes(t.streams.size());
  for (u32 i = 0; i < lanes.size(); ++i) lanes[i] = i;
  append_array(out, "lanes", lanes, [&](std::string& o, u32 i) {
    const Stream& s = t.streams[i];
    // An AIV launch's stream also names the host stream that started it
    // (-1 for other streams); an MSCCL thread block, its lane name.
    const AivLaunch* l = t.aiv.launch_at(s.rank, s.id);
    auto lane = msccl_lane(t, s.rank, s.id);
    fmt::format_to(std::back_inserter(o), "[{},{},{}", s.rank, s.id, s.task_count);
    if (l && l->placeholder < t.tasks.size()) fmt::format_to(std::back_inserter(o), ",{}", t.tasks[l->placeholder].stream);
    else if (lane) o += ",-1";
    if (lane) o += "," + json_quote(*lane);
    o += ']';
  });
  append_tasks(out, t, g, sel);
  append_memory(out, t, sel);
  append_findings(out, t, r, sel);
  out.back() = '}';
  out += '\n';
  return out;
}

}  // namespace cc
