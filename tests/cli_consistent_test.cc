// One consistent command line: every error "collcheck: error: ..." with exit
// status 2, the same input options and "-" on every subcommand, unusable
// inputs and unwritable reports as errors of the run.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace cc::test::cli_consistent {
namespace {

std::string example() { return source_dir() + "/examples/allgather2.jsonl"; }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

TEST(CliConsistent, ParserErrorsAreCollcheckErrorsWithSuggestions) {
  struct Case {
    std::string args, line;
  } cases[] = {
      {"chek x", "collcheck: error: unknown subcommand 'chek' (did you mean 'check'?)"},
      {"check --jsn r.json " + example(), "collcheck: error: unknown option --jsn (did you mean --json?)"},
      {"stats --formt jsonl " + example(), "collcheck: error: unknown option --formt (did you mean --format?)"},
      {"check --max-erors=3 " + example(), "collcheck: error: unknown option --max-erors (did you mean --max-errors?)"},
      {"--verison", "collcheck: error: unknown option --verison (did you mean --version?)"},
      {"frobnicate", "collcheck: error: unknown subcommand 'frobnicate'"},
      {"check --zzzzzz " + example(), "collcheck: error: unknown option --zzzzzz"},
      {"check", "collcheck: error: check: INPUT is required"},
      {"stats a b", "collcheck: error: stats: unexpected argument b"},
  };
  for (const Case& c : cases) {
    RunResult r = run_collcheck(c.args);
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_EQ(first_line(r.err), c.line) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
  RunResult none = run_collcheck("");
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.err.rfind("collcheck: error: a subcommand is required: check, stats, dot, ", 0), 0u) << none.err;
}

TEST(CliConsistent, NumericOptionsSayWhatToWrite) {
  std::string fail = source_dir() + "/tests/cases/graph/102_cycle.jsonl";
  // 0 = no limit: both 102 findings shown, none hidden.
  RunResult all = run_collcheck("check -v --max-errors 0 " + fail);
  EXPECT_EQ(all.status, 1) << all.err;
  std::size_t blocks = 0;
  for (std::size_t p = 0; (p = all.out.find("[ErrorCode: 102]", p)) != std::string::npos; ++p) ++blocks;
  EXPECT_EQ(blocks, 2u) << all.out;
  EXPECT_EQ(all.out.find("findings not shown"), std::string::npos) << all.out;
  RunResult one = run_collcheck("check -v --max-errors 1 " + fail);
  EXPECT_NE(one.out.find("(1 more 102 findings not shown: --max-errors 1)"), std::string::npos) << one.out;
  struct Case {
    std::string args, line;
  } cases[] = {
      {"check --max-errors -1 ", "collcheck: error: check: --max-errors: -1 is not a whole number from 0 to 4294967295"},
      {"check --max-errors 1e999 ", "collcheck: error: check: --max-errors: 1e999 is not a whole number from 0 to 4294967295"},
      {"check -j x ", "collcheck: error: check: -j: x is not a whole number from 0 to 4096"},
      {"check --ccu-max-steps 0 ",
       "collcheck: error: check: --ccu-max-steps: 0 is not a whole number from 1 to 18446744073709551615"},
      {"dot --radius -2 ", "collcheck: error: dot: --radius: -2 is not a whole number from 0 to 4294967295"},
  };
  for (const Case& c : cases) {
    RunResult r = run_collcheck(c.args + example());
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_EQ(first_line(r.err), c.line) << c.args << "\n" << r.err;
  }
  RunResult gen = run_collcheck("gen ring --ranks abc");
  EXPECT_EQ(gen.status, 2);
  EXPECT_EQ(first_line(gen.err), "collcheck: error: gen: --ranks: abc is not a whole number from 0 to 4294967295")
      << gen.err;
  RunResult seed = run_collcheck("mutate --kind all --seed -3 " + example());
  EXPECT_EQ(seed.status, 2);
  EXPECT_EQ(first_line(seed.err),
            "collcheck: error: mutate: --seed: -3 is not a whole number from 0 to 18446744073709551615")
      << seed.err;
  // -j 0: as many threads as cores.
  EXPECT_EQ(run_collcheck("check -q -j 0 " + example()).status, 0);
}

TEST(CliConsistent, StandardInputPlainGzipAndZstd) {
  RunResult plain = run_collcheck("check - < " + example());
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out.rfind("collcheck: -: PASS (0 errors; 0 warnings) ranks=2 tasks=12", 0), 0u) << plain.out;
  std::string gzip = find_program("gzip");
  if (!gzip.empty()) {
    std::string packed = temp_path("stdin-example.jsonl.gz");
    ASSERT_EQ(run_shell(fmt::format("{} -c {} > {}", gzip, example(), packed)), 0);
    RunResult r = run_collcheck("check - < " + packed);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("collcheck: -: PASS"), std::string::npos) << r.out;
    RunResult stats = run_collcheck("stats - < " + packed);
    EXPECT_EQ(stats.status, 0) << stats.err;
    EXPECT_NE(stats.out.find("TRANS_MEM        4"), std::string::npos) << stats.out;
  }
  std::string zstd = find_program("zstd");
  if (!zstd.empty()) {
    std::string packed = temp_path("stdin-example.jsonl.zst");
    ASSERT_EQ(run_shell(fmt::format("{} -q -f -c {} > {}", zstd, example(), packed)), 0);
    RunResult r = run_collcheck("check - < " + packed);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("collcheck: -: PASS"), std::string::npos) << r.out;
  }
  // Detection by content on a pipe: an ST log read from standard input.
  std::string log = source_dir() + "/tests/cases/stlog/op_file.log";
  RunResult st = run_collcheck(fmt::format("check --op {}/tests/cases/stlog/op_file.params.json - < {}", source_dir(), log));
  RunResult named = run_collcheck(fmt::format("check --op {}/tests/cases/stlog/op_file.params.json {}", source_dir(), log));
  EXPECT_EQ(st.status, named.status) << st.out << st.err;
  EXPECT_NE(st.out.find("collcheck: -#"), std::string::npos) << st.out << st.err;
  // A message about standard input names it "-".
  RunResult bad = run_collcheck("check - < " + source_dir() + "/tests/cases/malformed/garbage.jsonl");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.rfind("collcheck: error: -:", 0), 0u) << bad.err;
}

