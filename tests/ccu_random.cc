#include "ccu_random.h"

namespace cc::test {

using namespace a5;

namespace {

constexpr u64 kIn = 0x1000'0000, kOut = 0x2000'0000, kCcl = 0x3000'0000, kRankStride = 0x100'0000;

struct Gen {
  std::mt19937_64& rng;
  const RandomCcuShape& sh;
  std::vector<Word> bodies;   // loop bodies, at ids 0..
  std::vector<Word> mission;  // appended after the bodies
  std::vector<std::pair<u16, u16>> pending;  // (cke, mask) set but not yet waited for
  u16 next_cke = 1;

  u32 pick(u32 n) { return static_cast<u32>(rng() % n); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
  bool slip() { return chance(sh.slip); }
  // The mission starts at a fixed id behind room for every body.
  static constexpr u32 kMissionStart = 128;
  u32 mission_id() const { return static_cast<u32>(kMissionStart + mission.size()); }
  u16 cke() {
    u16 c = next_cke;
    next_cke = static_cast<u16>(next_cke % 7 + 1);  // ids 1..7 at the top level
    return c;
  }
  Cke set(u16 id, u16 mask) { return chance(sh.slip / 2) ? Cke{} : Cke{.set_id = id, .set_mask = mask}; }
  void wait_now(u16 id, u16 mask) { mission.push_back(clear_cke(id, mask, 0, 0, !slip())); }
  void done(u16 id, u16 mask) {
    if (chance(0.7)) wait_now(id, mask);
    else pending.emplace_back(id, mask);
  }

  // G4 <- G[src] + offset, G5 <- G[dst] + offset (X6, X7 hold the offsets).
  void addresses() {
    mission.push_back(load_imm_xn(6, 16 * pick(16)));
    mission.push_back(load_gsa_xn(4, chance(0.5) ? 1 : 3, 6));
    mission.push_back(load_imm_xn(7, 16 * pick(16) + (slip() ? 0x300 : 0)));
    mission.push_back(load_gsa_xn(5, chance(0.5) ? 2 : 3, 7));
  }

  void copy_item() {
    addresses();
    u16 c = cke();
    mission.push_back(loc_mem_to_loc_mem(5, 4, 1, set(c, 1)));
    done(c, 1);
  }

  void ms_item() {
    addresses();
    u16 c1 = cke(), c2 = cke();
    u16 ms = static_cast<u16>(0x8000 + pick(4));
    mission.push_back(loc_mem_to_loc_ms(ms, 4, 1, set(c1, 1)));
    if (chance(0.5)) {
      u16 ms2 = static_cast<u16>(0x8000 + (ms + 1 - 0x8000) % 4);
      mission.push_back(loc_mem_to_loc_ms(ms2, 5, 1, set(c1, 2)));
      mission.push_back(ms_reduce(static_cast<u16>(0x1800 + pick(3)), {ms, ms2}, 1, 0,
                                  Cke{.wait_id = c1, .wait_mask = 3, .set_id = c2, .set_mask = 1}));
      wait_now(c2, 1);
      c1 = cke();
      mission.push_back(loc_ms_to_loc_mem(5, ms, 1, set(c1, 1)));
      done(c1, 1);
      return;
    }
    mission.push_back(loc_ms_to_loc_mem(5, ms, 1, Cke{.wait_id = c1, .wait_mask = 1, .set_id = c2, .set_mask = 1}));
    done(c2, 1);
  }

  // A loop body at the next free body id; CKE ids from `c`, MS ids from `ms`.
  std::pair<u16, u16> body(u16 c, u16 ms) {
    u16 start = static_cast<u16>(bodies.size());
    auto s = [&](u16 id, u16 mask) { return chance(sh.slip / 2) ? Cke{} : Cke{.set_id = id, .set_mask = mask}; };
    switch (pick(3)) {
      case 0:
        bodies.push_back(loc_mem_to_loc_ms(ms, 4, 1, s(c, 1)));
        bodies.push_back(loc_ms_to_loc_mem(5, ms, 1, Cke{.wait_id = c, .wait_mask = 1, .set_id = static_cast<u16>(c + 1), .set_mask = 1}));
        break;
      case 1:
        bodies.push_back(loc_mem_to_loc_ms(ms, 4, 1, s(c, 1)));
        bodies.push_back(loc_mem_to_loc_ms(static_cast<u16>(ms + 1), 5, 1, s(c, 2)));
        bodies.push_back(ms_reduce(0x1800, {ms, static_cast<u16>(ms + 1)}, 1, 0,
                                   Cke{.wait_id = c, .wait_mask = 3, .set_id = static_cast<u16>(c + 2), .set_mask = 1}));
        bodies.push_back(loc_ms_to_loc_mem(5, ms, 1, Cke{.wait_id = static_cast<u16>(c + 2), .wait_mask = 1, .set_id = static_cast<u16>(c + 1), .set_mask = 1}));
        break;
      default:
        bodies.push_back(loc_mem_to_loc_ms(ms, 4, 1, s(c, 1)));
        bodies.push_back(loc_ms_to_loc_ms(static_cast<u16>(ms + 1), ms, 1, Cke{.wait_id = c, .wait_mask = 1, .set_id = static_cast<u16>(c + 2), .set_mask = 1}));
        bodies.push_back(loc_ms_to_loc_mem(5, static_cast<u16>(ms + 1), 1, Cke{.wait_id = static_cast<u16>(c + 2), .wait_mask = 1, .set_id = static_cast<u16>(c + 1), .set_mask = 1}));
        break;
    }
    if (!slip()) bodies.push_back(clear_cke(static_cast<u16>(c + 1), 1));
    return {start, static_cast<u16>(bodies.size() - 1)};
  }

  void loop_item() {
    addresses();
    u32 loops = 1 + pick(2);
    u32 expand_offset = pick(loops + 1), expand_cnt = pick(3);
    u64 cke_off = slip() ? 0 : 4 + pick(2), ms_off = slip() ? 0 : 2 + pick(2);
    u64 addr_off = 64 * pick(4);
    mission.push_back(load_imm_xn(10, (u64{loops} << 41) | (u64{expand_offset} << 48) | (u64{expand_cnt} << 55)));
    mission.push_back(load_imm_xn(11, cke_off | (ms_off << 10) | (addr_off << 21)));
    std::vector<Word> loop_words;
    for (u32 i = 0; i < loops; ++i) {
      u64 iters = chance(0.1) ? 0 : 1 + pick(3), stride = 16 * pick(5);
      mission.push_back(load_imm_xn(static_cast<u16>(12 + i), iters | (stride << 13)));
      auto [bs, be] = body(static_cast<u16>(16 + 16 * i), static_cast<u16>(0x8010 + 8 * i));
      loop_words.push_back(loop(bs, be, static_cast<u16>(12 + i)));
    }
    u32 group = mission_id();
    mission.push_back(loop_group(static_cast<u16>(group + 3), 10, 11));
    mission.push_back(load_imm_xn(0, group + 3 + loops));
    mission.push_back(jmp(0, 0, 1));
    mission.insert(mission.end(), loop_words.begin(), loop_words.end());
    mission.push_back(load_imm_xn(0, 0));
  }
};

}  // namespace

CcuProgram random_ccu_program(std::mt19937_64& rng, const RandomCcuShape& sh) {
  Gen g{rng, sh, {}, {}, {}, 1};
  u32 ranks = 1 + g.pick(sh.max_ranks);
  CcuProgram p;
  p.op = "{\"type\":\"AllReduce\",\"ranks\":" + std::to_string(ranks) +
         ",\"dataType\":\"FP32\",\"count\":256,\"reduceOp\":\"SUM\"}";
  p.buffers = R"("buffers":{"CCL":4096})";
  g.mission = {load_sqe_gsa(1, 0), load_sqe_gsa(2, 1), load_sqe_gsa(3, 2), load_sqe_xn(1, 3)};
  u32 items = 1 + g.pick(sh.max_items);
  for (u32 i = 0; i < items; ++i) {
    switch (g.pick(4)) {
      case 0: g.copy_item(); break;
      case 1: g.ms_item(); break;
      case 2: {
        u16 c = g.cke();
        g.mission.push_back(set_cke(c, 1));
        g.done(c, 1);
        break;
      }
      default:
        if (g.bodies.size() + 10 <= Gen::kMissionStart) g.loop_item();
        break;
    }
  }
  for (auto [id, mask] : g.pending)
    if (!g.slip()) g.wait_now(id, mask);
  std::vector<Word> image = g.bodies;
  image.resize(Gen::kMissionStart, clear_cke(0, 0));
  image.insert(image.end(), g.mission.begin(), g.mission.end());
  u32 count = static_cast<u32>(g.mission.size());
  for (u32 r = 0; r < ranks; ++r) {
    p.address(r, "INPUT", kIn + r * kRankStride);
    p.address(r, "OUTPUT", kOut + r * kRankStride);
    p.address(r, "CCL", kCcl + r * kRankStride);
    p.image(r, 0, 0, image);
    u64 len = g.chance(sh.slip / 4) ? 0 : 16 * (1 + g.pick(2));
    p.sqe(r, 0, 0, 0, Gen::kMissionStart, count, {kIn + r * kRankStride, kOut + r * kRankStride, kCcl + r * kRankStride, len});
  }
  return p;
}

}  // namespace cc::test
