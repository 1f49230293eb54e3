// The argument parser's errors in collcheck's own form: one
// "collcheck: error: ..." line, with "did you mean ...?" for a mistyped
// subcommand or option (CLI11's own texts name neither the subcommand nor a
// likely fix).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

#include "cli/commands.h"
#include "text/suggest.h"

namespace cc {

namespace {

std::string did_you_mean(std::string_view word, const std::vector<std::string>& known, bool quote) {
  std::vector<std::string_view> views(known.begin(), known.end());
  auto near = closest_word(word, views);
  if (!near) return "";
  return quote ? fmt::format(" (did you mean '{}'?)", *near) : fmt::format(" (did you mean {}?)", *near);
}

// Every spelling of the options of `app`: "--json", "-j", ...
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

bool looks_like_number(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.');
}

// The first argument of `args` that `app` has no option for ("" if none).
std::string unknown_option(const CLI::App& app, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || looks_like_number(a)) continue;
    std::string name = a[1] == '-' ? a.substr(0, a.find('=')) : a.substr(0, 2);
    if (!app.get_option_no_throw(name)) return name;
  }
  return "";
}

// CLI11 starts its texts with a capital; ours do not.
std::string lower_first(std::string s) {
  if (!s.empty() && std::isupper(static_cast<unsigned char>(s[0])) &&
      !(s.size() > 1 && std::isupper(static_cast<unsigned char>(s[1]))))
    s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> subcommands;
  for (const CLI::App* s : app.get_subcommands({})) subcommands.push_back(s->get_name());
  // The subcommand is the first argument that is not an option.
  auto first = std::find_if(args.begin(), args.end(), [](const std::string& a) { return a.empty() || a[0] != '-'; });
  if (first == args.end()) {
    std::string option = unknown_option(app, args);
    if (!option.empty()) return fmt::format("unknown option {}{}", option, did_you_mean(option, option_names(app), false));
    return fmt::format("a subcommand is required: {}", fmt::join(subcommands, ", "));
  }
  const CLI::App* sub = nullptr;
  for (const CLI::App* s : app.get_subcommands({}))
    if (s->check_name(*first)) sub = s;
  if (!sub) return fmt::format("unknown subcommand '{}'{}", *first, did_you_mean(*first, subcommands, true));
  std::vector<std::string> rest(first + 1, args.end());
  std::string option = unknown_option(*sub, rest);
  if (!option.empty())
    return fmt::format("unknown option {}{}", option, did_you_mean(option, option_names(*sub), false));
  std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::size_t colon = what.find(": ");
    return fmt::format("{}: unexpected argument {}", sub->get_name(),
                       colon == std::string::npos ? what : what.substr(colon + 2));
  }
  return fmt::format("{}: {}", sub->get_name(), lower_first(what));
}

namespace {

// A whole number in [lo, hi] without sign, spaces or a fraction.
std::string count_problem(const std::string& text, u64 lo, u64 hi) {
  u64 v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || v < lo || v > hi)
    return fmt::format("{} is not a whole number from {} to {}", text, lo, hi);
  return "";
}

}  // namespace

CLI::Validator whole_number(u64 lo, u64 hi) {
  return CLI::Validator([lo, hi](std::string& s) { return count_problem(s, lo, hi); },
                        fmt::format("{}..{}", lo, hi));
}

}  // namespace cc