TEST(CliConsistent, ToolsTakeTheInputOptionsOfCheck) {
  std::string common = "--op x --case '*' --format jsonl --keep-stream-ids --recorded-peers --msccl-root 0 ";
  RunResult s = run_collcheck("stats " + common + example());
  EXPECT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("TRANS_MEM        4"), std::string::npos) << s.out;
  RunResult d = run_collcheck("dot " + common + example());
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.out.rfind("digraph collcheck {", 0), 0u);
  std::string dir = temp_path("consistent-mutants");
  std::filesystem::remove_all(dir);
  RunResult m = run_collcheck(fmt::format("mutate {} --kind all -o {} {}", common, dir, example()));
  EXPECT_EQ(m.status, 0) << m.err;
  EXPECT_FALSE(std::filesystem::is_empty(dir));
  // The options are used, not only accepted: a wrong --format is refused.
  for (const char* sub : {"stats", "dot", "mutate --kind all"}) {
    RunResult r = run_collcheck(fmt::format("{} --format stlog {}", sub, example()));
    EXPECT_EQ(r.status, 2) << sub << r.out;
    EXPECT_EQ(r.err.rfind("collcheck: error: ", 0), 0u) << sub << r.err;
  }
}

TEST(CliConsistent, ConvertCreatesTheOutputDirectory) {
  std::string dir = temp_path("convert-new-dir");
  std::filesystem::remove_all(dir);
  std::string out = dir + "/sub/x.jsonl";
  RunResult r = run_collcheck(fmt::format("convert {} -o {}", example(), out));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(run_collcheck("check -q " + out).status, 0);
  // The README's example, from the top of a fresh clone: cases/ does not exist.
  std::string clone = temp_path("convert-fresh-clone");
  std::filesystem::remove_all(clone);
  std::filesystem::create_directories(clone);
  RunResult readme = run_collcheck(
      fmt::format("convert {}/tests/cases/stlog/suite.log -o {}/cases/suite.jsonl", source_dir(), clone));
  EXPECT_EQ(readme.status, 0) << readme.err;
  EXPECT_FALSE(std::filesystem::is_empty(clone + "/cases"));
  // A directory that cannot be made is still an error.
  std::string file = temp_path("convert-plain-file");
  write(file, "x");
  RunResult bad = run_collcheck(fmt::format("convert {} -o {}/sub/x.jsonl", example(), file));
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.rfind(fmt::format("collcheck: error: cannot write {}/sub/x.jsonl: ", file), 0), 0u) << bad.err;
}

