#include "io/jsonl/ccu_lines.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/ccu_word.h"
#include "io/trace_json.h"

namespace cc {

using simdjson::dom::element;

namespace {

// Reads the listed keys of an object; every one is required unless in `optional`.
struct Fields {
  std::map<std::string_view, JsonField> f;
  std::string read(element e, std::initializer_list<std::string_view> keys,
                   std::initializer_list<std::string_view> optional = {}) {
    for (auto k : keys) f[k] = JsonField{};
    for (auto k : optional) f[k] = JsonField{};
    for (auto [k, v] : as_object(e)) {
      auto it = f.find(k);
      if (it != f.end()) it->second = v;
    }
    for (auto k : keys)
      if (!f[k].is_valid()) return fmt::format("lacks \"{}\"", k);
    return {};
  }
  bool has(std::string_view k) { return f[k].is_valid(); }
  std::string u64_of(std::string_view k, u64& out) { return get_u64(f[k], k, out); }
  std::string bounded(std::string_view k, u64 max, u64& out) {
    std::string err = get_u64(f[k], k, out);
    if (err.empty() && out > max) err = fmt::format("\"{}\" {} is larger than {}", k, out, max);
    return err;
  }
};

std::string rank_of(Fields& fl, const Trace& t, std::string_view key, u32& out) {
  u64 r = 0;
  std::string err = fl.u64_of(key, r);
  if (!err.empty()) return err;
  if (r >= t.op.ranks) return fmt::format("\"{}\" {} is outside the operator's ranks 0..{}", key, r, t.op.ranks - 1);
  out = static_cast<u32>(r);
  return {};
}

std::string image_line(element e, Trace& t, CcuLineState& st, u32 line) {
  Fields fl;
  std::string err = fl.read(e, {"rank", "die", "start", "words"}, {"size"});
  if (!err.empty()) return "CCU image line " + err;
  u32 rank = 0;
  u64 die = 0, start = 0, size = 0;
  if (!(err = rank_of(fl, t, "rank", rank)).empty()) return err;
  if (!(err = fl.bounded("die", 255, die)).empty()) return err;
  if (!(err = fl.bounded("start", kCcuMaxWords, start)).empty()) return err;
  simdjson::dom::array words;
  if (fl.f["words"].get_array().get(words)) return "\"words\" must be an array of 64-digit hex strings";
  if (start + words.size() > kCcuMaxWords)
    return fmt::format("words [{}, {}) reach past instruction id {}", start, start + words.size(), kCcuMaxWords);
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
    if (!(err = fl.bounded("size", kCcuMaxWords, size)).empty()) return err;
    auto prev = st.image_size_line.find(key);
    if (prev != st.image_size_line.end() && img.size != size)
      return fmt::format("\"size\" {} differs from {} given on line {}", size, img.size, prev->second);
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
      return fmt::format("word {} of \"words\" must be a string of 64 hex digits (byte 0 first)",
                         blk.bytes.size() / kCcuWordBytes);
    blk.bytes.insert(blk.bytes.end(), word.b.begin(), word.b.end());
  }
  st.words += words.size();
  img.blocks.push_back(std::move(blk));
  st.block_lines[it->second].push_back(line);
  return {};
}

std::string channel_line(element e, Trace& t, CcuLineState& st, u32 line) {
  Fields fl;
  std::string err = fl.read(e, {"rank", "die", "channelId", "dstRank", "dstDie"});
  if (!err.empty()) return "CCU channel line " + err;
  CcuChannel c;
  u64 die = 0, ch = 0, pd = 0;
  if (!(err = rank_of(fl, t, "rank", c.rank)).empty()) return err;
  if (!(err = rank_of(fl, t, "dstRank", c.peer_rank)).empty()) return err;
  if (!(err = fl.bounded("die", 255, die)).empty()) return err;
  if (!(err = fl.bounded("dstDie", 255, pd)).empty()) return err;
  if (!(err = fl.bounded("channelId", 0xffffffffu, ch)).empty()) return err;
  c.die = static_cast<u32>(die);
  c.peer_die = static_cast<u32>(pd);
  c.channel = static_cast<u32>(ch);
  auto [it, added] = st.channel_line.emplace(std::make_tuple(c.rank, c.die, c.channel), line);
  if (!added)
    return fmt::format("channel {} of rank {} die {} is already given on line {}", c.channel, c.rank, c.die,
                       it->second);
  t.ccu.channels.push_back(c);
  return {};
}

std::string address_line(element e, Trace& t, CcuLineState& st, u32 line) {
  Fields fl;
  std::string err = fl.read(e, {"rank", "type", "addr"});
  if (!err.empty()) return "CCU address line " + err;
  CcuAddress a;
  if (!(err = rank_of(fl, t, "rank", a.rank)).empty()) return err;
  std::string_view buf;
  if (!(err = get_string(fl.f["type"], "type", buf)).empty()) return err;
  if (!valid_buffer_name(buf)) return fmt::format("buffer type \"{}\" must match [A-Z][A-Z0-9_]*", buf);
  a.buf = t.buffers.intern(buf);
  if (a.buf == kNoBuf) return "too many buffer types";
  if (a.buf != kInput && a.buf != kOutput && t.buffer_size(a.rank, a.buf) == BufferSizes::kUndeclared)
    return fmt::format("buffer {} of rank {} has an address but no size (declare it in \"buffers\")", buf, a.rank);
  if (!(err = fl.u64_of("addr", a.addr)).empty()) return err;
  auto [it, added] = st.address_line.emplace(std::make_pair(a.rank, a.buf), line);
  if (!added) return fmt::format("the address of rank {} {} is already given on line {}", a.rank, buf, it->second);
  t.ccu.addresses.push_back(a);
  return {};
}

std::string die_base_line(element e, Trace& t, CcuLineState& st, u32 line) {
  Fields fl;
  std::string err = fl.read(e, {"rank", "die", "base"});
  if (!err.empty()) return "CCU dieBase line " + err;
  CcuDieBase b;
  u64 die = 0;
  if (!(err = rank_of(fl, t, "rank", b.rank)).empty()) return err;
  if (!(err = fl.bounded("die", 255, die)).empty()) return err;
  if (!(err = fl.u64_of("base", b.base)).empty()) return err;
  b.die = static_cast<u32>(die);
  auto [it, added] = st.die_base_line.emplace(std::make_pair(b.rank, b.die), line);
  if (!added) return fmt::format("the base of rank {} die {} is already given on line {}", b.rank, b.die, it->second);
  t.ccu.die_bases.push_back(b);
  return {};
}

}  // namespace

