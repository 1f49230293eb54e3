#include "io/jsonl/parallel_reader.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

#include "io/jsonl/parser.h"
#include "io/line_reader.h"

namespace cc {

namespace {

using jsonl::JsonlParser;

// More parts than this would only add buffers (4 MiB each) and merge work.
constexpr unsigned kMaxParts = 64;
// A part whose own tables come this near their limits goes to the
// sequential reader, which knows where the limit is reached in the file.
constexpr std::size_t kPartTagLimit = 255;
constexpr std::size_t kPartBufferLimit = 0xf000;
constexpr u64 kIndexLimit = 0xfffffffeu;

// One thread's share: the lines that start in [begin, end).
struct Part {
  explicit Part(JsonlParser p) : parser(std::move(p)) {}
  JsonlParser parser;
  u64 begin = 0, end = 0;
  bool last = false;  // reads to the end of the input, whatever its size now
  u64 total = 0;      // bytes of all parts
  bool read_failed = false;  // open, seek or read: the sequential reader reports it
  bool done = false;
};

void parse_part(const std::string& path, Part& part, bool first) {
  LineReader lines;
  // A later part starts one byte early and skips through the first
  // end-of-line: a line that starts exactly at `begin` is then its own, a
  // line that began before it belongs to the part before.
  u64 from = first ? part.begin : part.begin - 1;
  if (!lines.open_at(path, from)) {
    part.read_failed = true;
    return;
  }
  u64 skipped = 0;
  if (!first) {
    std::string_view rest;
    if (!lines.next(rest) && !lines.error().empty()) {
      part.read_failed = true;
      return;
    }
    skipped = 1;
  }
  // As read_jsonl_file does for the whole file. The first part's arrays
  // become the trace's (merge_part), so they are reserved for every part:
  // pages reserved and never written cost nothing, and the later parts are
  // appended without moving the first one.
  part.parser.reserve(first ? part.total / 64 : (part.end - part.begin) / 96);
  u64 end = part.last ? ~u64{0} : part.end;
  if (!part.parser.read_tasks(lines, end, skipped) && part.parser.error().io) part.read_failed = true;
}

// Appends `part`'s tables to `main`'s trace in file order. `line_base` is
// the number of lines before the part. False when a buffer name does not
// fit (the sequential reader reports where).
bool merge_part(JsonlParser& main, JsonlParser& part, u64 line_base) {
  ReadTrace& out = main.result();
  Trace& t = out.trace;
  Trace& p = part.result().trace;
  // The part's tables start as copies of the header's, so interning its
  // names in its own order here meets every name in the order the
  // sequential reader would.
  std::vector<BufId> buf_of(p.buffers.names.size());
  for (std::size_t i = 0; i < buf_of.size(); ++i)
    if ((buf_of[i] = t.buffers.intern(p.buffers.names[i])) == kNoBuf) return false;
  std::vector<u8> tag_of(p.tags.size() + 1, 0);
  for (std::size_t i = 0; i < p.tags.size(); ++i) tag_of[i + 1] = t.intern_tag(p.tags[i]);

  auto slice0 = static_cast<u32>(t.slices.size());
  auto group0 = static_cast<u32>(t.groups.size());
  auto task0 = static_cast<u32>(t.tasks.size());
  for (Slice& s : p.slices) s.buf = buf_of[s.buf];
  for (Group& g : p.groups) {
    g.dst += slice0;
    g.first_src += slice0;
  }
  for (Task& k : p.tasks) {
    // Only data tasks point at groups; the others keep 0 as they are read.
    if (k.type == TaskType::TRANS_MEM || k.type == TaskType::BATCH_TRANS_MEM || k.type == TaskType::REDUCE ||
        k.type == TaskType::BATCH_REDUCE)
      k.set_first_group(k.first_group() + group0);
    k.tag = tag_of[k.tag];
    k.line = static_cast<u32>(k.line + line_base);
  }
  // The first part's arrays are taken over, not copied: a copy would write
  // every page twice, and page faults are much of what reading costs.
  auto append = [](auto& to, auto& from) {
    if (to.empty() && to.capacity() <= from.capacity()) to.swap(from);
    else to.insert(to.end(), from.begin(), from.end());
  };
  append(t.slices, p.slices);
  append(t.groups, p.groups);
  append(t.tasks, p.tasks);
  for (auto [slice, len] : p.recorded_lens) t.recorded_lens.emplace_back(slice + slice0, len);
  for (const auto& [index, type] : part.unknown_types()) {
    Finding f = jsonl::unknown_type_finding(t, type, t.tasks[task0 + index], main.version());
    f.tasks.push_back(task0 + index);
    out.findings.push_back(std::move(f));
  }
  // Give the part's memory back before the next one is appended.
  p = Trace{};
  return true;
}

bool regular_file_size(const std::string& path, u64& size) {
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) return false;
  size = static_cast<u64>(sb.st_size);
  return true;
}

}  // namespace

