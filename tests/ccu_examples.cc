#include "ccu_examples.h"

namespace cc::test {

namespace a = a5;

CcuProgram spec_example1() {
  CcuProgram p;
  p.op = R"({"type":"AllReduce","ranks":2,"dataType":"FP32","count":1024,"reduceOp":"SUM"})";  // 0x1000 bytes
  p.address(0, "INPUT", 0x1000'0000);
  p.address(0, "OUTPUT", 0x2000'0000);
  p.address(1, "INPUT", 0x1100'0000);
  p.address(1, "OUTPUT", 0x2100'0000);
  p.channel(0, 0, 0, 1, 0);
  p.channel(1, 0, 0, 0, 0);
  std::vector<ccu::Word> words = {
      a::load_sqe_gsa(1, 0),
      a::load_sqe_gsa(2, 1),
      a::load_sqe_xn(1, 2),
      a::set_cke(0, 0xffff),
      a::sync_cke(8, 0, 1, 0),
      a::clear_cke(8, 1),
      a::loc_mem_to_rmt_mem(2, 1, 1, 0, {.set_id = 1, .set_mask = 1}, {}, 3, 4),
      a::clear_cke(1, 1),
      a::sync_cke(9, 0, 1, 0),
      a::clear_cke(9, 1),
  };
  p.image(0, 0, 0, words);
  p.image(1, 0, 0, words);
  p.sqe(0, 0, 0, 0, 0, 10, {0x1000'0000, 0x2100'0000, 0x100});
  p.sqe(1, 0, 0, 0, 0, 10, {0x1100'0000, 0x2000'0000, 0x100});
  return p;
}

CcuProgram spec_example2() {
  CcuProgram p;
  p.op = R"({"type":"AllReduce","ranks":1,"dataType":"FP32","count":256,"reduceOp":"SUM"})";  // 0x400 bytes
  p.address(0, "INPUT", 0x1000'0000);
  p.address(0, "OUTPUT", 0x2000'0000);
  std::vector<ccu::Word> words = {
      a::loc_mem_to_loc_ms(0x8000, 1, 1, {.set_id = 2, .set_mask = 1}, 5),
      a::loc_ms_to_loc_mem(2, 0x8000, 1, {.wait_id = 2, .wait_mask = 1, .set_id = 4, .set_mask = 1}, 6),
      a::clear_cke(4, 1),
      a::load_sqe_gsa(1, 0),
      a::load_sqe_gsa(2, 1),
      a::load_sqe_xn(1, 2),
      a::load_imm_xn(2, 0x200002),
      a::load_imm_xn(3, 0x0080'0200'0000'0000ull),
      a::load_imm_xn(4, 0x4000'0401),
      a::loop_group(12, 3, 4),
      a::load_imm_xn(0, 13),
      a::jmp(0, 0, 1),
      a::loop(0, 2, 2),
      a::load_imm_xn(0, 0),
  };
  p.image(0, 0, 0, words);
  p.sqe(0, 0, 0, 0, 3, 11, {0x1000'0000, 0x2000'0000, 0x100});
  return p;
}

}  // namespace cc::test
