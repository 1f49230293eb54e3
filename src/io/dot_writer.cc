#include "io/dot_writer.h"

#include <fmt/format.h>

#include <deque>
#include <unordered_map>

#include "model/describe.h"

namespace cc {

namespace {

std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// Slices of a data task, one per line, for the node label.
std::string slice_lines(const Trace& t, const Task& k) {
  std::string out;
  for (u32 gi = 0; gi < k.group_count; ++gi) {
    const Group& g = t.group(k, gi);
    for (u32 i = 0; i < g.src_count; ++i)
      out += fmt::format("\n{} \u2192", describe_slice(t, t.slices[g.first_src + i]));
    out += fmt::format("\n{}", describe_slice(t, t.slices[g.dst]));
  }
  return out;
}

std::string node_label(const Trace& t, u32 id) {
  const Task& k = t.tasks[id];
  std::string head = fmt::format("{} {}", task_position(t, id), name(k.type));
  if (is_sync_task(k.type)) return fmt::format("{}\n{}", head, describe_sync(t, id));
  return head + slice_lines(t, k);
}

// Tasks within `radius` undirected edges of `focus`.
std::vector<char> neighbourhood(const Trace& t, const TaskGraph& g, u32 focus, u32 radius) {
  std::vector<char> keep(t.tasks.size(), 0);
  std::deque<std::pair<u32, u32>> q{{focus, 0}};
  keep[focus] = 1;
  auto visit = [&](u32 v, u32 d) {
    if (v < keep.size() && !keep[v]) {
      keep[v] = 1;
      q.push_back({v, d});
    }
  };
  while (!q.empty()) {
    auto [v, d] = q.front();
    q.pop_front();
    if (d == radius) continue;
    const Stream& s = t.streams[g.stream_of[v]];
    if (v > s.first_task) visit(v - 1, d + 1);
    if (v + 1 < s.first_task + s.task_count) visit(v + 1, d + 1);
    if (g.partner[v] != kNone) visit(g.partner[v], d + 1);
    if (g.has_explicit_edges()) {
      for (u32 e = g.out_begin[v]; e < g.out_begin[v + 1]; ++e) visit(g.out_to[e], d + 1);
      for (u32 e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e) visit(g.in_from[e], d + 1);
    }
  }
  return keep;
}

}  // namespace

std::string format_dot(const Trace& t, const TaskGraph& g, const std::vector<Finding>& findings,
                       const DotOptions& opt) {
  std::unordered_map<u32, std::string> codes;  // task -> "302, 406"
  for (const Finding& f : findings)
    for (u32 id : f.tasks) {
      std::string& c = codes[id];
      std::string code = f.code ? std::to_string(f.code) : f.tag;
      if (c.find(code) == std::string::npos) c += fmt::format("{}{}", c.empty() ? "" : ", ", code);
    }
  std::vector<char> keep;
  if (opt.focus != kNone && opt.focus < t.tasks.size())
    keep = neighbourhood(t, g, opt.focus, opt.radius);
  auto shown = [&](u32 id) { return keep.empty() || keep[id]; };

  std::string out = "digraph collcheck {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=9];\n";
  out += "  START [shape=circle, label=\"START\"];\n";
  u32 last_rank = kNone;
  for (u32 si = 0; si < t.streams.size(); ++si) {
    const Stream& s = t.streams[si];
    if (s.rank != last_rank) {
      if (last_rank != kNone) out += "  }\n";
      out += fmt::format("  subgraph cluster_rank{} {{\n    label=\"rank {}\";\n", s.rank, s.rank);
      last_rank = s.rank;
    }
    out += fmt::format("    subgraph cluster_r{}_s{} {{\n      label=\"stream {}\"; style=dashed;\n",
                       s.rank, s.id, s.id);
    for (u32 id = s.first_task; id < s.first_task + s.task_count; ++id) {
      if (!shown(id)) continue;
      auto c = codes.find(id);
      std::string label = node_label(t, id);
      std::string style;
      if (c != codes.end()) {
        label = fmt::format("[{}]\n{}", c->second, label);
        style = ", color=red, penwidth=3, style=filled, fillcolor=\"#ffe0e0\"";
      } else if (is_sync_task(t.tasks[id].type)) {
        style = ", style=rounded";
      }
      out += fmt::format("      t{} [label=\"{}\"{}];\n", id, dot_escape(label), style);
    }
    out += "    }\n";
  }
  if (last_rank != kNone) out += "  }\n";
  for (const Stream& s : t.streams) {
    u32 end = s.first_task + s.task_count;
    if (s.task_count > 0 && shown(s.first_task)) out += fmt::format("  START -> t{};\n", s.first_task);
    for (u32 id = s.first_task; id + 1 < end; ++id)
      if (shown(id) && shown(id + 1)) out += fmt::format("  t{} -> t{};\n", id, id + 1);
  }
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    u32 p = g.partner[id];
    if (p != kNone && t.tasks[id].type == TaskType::RECORD && shown(id) && shown(p))
      out += fmt::format("  t{} -> t{} [style=dashed, color=blue];\n", id, p);
    if (g.has_explicit_edges())
      for (u32 e = g.out_begin[id]; e < g.out_begin[id + 1]; ++e)
        if (shown(id) && shown(g.out_to[e]))
          out += fmt::format("  t{} -> t{} [style=dotted];\n", id, g.out_to[e]);
  }
  out += "}\n";
  return out;
}

}  // namespace cc
