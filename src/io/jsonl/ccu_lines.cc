#include "io/jsonl/ccu_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "model/ccu_word.h"
#include "io/trace_json.h"

namespace cc {

using simdjson::dom::element;

namespace {

// The fields of one CCU line, read through a field table built from the
// keys a line kind requires and those it may have.
struct Fields {
  static constexpr std::size_t kMax = 8;
  std::array<std::string_view, kMax> keys{};
  std::array<JsonField, kMax> values{};
  std::size_t n = 0;

  Status read(element e, FieldOwner owner, std::initializer_list<std::string_view> required,
              std::initializer_list<std::string_view> optional = {}) {
    std::array<FieldRule, kMax> table{};
    for (auto k : required) table[n] = {k, &values[n], kRequired}, keys[n++] = k;
    for (auto k : optional) table[n] = {k, &values[n]}, keys[n++] = k;
    return read_fields(e, std::span<const FieldRule>(table.data(), n), owner);
  }
  JsonField& operator[](std::string_view k) {
    for (std::size_t i = 0; i < n; ++i)
      if (keys[i] == k) return values[i];
    std::abort();  // a key the line kind never listed: a bug here, not bad input
  }
  bool has(std::string_view k) { return (*this)[k].is_valid(); }
  Status u64_of(std::string_view k, u64& out) { return get_u64((*this)[k], k, out); }
  Status bounded(std::string_view k, u64 max, u64& out) {
    CC_TRY(get_u64((*this)[k], k, out));
    if (out > max) return Error{fmt::format("\"{}\" {} is larger than {}", k, out, max)};
    return {};
  }
};

Status rank_of(Fields& fl, const Trace& t, std::string_view key, u32& out) {
  u64 r = 0;
  CC_TRY(fl.u64_of(key, r));
  if (r >= t.op.ranks) return Error{fmt::format("\"{}\" {} is outside the operator's ranks 0..{}", key, r, t.op.ranks - 1)};
  out = static_cast<u32>(r);
  return {};
}

Status image_line(element e, Trace& t, CcuLineState& st, u32 line) {
  Fields fl;
  CC_TRY(fl.read(e, {"CCU image line"}, {"rank", "die", "start", "words"}, {"size"}));
  u32 rank = 0;
  u64 die = 0, start = 0, size = 0;
  CC_TRY(rank_of(fl, t, "rank", rank));
  CC_TRY(fl.bounded("die", 255, die));
  CC_TRY(fl.bounded("start", kCcuMaxWords, start));
  simdjson::dom::array words;
  if (fl["words"].get_array().get(words)) return Error{"\"words\" must be an array of 64-digit hex strings"};
  if (start + words.size() > kCcuMaxWords)
    return Error{fmt::format("words [{}, {}) reach past instruction id {}", start, start + words.size(), kCcuMaxWords)};
  auto key = std::make_pair(rank, static_cast<u32>(die));
  auto [it, added] = st.image_of.emplace(key, static_cast<u32>(t.ccu.images.size()));
  if (added) {
    CcuImage img;
    img.rank = rank;
    img.die = static_cast<u32>(die);
    t.ccu.images.push_back(std::move(img));
    st.block_lines.emplace_back();
  }
  CcuImage& img = t.ccu.images[it->second];
  if (fl.has("size")) {
    CC_TRY(fl.bounded("size", kCcuMaxWords, size));
    auto prev = st.image_size_line.find(key);
    if (prev != st.image_size_line.end() && img.size != size)
      return Error{fmt::format("\"size\" {} differs from {} given on line {}", size, img.size, prev->second)};
    st.image_size_line[key] = line;
    img.size = static_cast<u32>(size);
  }
  CcuWordBlock blk;
  blk.start = static_cast<u32>(start);
  blk.bytes.reserve(words.size() * kCcuWordBytes);
  for (element w : words) {
    std::string_view hex;
    ccu::Word word;
    if (w.get_string().get(hex) || !ccu::parse_word_hex(hex, word))
      return Error{fmt::format("word {} of \"words\" must be a string of 64 hex digits (byte 0 first)",
                         blk.bytes.size() / kCcuWordBytes)};
    blk.bytes.insert(blk.bytes.end(), word.b.begin(), word.b.end());
  }
  st.words += words.size();
  img.blocks.push_back(std::move(blk));
  st.block_lines[it->second].push_back(line);
  return {};
}

Status channel_line(element e, Trace& t, CcuLineState& st, u32 line) {
  Fields fl;
  CC_TRY(fl.read(e, {"CCU channel line"}, {"rank", "die", "channelId", "dstRank", "dstDie"}));
  CcuChannel c;
  u64 die = 0, ch = 0, pd = 0;
  CC_TRY(rank_of(fl, t, "rank", c.rank));
  CC_TRY(rank_of(fl, t, "dstRank", c.peer_rank));
  CC_TRY(fl.bounded("die", 255, die));
  CC_TRY(fl.bounded("dstDie", 255, pd));
  CC_TRY(fl.bounded("channelId", 0xffffffffu, ch));
  c.die = static_cast<u32>(die);
  c.peer_die = static_cast<u32>(pd);
  c.channel = static_cast<u32>(ch);
  auto [it, added] = st.channel_line.emplace(std::make_tuple(c.rank, c.die, c.channel), line);
  if (!added)
    return Error{fmt::format("channel {} of rank {} die {} is already given on line {}", c.channel, c.rank, c.die,
                       it->second)};
  t.ccu.channels.push_back(c);
  return {};
}

Status address_line(element e, Trace& t, CcuLineState& st, u32 line) {
  Fields fl;
  CC_TRY(fl.read(e, {"CCU address line"}, {"rank", "type", "addr"}));
  CcuAddress a;
  CC_TRY(rank_of(fl, t, "rank", a.rank));
  std::string_view buf;
  CC_TRY(get_string(fl["type"], "type", buf));
  if (!valid_buffer_name(buf)) return Error{fmt::format("buffer type \"{}\" must match [A-Z][A-Z0-9_]*", buf)};
  a.buf = t.buffers.intern(buf);
  if (a.buf == kNoBuf) return Error{"too many buffer types"};
  if (a.buf != kInput && a.buf != kOutput && t.buffer_size(a.rank, a.buf) == BufferSizes::kUndeclared)
    return Error{fmt::format("buffer {} of rank {} has an address but no size (declare it in \"buffers\")", buf, a.rank)};
  CC_TRY(fl.u64_of("addr", a.addr));
  auto [it, added] = st.address_line.emplace(std::make_pair(a.rank, a.buf), line);
  if (!added) return Error{fmt::format("the address of rank {} {} is already given on line {}", a.rank, buf, it->second)};
  t.ccu.addresses.push_back(a);
  return {};
}

Status die_base_line(element e, Trace& t, CcuLineState& st, u32 line) {
  Fields fl;
  CC_TRY(fl.read(e, {"CCU dieBase line"}, {"rank", "die", "base"}));
  CcuDieBase b;
  u64 die = 0;
  CC_TRY(rank_of(fl, t, "rank", b.rank));
  CC_TRY(fl.bounded("die", 255, die));
  CC_TRY(fl.u64_of("base", b.base));
  b.die = static_cast<u32>(die);
  auto [it, added] = st.die_base_line.emplace(std::make_pair(b.rank, b.die), line);
  if (!added) return Error{fmt::format("the base of rank {} die {} is already given on line {}", b.rank, b.die, it->second)};
  t.ccu.die_bases.push_back(b);
  return {};
}

}  // namespace

Status parse_ccu_header(element e, Trace& t) {
  if (!e.is_object()) return Error{"\"ccu\" must be an object"};
  JsonField isa;
  CC_TRY(read_fields(e, {{"isa", &isa}}, {"\"ccu\""}));
  if (!isa.is_valid()) return {};
  std::string_view s;
  CC_TRY(get_string(isa, "isa", s));
  if (s == "A5") t.ccu.isa = CcuIsa::A5;
  else if (s == "A6") t.ccu.isa = CcuIsa::A6;
  else return Error{fmt::format("unknown CCU instruction set \"{}\" (A5, A6)", s)};
  return {};
}

Status parse_ccu_line(element e, Trace& t, CcuLineState& st, u32 line) {
  std::string_view kind;
  element v;
  if (as_object(e)["ccu"].get(v)) return Error{"a CCU line needs \"ccu\""};
  CC_TRY(get_string(v, "ccu", kind));
  if (kind == "image") return image_line(e, t, st, line);
  if (kind == "channel") return channel_line(e, t, st, line);
  if (kind == "address") return address_line(e, t, st, line);
  if (kind == "dieBase") return die_base_line(e, t, st, line);
  return Error{fmt::format("unknown CCU line \"{}\" (image, channel, address, dieBase)", kind)};
}

Status parse_ccu_task(element e, Trace& t, Task& task) {
  Fields fl;
  CC_TRY(fl.read(e, {"CCU_GRAPH"}, {"dieId", "missionId", "instStartId", "instCnt"}, {"args", "argSize", "timeout", "key"}));
  CcuSqe q;
  u64 v = 0;
  CC_TRY(fl.bounded("dieId", 255, v));
  q.die = static_cast<u8>(v);
  CC_TRY(fl.bounded("missionId", 255, v));
  q.mission = static_cast<u8>(v);
  CC_TRY(fl.bounded("instStartId", 0xffff, v));
  q.inst_start = static_cast<u16>(v);
  CC_TRY(fl.bounded("instCnt", 0xffff, v));
  q.inst_count = static_cast<u16>(v);
  if (fl.has("timeout")) {
    CC_TRY(fl.bounded("timeout", 0xffff, v));
    q.timeout = static_cast<u16>(v);
  }
  if (fl.has("key")) {
    CC_TRY(fl.bounded("key", 0xffffffffu, v));
    q.key = static_cast<u32>(v);
  }
  u32 n = 0;
  if (fl.has("args")) {
    simdjson::dom::array a;
    if (fl["args"].get_array().get(a)) return Error{"\"args\" must be an array of unsigned integers"};
    if (a.size() > kCcuSqeArgs) return Error{fmt::format("\"args\" has {} entries; an SQE holds {}", a.size(), kCcuSqeArgs)};
    for (element x : a)
      CC_TRY(get_u64(x, "args", q.args[n++]));
  }
  q.arg_size = n;
  if (fl.has("argSize")) {
    // Larger than 13 is kept: the expansion reports it (101).
    CC_TRY(fl.bounded("argSize", 0xffffffffu, v));
    q.arg_size = static_cast<u32>(v);
  }
  if (t.ccu.sqes.size() >= 0xfffffffeu) return Error{"too many CCU_GRAPH tasks"};
  task.set_notify(static_cast<u32>(t.ccu.sqes.size()));
  task.link = Link::CCU;
  t.ccu.sqes.push_back(q);
  return {};
}

Status finish_ccu_lines(Trace& t, CcuLineState& st, u32& error_line) {
  for (u32 i = 0; i < t.ccu.images.size(); ++i) {
    CcuImage& img = t.ccu.images[i];
    std::vector<u32> order(img.blocks.size());
    for (u32 b = 0; b < order.size(); ++b) order[b] = b;
    std::sort(order.begin(), order.end(),
              [&](u32 a, u32 b) { return img.blocks[a].start < img.blocks[b].start; });
    std::vector<CcuWordBlock> sorted;
    u32 end = 0;
    for (u32 b : order) {
      CcuWordBlock& blk = img.blocks[b];
      u32 words = static_cast<u32>(blk.bytes.size() / kCcuWordBytes);
      if (!sorted.empty() && blk.start < end) {
        error_line = st.block_lines[i][b];
        return Error{fmt::format("words [{}, {}) of rank {} die {} overlap words given on another line", blk.start,
                           blk.start + words, img.rank, img.die)};
      }
      end = blk.start + words;
      if (words) sorted.push_back(std::move(blk));
    }
    img.blocks = std::move(sorted);
    auto sz = st.image_size_line.find({img.rank, img.die});
    if (sz == st.image_size_line.end()) {
      img.size = end;
    } else if (img.size < end) {
      error_line = sz->second;
      return Error{fmt::format("\"size\" {} of rank {} die {} is smaller than its words (up to id {})", img.size,
                         img.rank, img.die, end)};
    }
  }
  std::sort(t.ccu.images.begin(), t.ccu.images.end(),
            [](const CcuImage& a, const CcuImage& b) { return std::tie(a.rank, a.die) < std::tie(b.rank, b.die); });
  return {};
}

}  // namespace cc
