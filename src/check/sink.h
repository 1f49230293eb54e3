// Where stages put their findings: counts every finding, keeps at most `cap`
// per code, so that a trace with a million races costs no memory for them.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "model/finding.h"

namespace cc {

// What findings are counted by: severity, code, and for code 0 the tag.
using CountKey = std::tuple<Severity, u16, std::string>;
using CountMap = std::map<CountKey, u64>;

class FindingSink {
 public:
  explicit FindingSink(u32 cap_per_code) : cap_(cap_per_code) {}

  // Whether another finding with this code would still be kept; stages use
  // it to skip building messages nobody will see (and call count() instead).
  bool wants(u16 code, std::string_view tag = {}) const;
  void add(Finding f);
  void count(u16 code, Severity s, std::string_view tag = {});  // a finding not kept
  // A root cause or a consequence (Finding::cause_id, consequence_of) that
  // was counted but not kept; add() counts those it keeps.
  void count_cascade(bool cause, bool consequence);
  u64 root_causes() const { return causes_; }
  u64 consequences() const { return consequences_; }

  const std::vector<Finding>& findings() const { return findings_; }
  std::vector<Finding>& findings() { return findings_; }
  const CountMap& totals() const { return totals_; }
  u64 errors() const { return errors_; }
  u64 warnings() const { return warnings_; }
  bool has(u16 code) const;  // any finding with this code, of either severity

  // Takes `later`'s findings and counts as if they had been added here,
  // after this sink's own: a stage that ran on its own sink beside another
  // (at the same time) reports exactly what it would have after it. Both
  // sinks must have the same cap.
  void absorb(FindingSink&& later);

 private:
  u32 cap_;
  std::vector<Finding> findings_;
  CountMap totals_;
  std::map<std::pair<u16, std::string>, u64> kept_;
  u64 errors_ = 0, warnings_ = 0;
  u64 causes_ = 0, consequences_ = 0;
};

}  // namespace cc
