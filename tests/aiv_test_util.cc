#include "aiv_test_util.h"

#include <fmt/format.h>

#include "model/describe.h"
#include "test_util.h"

namespace cc::test {

AivChecked check_aiv_trace(Trace t, const AivOptions& options) {
  AivChecked out;
  Result<AivExpansion> x = expand_aiv(t, options);
  if (!x) {
    out.error = x.error().message;
    return out;
  }
  out.expansion = x->findings;
  CheckOptions co;
  co.max_errors = 1000000;
  out.result = run_checks(t, x->findings, co);
  out.trace = std::move(t);
  return out;
}

AivChecked check_aiv_text(const std::string& text, const AivOptions& options) {
  Result<ReadTrace> r = read_jsonl_string(text, "t.jsonl");
  if (!r) {
    AivChecked out;
    out.error = r.error().message;
    return out;
  }
  AivChecked out = check_aiv_trace(std::move(r->trace), options);
  // The reader's own findings come first, as `check` reports them.
  if (!r->findings.empty()) {
    std::vector<Finding> pre = r->findings;
    pre.insert(pre.end(), out.expansion.begin(), out.expansion.end());
    CheckOptions co;
    co.max_errors = 1000000;
    out.result = run_checks(out.trace, pre, co);
  }
  return out;
}

AivChecked check_aiv_case(const std::string& name, const AivOptions& options) {
  std::string path = source_dir() + "/tests/cases/aiv/" + name;
  Result<ReadTrace> r = read_jsonl_file(path);
  if (!r) {
    AivChecked out;
    out.error = r.error().message;
    return out;
  }
  r->trace.file = name;
  return check_aiv_trace(std::move(r->trace), options);
}

std::set<std::string> aiv_codes(const CheckResult& r) {
  std::set<std::string> s;
  for (const auto& [key, n] : r.totals)
    if (n) s.insert(std::get<1>(key) ? std::to_string(std::get<1>(key)) : std::get<2>(key));
  return s;
}

std::vector<const Finding*> findings_of(const CheckResult& r, int code, const std::string& tag) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.code == code && (tag.empty() || f.tag == tag)) out.push_back(&f);
  return out;
}

u32 aiv_task(const Trace& t, u32 rank, u64 launch, u32 block, const std::string& pipe, u32 pos) {
  for (const AivLaunch& l : t.aiv.launches) {
    if (l.rank != rank || l.launch != launch) continue;
    u32 first = kNone;
    for (const Stream& s : t.streams)
      if (s.rank == l.rank && s.id == l.stream) first = s.first_task;
    for (u32 i = 0; i < l.nodes.size(); ++i) {
      const AivNodeInfo& n = l.nodes[i];
      bool lane = n.kind != AivNodeKind::Start && n.kind != AivNodeKind::End;
      if (lane && n.block == block && aiv_pipe_name(n.pipe) == pipe && n.pos == pos) return first + i;
    }
  }
  return kNone;
}

std::set<std::string> aiv_sync_edges(const Trace& t) {
  std::set<std::string> out;
  for (auto [a, b] : t.extra_edges) {
    u32 i = 0, j = 0;
    const AivLaunch* la = aiv_launch_of(t, a, &i);
    const AivLaunch* lb = aiv_launch_of(t, b, &j);
    if (!la || !lb) continue;
    AivNodeKind ka = la->nodes[i].kind, kb = lb->nodes[j].kind;
    bool set = ka == AivNodeKind::EventSet || ka == AivNodeKind::FlagSet;
    bool wait = kb == AivNodeKind::EventWait || kb == AivNodeKind::FlagWait;
    if (set && wait) out.insert(aiv_short_name(t, a) + " -> " + aiv_short_name(t, b));
  }
  return out;
}

std::string aiv_trace_text(const std::string& op_json, const std::vector<std::string>& snapshots,
                           const std::string& buffers) {
  std::string text = fmt::format("{{\"format\":\"collcheck-trace\",\"version\":2,\"op\":{},\"buffers\":{}}}\n",
                                 op_json, buffers);
  std::set<u32> ranks;
  for (const std::string& s : snapshots) {
    text += "{\"aiv\":" + s + "}\n";
    std::size_t at = s.find("\"rank\":");
    ranks.insert(static_cast<u32>(std::stoul(s.substr(at + 7))));
  }
  for (u32 r : ranks) text += fmt::format("{{\"rank\":{},\"stream\":0,\"type\":\"AIV_GRAPH\",\"launch\":0}}\n", r);
  return text;
}

}  // namespace cc::test
