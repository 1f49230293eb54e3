#include "report/text.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace cc {

std::string format_finding(const Finding& f) {
  std::string head;
  if (f.code == 0)
    head = fmt::format("[{}] [{}] ", name(f.stage), f.tag);
  else
    head = fmt::format("[{}] [ErrorCode: {}] {}", name(f.stage), f.code,
                       f.severity == Severity::Warning ? "(warning) " : "");
  std::string out = head + f.message + "\n";
  for (const std::string& d : f.details) out += "  " + d + "\n";
  return out;
}

namespace {

std::string plural(u64 n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// "302×1, 406×2" for the findings of one severity.
std::string code_counts(const CheckResult& r, Severity s) {
  std::string out;
  for (const auto& [key, n] : r.totals) {
    const auto& [sev, code, tag] = key;
    if (sev != s) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{}\u00d7{}", code == 0 ? tag : std::to_string(code), n);
  }
  return out;
}

}  // namespace

std::string verdict_line(const CheckResult& r) {
  std::string errs = code_counts(r, Severity::Error);
  std::string warns = code_counts(r, Severity::Warning);
  return fmt::format("{}: {} ({}{}; {}{})", r.input, r.pass ? "PASS" : "FAIL",
                     plural(r.errors, "error"), errs.empty() ? "" : ": " + errs,
                     plural(r.warnings, "warning"), warns.empty() ? "" : ": " + warns);
}

std::string summary_line(const CheckResult& r) {
  double ms = r.ms + r.read_ms;
  std::string out = fmt::format("collcheck: {} ranks={} tasks={} in {} ms", verdict_line(r), r.ranks, r.tasks,
                                static_cast<u64>(std::llround(ms)));
  // Cascades: how many of the findings are the ones to fix.
  if (r.consequences)
    out += fmt::format("; {} of {} findings {} of {}", r.consequences, r.errors + r.warnings,
                       r.consequences == 1 ? "is a consequence" : "are consequences",
                       plural(r.root_causes, "root cause"));
  return out;
}

std::string format_text_report(const CheckResult& r, const Trace* trace, Verbosity v,
                               u32 max_errors) {
  (void)trace;
  std::string out;
  if (v != Verbosity::Quiet) {
    // Root causes and independent findings in full; a cause's consequences
    // (the streams blocked behind one stuck WAIT, the RECORDs they left
    // unconsumed) as one line after it, unless -v asks for every one.
    std::map<u32, std::map<std::string, u64>> hidden;  // cause id -> code -> count
    if (v != Verbosity::Verbose)
      for (const Finding& f : r.findings)
        if (f.consequence_of) hidden[f.consequence_of][f.code ? std::to_string(f.code) : f.tag]++;
    for (const Finding& f : r.findings) {
      if (f.consequence_of && v != Verbosity::Verbose) continue;
      out += format_finding(f);
      if (auto h = hidden.find(f.cause_id); f.cause_id && h != hidden.end()) {
        u64 n = 0;
        std::string codes;
        for (const auto& [code, k] : h->second) {
          n += k;
          codes += fmt::format("{}{}\u00d7{}", codes.empty() ? "" : ", ", code, k);
        }
        out += fmt::format("  (+ {} caused by this one, not shown: {}; -v lists them)\n", plural(n, "finding"),
                           codes);
      }
      out += "\n";
    }
    CountMap kept;
    for (const Finding& f : r.findings)
      kept[{f.severity, f.code, f.code == 0 ? f.tag : std::string()}]++;
    for (const auto& [key, n] : r.totals) {
      u64 k = kept[key];
      const auto& [sev, code, tag] = key;
      if (n > k)
        out += fmt::format("({} more {} findings not shown: --max-errors {})\n\n", n - k,
                           code == 0 ? tag : std::to_string(code), max_errors);
    }
  }
  if (v == Verbosity::Verbose) {
    out += fmt::format("read: {:.1f} ms\n", r.read_ms);
    for (const StageTime& s : r.times) out += fmt::format("stage {}: {:.1f} ms\n", s.stage, s.ms);
    for (const std::string& s : r.stats) out += s + "\n";
  }
  out += summary_line(r) + "\n";
  return out;
}

}  // namespace cc
