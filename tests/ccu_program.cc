#include "ccu_program.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "io/jsonl/reader.h"
#include "model/describe.h"

namespace cc::test {

Expanded expand_text(const std::string& text, const CcuOptions& opt) {
  Expanded e;
  Result<ReadTrace> r = read_jsonl_string(text, "t.jsonl");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return e;
  e.trace = std::move(r.value().trace);
  e.findings = std::move(r.value().findings);
  for (Finding& f : expand_ccu(e.trace, opt)) e.findings.push_back(std::move(f));
  return e;
}

std::vector<u16> expansion_codes(const Expanded& e, bool warnings) {
  std::vector<u16> out;
  for (const Finding& f : e.findings)
    if (f.code != 0 && (warnings || f.severity == Severity::Error)) out.push_back(f.code);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> warning_tags(const Expanded& e) {
  std::vector<std::string> out;
  for (const Finding& f : e.findings)
    if (!f.tag.empty()) out.push_back(f.tag);
  std::sort(out.begin(), out.end());
  return out;
}

CheckResult check_text(const std::string& text, const CcuOptions& ccu, const CheckOptions& opt) {
  Expanded e = expand_text(text, ccu);
  return run_checks(e.trace, std::move(e.findings), opt);
}

std::vector<u16> error_codes(const CheckResult& r) {
  std::set<u16> s;
  for (const auto& [key, n] : r.totals)
    if (std::get<0>(key) == Severity::Error) s.insert(std::get<1>(key));
  return {s.begin(), s.end()};
}

namespace {

std::string slice_text(const Trace& t, const Slice& s) {
  return fmt::format("{{{}, {}, {:#x}, {:#x}}}", s.rank, t.buffers.name(s.buf), s.offset, s.len);
}

std::string node_text(const Trace& t, u32 id, const CcuNodeInfo& n) {
  const Task& k = t.tasks[id];
  switch (n.kind) {
    case CcuNodeKind::SubStart: return "START";
    case CcuNodeKind::SubEnd: return "END";
    case CcuNodeKind::LoopStart:
      if (n.copies > 1) return fmt::format("START(LOOP {} merged {}x{})", n.loop, n.copies, n.iterations);
      return fmt::format("START(LOOP {} copy {} x{})", n.loop, n.copy, n.iterations);
    case CcuNodeKind::LoopEnd:
      if (n.copies > 1) return fmt::format("END(LOOP {} merged)", n.loop);
      return fmt::format("END(LOOP {} copy {})", n.loop, n.copy);
    case CcuNodeKind::Record:
      return fmt::format("RECORD {}->{} die {} cke {} {:#x}", k.rank, k.peer(), n.die, n.cke, n.mask);
    case CcuNodeKind::Wait: return fmt::format("WAIT die {} cke {} {:#x}", n.die, n.cke, n.mask);
    case CcuNodeKind::Blocked: return fmt::format("BLOCKED die {} cke {} {:#x}", n.die, n.cke, n.mask);
    case CcuNodeKind::Data: break;
  }
  std::string s(name(k.type));
  for (u32 g = 0; g < k.group_count(); ++g) {
    const Group& grp = t.group(k, g);
    s += g ? " |" : "";
    for (u32 i = 0; i < grp.src_count; ++i) s += " " + slice_text(t, t.slices[grp.first_src + i]);
    s += " -> " + slice_text(t, t.slices[grp.dst]);
  }
  if (is_reduce_task(k.type)) s += fmt::format(" {} {}", name(k.reduce_op), name(k.data_type));
  return s;
}

}  // namespace

std::string render_ccu(const Trace& t) {
  std::map<u32, std::string> label;  // task -> "m<k>.<i>"
  for (u32 mi = 0; mi < t.ccu.missions.size(); ++mi) {
    const CcuMission& m = t.ccu.missions[mi];
    for (const Stream& s : t.streams)
      if (s.rank == m.rank && s.id == m.stream)
        for (u32 i = 0; i < s.task_count; ++i) label[s.first_task + i] = fmt::format("m{}.{}", mi, i);
  }
  std::map<u32, std::vector<std::string>> parents;
  std::vector<std::string> host_edges;
  auto name_of = [&](u32 task) {
    auto it = label.find(task);
    return it != label.end() ? it->second : "host " + task_position(t, task);
  };
  for (auto [a, b] : t.extra_edges) {
    bool ca = label.count(a), cb = label.count(b);
    if (cb && ca) parents[b].push_back(label[a]);
    else if (ca || cb) host_edges.push_back(name_of(a) + " -> " + name_of(b));
  }
  std::string out;
  for (u32 mi = 0; mi < t.ccu.missions.size(); ++mi) {
    const CcuMission& m = t.ccu.missions[mi];
    for (const Stream& s : t.streams) {
      if (s.rank != m.rank || s.id != m.stream) continue;
      for (u32 i = 0; i < s.task_count; ++i) {
        u32 id = s.first_task + i;
        out += fmt::format("m{}.{} {}", mi, i, node_text(t, id, m.nodes[i]));
        std::vector<std::string>& p = parents[id];
        // "m<k>.<i>" in numeric order.
        auto key = [](const std::string& l) {
          unsigned a = 0, b = 0;
          std::sscanf(l.c_str(), "m%u.%u", &a, &b);
          return std::make_pair(a, b);
        };
        std::sort(p.begin(), p.end(), [&](const std::string& x, const std::string& y) { return key(x) < key(y); });
        if (!p.empty()) out += " <-";
        for (const std::string& x : p) out += " " + x;
        out += "\n";
      }
    }
  }
  std::sort(host_edges.begin(), host_edges.end());
  for (const std::string& e : host_edges) out += e + "\n";
  return out;
}

}  // namespace cc::test
