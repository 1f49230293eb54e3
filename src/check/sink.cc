#include "check/sink.h"

namespace cc {

bool FindingSink::wants(u16 code, std::string_view tag) const {
  auto it = kept_.find({code, std::string(tag)});
  return it == kept_.end() || it->second < cap_;
}

void FindingSink::count(u16 code, Severity s, std::string_view tag) {
  ++totals_[{s, code, code == 0 ? std::string(tag) : std::string()}];
  (s == Severity::Error ? errors_ : warnings_)++;
}

void FindingSink::count_cascade(bool cause, bool consequence) {
  causes_ += cause;
  consequences_ += consequence;
}

void FindingSink::add(Finding f) {
  std::string tag = f.code == 0 ? f.tag : std::string();
  count(f.code, f.severity, tag);
  count_cascade(f.cause_id != 0, f.consequence_of != 0);
  u64& kept = kept_[{f.code, tag}];
  if (kept >= cap_) return;
  ++kept;
  findings_.push_back(std::move(f));
}

void FindingSink::absorb(FindingSink&& later) {
  for (const auto& [key, n] : later.totals_) totals_[key] += n;
  errors_ += later.errors_;
  warnings_ += later.warnings_;
  causes_ += later.causes_;
  consequences_ += later.consequences_;
  // `later` kept the first `cap` of each code in its order: of those, the
  // ones that still fit here are the ones this sink would have kept.
  for (Finding& f : later.findings_) {
    u64& kept = kept_[{f.code, f.code == 0 ? f.tag : std::string()}];
    if (kept >= cap_) continue;
    ++kept;
    findings_.push_back(std::move(f));
  }
  for (const auto& [key, n] : later.kept_) kept_.try_emplace(key, 0);  // wants() answers as after add()
  later.findings_.clear();
}

bool FindingSink::has(u16 code) const {
  for (const auto& [key, n] : totals_)
    if (std::get<1>(key) == code && n > 0) return true;
  return false;
}

}  // namespace cc
