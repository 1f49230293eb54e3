#include "report/dot.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_map>

#include "graph/neighbourhood.h"
#include "model/describe.h"
#include "model/msccl_describe.h"

namespace cc {

namespace {

// Text inside a double-quoted DOT string. `\l` ends a left-justified line.
std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\l";
      continue;
    }
    out += c;
  }
  return out;
}

// Groups drawn in a label; a batch of more is cut (the tooltip has them all).
constexpr u32 kLabelGroups = 6;

// Slices of a data task, one per line: each source, then "→ destination".
std::string slice_lines(const Trace& t, const Task& k) {
  std::string out;
  for (u32 gi = 0; gi < k.group_count(); ++gi) {
    if (gi == kLabelGroups && k.group_count() > kLabelGroups + 1) {
      out += fmt::format("\n… {} more groups", k.group_count() - gi);
      break;
    }
    const Group& g = t.group(k, gi);
    for (u32 i = 0; i < g.src_count; ++i)
      out += fmt::format("\n  {}", describe_slice(t, t.slices[g.first_src + i]));
    out += fmt::format("\n\u2192 {}", describe_slice(t, t.slices[g.dst]));
  }
  return out;
}

std::string node_label(const Trace& t, u32 id) {
  const Task& k = t.tasks[id];
  std::string link = k.link != Link::NONE ? fmt::format("  {}", name(k.link)) : "";
  if (is_sync_task(k.type)) return fmt::format("{}  {}{}", task_position(t, id), describe_sync(t, id), link);
  std::string head = fmt::format("{}  {}", task_position(t, id), name(k.type));
  if (is_reduce_task(k.type)) head += fmt::format(" {} {}", name(k.reduce_op), name(k.data_type));
  return head + link + slice_lines(t, k);
}

const char* fill_of(TaskType type) {
  switch (type) {
    case TaskType::TRANS_MEM:
    case TaskType::BATCH_TRANS_MEM: return "#e3effb";
    case TaskType::REDUCE:
    case TaskType::BATCH_REDUCE: return "#ece6fa";
    case TaskType::RECORD: return "#e3f4e5";
    case TaskType::WAIT: return "#fcf2d6";
    case TaskType::UNKNOWN: return "#eeeeee";
    case TaskType::CCU_GRAPH: return "#f3e5f5";
    case TaskType::AIV_GRAPH: return "#e0f2f1";
  }
  return "#eeeeee";
}

// The findings a task is in: their codes (or tags) and whether any is an error.
struct Mark {
  std::vector<std::string> codes;
  bool error = false;
};

std::unordered_map<u32, Mark> mark_findings(const Trace& t, const std::vector<Finding>& findings) {
  std::unordered_map<u32, Mark> marks;
  for (const Finding& f : findings) {
    std::string code = f.code ? std::to_string(f.code) : f.tag;
    for (u32 id : f.tasks) {
      if (id >= t.tasks.size()) continue;
      Mark& m = marks[id];
      if (std::find(m.codes.begin(), m.codes.end(), code) == m.codes.end()) m.codes.push_back(code);
      m.error |= f.severity == Severity::Error;
    }
  }
  return marks;
}

}  // namespace