std::string parse_ccu_header(element e, Trace& t) {
  if (!e.is_object()) return "\"ccu\" must be an object";
  for (auto [k, v] : as_object(e)) {
    if (k != "isa") continue;
    std::string_view s;
    std::string err = get_string(v, "isa", s);
    if (!err.empty()) return err;
    if (s == "A5") t.ccu.isa = CcuIsa::A5;
    else if (s == "A6") t.ccu.isa = CcuIsa::A6;
    else return fmt::format("unknown CCU instruction set \"{}\" (A5, A6)", s);
  }
  return {};
}

std::string parse_ccu_line(element e, Trace& t, CcuLineState& st, u32 line) {
  std::string_view kind;
  element v;
  if (as_object(e)["ccu"].get(v)) return "a CCU line needs \"ccu\"";
  std::string err = get_string(v, "ccu", kind);
  if (!err.empty()) return err;
  if (kind == "image") return image_line(e, t, st, line);
  if (kind == "channel") return channel_line(e, t, st, line);
  if (kind == "address") return address_line(e, t, st, line);
  if (kind == "dieBase") return die_base_line(e, t, st, line);
  return fmt::format("unknown CCU line \"{}\" (image, channel, address, dieBase)", kind);
}

std::string parse_ccu_task(element e, Trace& t, Task& task) {
  Fields fl;
  std::string err =
      fl.read(e, {"dieId", "missionId", "instStartId", "instCnt"}, {"args", "argSize", "timeout", "key"});
  if (!err.empty()) return "CCU_GRAPH " + err;
  CcuSqe q;
  u64 v = 0;
  if (!(err = fl.bounded("dieId", 255, v)).empty()) return err;
  q.die = static_cast<u8>(v);
  if (!(err = fl.bounded("missionId", 255, v)).empty()) return err;
  q.mission = static_cast<u8>(v);
  if (!(err = fl.bounded("instStartId", 0xffff, v)).empty()) return err;
  q.inst_start = static_cast<u16>(v);
  if (!(err = fl.bounded("instCnt", 0xffff, v)).empty()) return err;
  q.inst_count = static_cast<u16>(v);
  if (fl.has("timeout")) {
    if (!(err = fl.bounded("timeout", 0xffff, v)).empty()) return err;
    q.timeout = static_cast<u16>(v);
  }
  if (fl.has("key")) {
    if (!(err = fl.bounded("key", 0xffffffffu, v)).empty()) return err;
    q.key = static_cast<u32>(v);
  }
  u32 n = 0;
  if (fl.has("args")) {
    simdjson::dom::array a;
    if (fl.f["args"].get_array().get(a)) return "\"args\" must be an array of unsigned integers";
    if (a.size() > kCcuSqeArgs) return fmt::format("\"args\" has {} entries; an SQE holds {}", a.size(), kCcuSqeArgs);
    for (element x : a)
      if (!(err = get_u64(x, "args", q.args[n++])).empty()) return err;
  }
  q.arg_size = n;
  if (fl.has("argSize")) {
    // Larger than 13 is kept: the expansion reports it (101).
    if (!(err = fl.bounded("argSize", 0xffffffffu, v)).empty()) return err;
    q.arg_size = static_cast<u32>(v);
  }
  if (t.ccu.sqes.size() >= 0xfffffffeu) return "too many CCU_GRAPH tasks";
  task.notify = static_cast<u32>(t.ccu.sqes.size());
  task.link = Link::CCU;
  t.ccu.sqes.push_back(q);
  return {};
}

std::string finish_ccu_lines(Trace& t, CcuLineState& st, u32& error_line) {
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
        return fmt::format("words [{}, {}) of rank {} die {} overlap words given on another line", blk.start,
                           blk.start + words, img.rank, img.die);
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
      return fmt::format("\"size\" {} of rank {} die {} is smaller than its words (up to id {})", img.size,
                         img.rank, img.die, end);
    }
  }
  std::sort(t.ccu.images.begin(), t.ccu.images.end(),
            [](const CcuImage& a, const CcuImage& b) { return std::tie(a.rank, a.die) < std::tie(b.rank, b.die); });
  return {};
}

}  // namespace cc
