// The collcheck binary allocates with jemalloc and asks it for transparent
// huge pages (src/cli/main.cc; docs/DESIGN.md, "Dependencies"). jemalloc
// says which settings it applied when MALLOC_CONF asks it to confirm them:
// if the binary's own setting were not linked in (a definition the linker
// dropped, or a misspelt option), this test shows it.
#include <gtest/gtest.h>

#include "test_util.h"

namespace cc::test {
namespace {

TEST(Allocator, TheBinaryAsksJemallocForHugePages) {
  RunResult version = run_collcheck("--version");
  ASSERT_EQ(version.status, 0);
  if (version.out.find("jemalloc") == std::string::npos)
    GTEST_SKIP() << "built without jemalloc (COLLCHECK_JEMALLOC=OFF or the sanitizers): " << version.out;
  // The variable must come before the binary, which run_collcheck puts first.
  std::string cmd = std::string("MALLOC_CONF=confirm_conf:true ") + COLLCHECK_BINARY + " --version 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  EXPECT_NE(out.find("Set conf value: thp:always"), std::string::npos) << out;
  EXPECT_NE(out.find("collcheck "), std::string::npos) << out;
}

}  // namespace
}  // namespace cc::test