std::optional<Result<ReadTrace>> read_jsonl_parallel(const std::string& path, unsigned threads, u64 min_bytes) {
  u64 size = 0;
  if (threads < 2 || path == "-" || !regular_file_size(path, size) || size < min_bytes) return std::nullopt;
  LineReader head;
  if (!head.open(path) || !head.plain()) return std::nullopt;
  JsonlParser main(path);
  if (!main.read_header(head)) return std::nullopt;
  u64 from = head.position();
  if (from > size) return std::nullopt;  // the file grew while read: let one reader see one state

  // Parts of equal bytes; each begins at the first line start at or after
  // its offset, so a part may hold no line at all.
  unsigned n = std::min(threads, kMaxParts);
  std::vector<Part> parts;
  parts.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    parts.emplace_back(JsonlParser::part_of(main));
    parts[i].begin = from + (size - from) * i / n;
    parts[i].end = from + (size - from) * (i + 1) / n;
    parts[i].total = size - from;
  }
  parts.back().last = true;
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < n; ++i) {
    try {
      workers.emplace_back([&path, &part = parts[i]] {
        parse_part(path, part, false);
        part.done = true;
      });
    } catch (const std::system_error&) {
      break;  // no more threads: this one parses the rest below
    }
  }
  parse_part(path, parts[0], true);
  parts[0].done = true;
  for (std::thread& w : workers) w.join();
  for (unsigned i = 1; i < n; ++i)
    if (!parts[i].done) parse_part(path, parts[i], false);

  // In file order: the first bad line is the sequential reader's error,
  // unless something before it needs the sequential reader.
  std::vector<u64> line_base(n);
  u64 lines = main.header_line(), tasks = 0, groups = 0, slices = 0;
  for (unsigned i = 0; i < n; ++i) {
    JsonlParser& p = parts[i].parser;
    const Trace& pt = p.result().trace;
    if (parts[i].read_failed || p.stateful()) return std::nullopt;
    if (pt.tags.size() >= kPartTagLimit || pt.buffers.names.size() >= kPartBufferLimit) return std::nullopt;
    tasks += pt.tasks.size();
    groups += pt.groups.size();
    slices += pt.slices.size();
    if (tasks >= kIndexLimit || groups >= kIndexLimit || slices >= kIndexLimit) return std::nullopt;
    line_base[i] = lines;
    if (!p.error().what.empty()) {
      u64 at = lines + p.error().line;
      if (at > 0xffffffffu) return std::nullopt;
      return Result<ReadTrace>(Error{fmt::format("{}:{}: {}", path, at, p.error().what)});
    }
    lines += p.lines_read();
    if (lines > 0xffffffffu) return std::nullopt;
  }

  Trace& t = main.result().trace;
  for (unsigned i = 0; i < n; ++i) {
    if (!merge_part(main, parts[i].parser, line_base[i])) return std::nullopt;
    if (i == 0) {  // a no-op unless the first part's estimate fell short
      t.tasks.reserve(tasks);
      t.groups.reserve(groups);
      t.slices.reserve(slices);
    }
  }
  return main.finish();
}

}  // namespace cc