std::string format_dot(const Trace& t, const TaskGraph& g, const std::vector<Finding>& findings,
                       const DotOptions& opt) {
  std::unordered_map<u32, Mark> marks = mark_findings(t, findings);
  Neighbourhood near;
  if (!opt.focus.empty()) near = neighbourhood(t, g, opt.focus, opt.radius);
  auto shown = [&](u32 id) { return near.keep.empty() || near.keep[id]; };

  std::string title = opt.title;
  if (!opt.focus.empty()) {
    std::string seeds;
    for (std::size_t i = 0; i < opt.focus.size() && i < 8; ++i)
      if (opt.focus[i] < t.tasks.size()) seeds += (seeds.empty() ? "" : ", ") + task_position(t, opt.focus[i]);
    if (opt.focus.size() > 8) seeds += ", ...";
    title += fmt::format("{}{} of {} tasks: within {} edges of {}", title.empty() ? "" : "\n",
                         near.count, t.tasks.size(), opt.radius, seeds);
  }
  std::string out = "digraph collcheck {\n";
  out += fmt::format(
      "  graph [rankdir=TB, newrank=true, nodesep=0.3, ranksep=0.35, fontname=\"Helvetica\", "
      "fontsize=12, labelloc=t, label=\"{}\"];\n",
      dot_escape(title));
  out += "  node [shape=box, style=\"rounded,filled\", color=\"#7b8794\", fontname=\"Helvetica\", "
         "fontsize=9, margin=\"0.08,0.04\"];\n";
  out += "  edge [color=\"#52606d\", arrowsize=0.6];\n";
  out += "  START [shape=circle, style=filled, fillcolor=\"#52606d\", fontcolor=white, "
         "fontsize=8, label=\"START\"];\n";
  u32 open_rank = kNone;
  for (u32 si = 0; si < t.streams.size(); ++si) {
    const Stream& s = t.streams[si];
    u32 end = s.first_task + s.task_count;
    bool any = false;
    for (u32 id = s.first_task; id < end && !any; ++id) any = shown(id);
    if (!any) continue;
    if (s.rank != open_rank) {
      if (open_rank != kNone) out += "  }\n";
      out += fmt::format("  subgraph cluster_rank{} {{\n    label=\"rank {}\"; style=\"rounded,filled\"; "
                         "fillcolor=\"#f7f9fb\"; color=\"#9aa5b1\"; fontname=\"Helvetica-Bold\";\n",
                         s.rank, s.rank);
      open_rank = s.rank;
    }
    // An AIV launch's nodes (their own stream) are shown as the launch, with
    // a cluster per block; START, END and SyncAll rounds span the blocks.
    const AivLaunch* launch = t.aiv.launch_at(s.rank, s.id);
    // An MSCCL thread block is a lane named after it and its peers.
    std::string stream_label = msccl_lane(t, s.rank, s.id).value_or(fmt::format("stream {}", s.id));
    if (launch && launch->placeholder < t.tasks.size())
      stream_label = fmt::format("AIV launch {} (from stream {})", launch->launch, t.tasks[launch->placeholder].stream);
    out += fmt::format("    subgraph cluster_r{}_s{} {{\n      label=\"{}\"; style=\"dashed,rounded\"; "
                       "color=\"#bcccdc\"; fontname=\"Helvetica\"; fontsize=10;\n",
                       s.rank, s.id, dot_escape(stream_label));
    auto emit = [&](u32 id, const char* indent) {
      if (!shown(id)) return;
      const Task& k = t.tasks[id];
      std::string label = node_label(t, id) + "\n";
      std::string style = fmt::format("fillcolor=\"{}\"", fill_of(k.type));
      if (auto m = marks.find(id); m != marks.end()) {
        label = fmt::format("[{}]\n{}", fmt::join(m->second.codes, ", "), label);
        style = m->second.error
                    ? "color=\"#c62828\", penwidth=3, fillcolor=\"#ffd6d6\", fontname=\"Helvetica-Bold\""
                    : "color=\"#ef6c00\", penwidth=3, fillcolor=\"#ffe6c7\", fontname=\"Helvetica-Bold\"";
      }
      if (!g.executed(id)) style += ", style=\"rounded,filled,dashed\", fontcolor=\"#616e7c\"";
      out += fmt::format("{}t{} [label=\"{}\", group=\"r{}s{}\", tooltip=\"{}\", {}];\n", indent, id,
                         dot_escape(label), s.rank, s.id, dot_escape(task_line(t, id)), style);
    };
    if (launch && launch->nodes.size() == s.task_count) {
      auto spans = [](AivNodeKind k) {
        return k == AivNodeKind::Start || k == AivNodeKind::End || k == AivNodeKind::SyncAll;
      };
      u32 blocks = 0;
      for (u32 i = 0; i < s.task_count; ++i) {
        const AivNodeInfo& n = launch->nodes[i];
        if (spans(n.kind)) emit(s.first_task + i, "      ");
        else blocks = std::max(blocks, n.block_pos + 1);
      }
      for (u32 b = 0; b < blocks; ++b) {
        std::string body;
        std::swap(body, out);
        u32 block = 0;
        for (u32 i = 0; i < s.task_count; ++i) {
          const AivNodeInfo& n = launch->nodes[i];
          if (!spans(n.kind) && n.block_pos == b) emit(s.first_task + i, "        "), block = n.block;
        }
        std::swap(body, out);
        if (body.empty()) continue;
        out += fmt::format("      subgraph cluster_r{}_s{}_b{} {{\n        label=\"block {}\"; style=\"dotted,rounded\"; "
                           "color=\"#9fb3c8\"; fontsize=9;\n{}      }}\n",
                           s.rank, s.id, b, block, body);
      }
    } else {
      for (u32 id = s.first_task; id < end; ++id) emit(id, "      ");
    }
    out += "    }\n";
  }
  if (open_rank != kNone) out += "  }\n";

  for (const Stream& s : t.streams) {
    u32 end = s.first_task + s.task_count;
    if (s.task_count > 0 && shown(s.first_task) && !(t.tasks[s.first_task].flags & kTaskUnchained))
      out += fmt::format("  START -> t{} [color=\"#9aa5b1\"];\n", s.first_task);
    for (u32 id = s.first_task; id + 1 < end; ++id)
      if (g.stream_next(id) != kNone && shown(id) && shown(id + 1))
        out += fmt::format("  t{} -> t{} [weight=10];\n", id, id + 1);
  }
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    if (!shown(id)) continue;
    u32 p = g.partner[id];
    // An MSCCL send -> receive is a message, drawn solid; other pairs
    // (dependencies, notifies) dashed.
    if (p != kNone && t.tasks[id].type == TaskType::RECORD && shown(p))
      out += msccl_message_post(t, id)
                 ? fmt::format("  t{} -> t{} [color=\"#2e7d32\", penwidth=1.6, tooltip=\"message\"];\n", id, p)
                 : fmt::format("  t{} -> t{} [style=dashed, color=\"#1565c0\", penwidth=1.3];\n", id, p);
    if (g.has_explicit_edges())
      for (u32 e = g.out_begin[id]; e < g.out_begin[id + 1]; ++e)
        if (shown(g.out_to[e]))
          out += fmt::format("  t{} -> t{} [style=dotted, color=\"#6a1b9a\"];\n", id, g.out_to[e]);
  }
  out += "}\n";
  return out;
}

}  // namespace cc
