#include "report/error_docs.h"

#include <deque>
#include <string>
#include <vector>

#include "error_docs_md.h"

namespace cc {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_upper_or_digit(char c) { return (c >= 'A' && c <= 'Z') || is_digit(c); }

// "302" or a warning tag such as "STLOG-W-NOTIFY-AMBIGUOUS": capitals and
// digits in at least two parts joined by '-'.
bool is_code(std::string_view s) { return s.size() == 3 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]); }
bool is_tag(std::string_view s) {
  if (s.empty() || s.front() == '-' || s.back() == '-' || s.find("--") != std::string_view::npos) return false;
  bool dash = false;
  for (char c : s) {
    if (c == '-') dash = true;
    else if (!is_upper_or_digit(c)) return false;
  }
  return dash;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

struct Table {
  std::vector<ErrorDoc> docs;
  std::deque<std::string> summaries;  // a deque: growing it moves no string the views point into
};

// The first sentence of the "**Trigger.**" paragraph, its lines joined.
std::string summary_of(std::string_view body) {
  constexpr std::string_view kTrigger = "**Trigger.** ";
  std::size_t at = body.find(kTrigger);
  if (at == std::string_view::npos) return {};
  std::string_view para = body.substr(at + kTrigger.size());
  para = para.substr(0, para.find("\n\n"));
  std::string text;
  for (char c : para) text += c == '\n' ? ' ' : c;
  std::size_t end = text.find(". ");
  if (end != std::string::npos) text.resize(end + 1);
  return text;
}

// Fills `t` in place: its views must not move after they are taken (a
// short string's characters move with it).
void parse(std::string_view md, Table& t) {
  // Sections begin at a "## " line and end before the next "# " or "## " line.
  std::vector<std::size_t> starts;
  for (std::size_t at = 0; at < md.size();) {
    std::size_t eol = md.find('\n', at);
    if (eol == std::string_view::npos) eol = md.size();
    std::string_view line = md.substr(at, eol - at);
    if (starts_with(line, "## ") || starts_with(line, "# ")) starts.push_back(at);
    at = eol + 1;
  }
  starts.push_back(md.size());
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    std::string_view text = md.substr(starts[i], starts[i + 1] - starts[i]);
    if (!starts_with(text, "## ")) continue;
    std::size_t eol = text.find('\n');
    std::string_view heading = text.substr(3, eol == std::string_view::npos ? std::string_view::npos : eol - 3);
    std::size_t space = heading.find(' ');
    std::string_view first = heading.substr(0, space);
    ErrorDoc d;
    if (is_code(first) && space != std::string_view::npos) {
      d.code = first;
      d.name = heading.substr(space + 1);
    } else if (is_tag(heading)) {
      d.code = d.name = heading;
    } else {
      continue;  // "Exit status", "Stages": no code
    }
    d.section = trim(text);
    d.body = eol == std::string_view::npos ? std::string_view() : trim(text.substr(eol + 1));
    constexpr std::string_view kStage = "Stage: ";
    if (starts_with(d.body, kStage)) {
      std::string_view line = d.body.substr(kStage.size(), d.body.find('\n') - kStage.size());
      d.stage = trim(line.substr(0, line.find(" \u00b7")));
    }
    t.summaries.push_back(summary_of(d.body));
    d.summary = t.summaries.back();
    t.docs.push_back(d);
  }
}

const Table& table() {
  static const Table* t = [] {
    auto* x = new Table;  // never freed: the views live as long as the process
    parse(assets::kAsset_ERRORS_md, *x);
    return x;
  }();
  return *t;
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'a' && a[i] <= 'z' ? static_cast<char>(a[i] - 'a' + 'A') : a[i];
    char y = b[i] >= 'a' && b[i] <= 'z' ? static_cast<char>(b[i] - 'a' + 'A') : b[i];
    if (x != y) return false;
  }
  return true;
}

}  // namespace

std::span<const ErrorDoc> error_docs() { return table().docs; }

const ErrorDoc* find_error_doc(std::string_view code_or_name) {
  code_or_name = trim(code_or_name);
  for (const ErrorDoc& d : table().docs)
    if (same_ignoring_case(d.code, code_or_name) || same_ignoring_case(d.name, code_or_name)) return &d;
  return nullptr;
}

}  // namespace cc