TEST(CliConsistent, MissingInputGoesToTheReportAndTheOthersAreChecked) {
  std::string json = temp_path("consistent-missing.json");
  std::string missing = temp_path("no-such-input.jsonl");
  std::filesystem::remove(json);
  std::filesystem::remove(missing);
  RunResult r = run_collcheck(fmt::format("check {} {} --json {}", example(), missing, json));
  EXPECT_EQ(r.status, 2) << "an unusable input is exit status 2";
  EXPECT_NE(r.out.find("allgather2.jsonl: PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(fmt::format("collcheck: error: {}: no such file or directory", missing)), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 operator: 1 PASS, 0 FAIL, 1 unusable"), std::string::npos) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(slurp(json)).get(doc), simdjson::SUCCESS) << slurp(json);
  simdjson::dom::array errors;
  ASSERT_EQ(doc["errors"].get_array().get(errors), simdjson::SUCCESS);
  ASSERT_EQ(errors.size(), 1u);
  std::string_view input;
  ASSERT_EQ(errors.at(0)["file"].get_string().get(input), simdjson::SUCCESS);
  EXPECT_EQ(input, missing);
  simdjson::dom::array inputs;
  ASSERT_EQ(doc["inputs"].get_array().get(inputs), simdjson::SUCCESS);
  EXPECT_EQ(inputs.size(), 1u);
  // Alone, it is the same error.
  RunResult alone = run_collcheck("check " + missing);
  EXPECT_EQ(alone.status, 2);
  EXPECT_EQ(alone.err, fmt::format("collcheck: error: {}: no such file or directory\n", missing));
}

TEST(CliConsistent, DirectoryScanSkipsFilesThatAreNoInput) {
  std::string dir = temp_path("consistent-scan");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(example(), dir + "/a.jsonl");
  // A README that quotes an ST log line would look like a log.
  write(dir + "/README.md", "# Traces\n\n```\n[rankId:0, queueId:0, index:0] Memcpy\n```\n");
  write(dir + "/notes.txt", "nothing to check here\n");
  RunResult r = run_collcheck("check " + dir);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("a.jsonl: PASS"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, fmt::format("collcheck: warning: skipped 2 files that are no input: {0}/README.md, {0}/notes.txt\n",
                               dir));
  // A file named explicitly is still read, and fails when it is no input.
  EXPECT_EQ(run_collcheck("check " + dir + "/notes.txt").status, 2);
}

TEST(CliConsistent, UnwritableReportsAreErrorsNotFindings) {
  // A path below a plain file cannot be created, even by root.
  std::string file = temp_path("consistent-plain-file");
  write(file, "x");
  for (const char* option : {"--json", "--sarif", "--junit", "--html", "--dot"}) {
    std::string path = fmt::format("{}/r.out", file);
    RunResult r = run_collcheck(fmt::format("check {} {} {}", option, path, example()));
    EXPECT_EQ(r.status, 2) << option;
    EXPECT_NE(r.out.find(": PASS"), std::string::npos) << option << r.out;
    EXPECT_EQ(r.out.find("501"), std::string::npos) << option << r.out;
    // The code of the failure (501) is named on the error line, not as a
    // finding of the operator.
    EXPECT_NE(r.err.find(fmt::format("collcheck: error: cannot write {}: Not a directory [ErrorCode: 501 DUMP_FAILED]\n",
                                     path)),
              std::string::npos)
        << option << r.err;
  }
  RunResult d = run_collcheck(fmt::format("dot -o {}/g.dot {}", file, example()));
  EXPECT_EQ(d.status, 2);
  EXPECT_EQ(d.err, fmt::format("collcheck: error: cannot write {}/g.dot: Not a directory\n", file));
  std::string json = temp_path("consistent-merge-in.json");
  ASSERT_EQ(run_collcheck(fmt::format("check -q --json {} {}", json, example())).status, 0);
  RunResult m = run_collcheck(fmt::format("merge-reports {} -o {}/m.json", json, file));
  EXPECT_EQ(m.status, 2);
  EXPECT_EQ(m.err, fmt::format("collcheck: error: cannot write {}/m.json: Not a directory\n", file));
}

TEST(CliConsistent, UnknownTaskTypeNamesItsLineAndTheNearestType) {
  std::string path = temp_path("consistent-typo-type.jsonl");
  std::string text = slurp(example());
  std::size_t at = text.find("\"TRANS_MEM\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 11, "\"TRANS_MEMM\"");
  std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  write(path, text);
  RunResult r = run_collcheck("check " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find(fmt::format("[ErrorCode: 101] Unknown task type \"TRANS_MEMM\" (did you mean TRANS_MEM?) "
                                   "at {}:{}: the record cannot become a node.",
                                   path, line)),
            std::string::npos)
      << r.out;
  // No suggestion for a name near none.
  RunResult far = run_collcheck("check " + source_dir() + "/tests/cases/graph/101_unknown_type.jsonl");
  EXPECT_NE(far.out.find("Unknown task type \"NOTIFY_PING\" at " + source_dir() +
                         "/tests/cases/graph/101_unknown_type.jsonl:8: the record"),
            std::string::npos)
      << far.out;
}

}  // namespace
}  // namespace cc::test::cli_consistent
