// `mutate` streams its mutants: the same mutants in the same order at any
// thread count, files written as they come (before the run ends, with
// bounded memory), a progress line that fits the terminal and is erased on
// Ctrl-C, and a run that would fill the disk refused after its first file.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cli/disk_room.h"
#include "gen/registry.h"
#include "mutate/mutant_stream.h"
#include "pipeline/progress_line.h"
#include "test_util.h"

extern char** environ;

namespace cc::test::mutate_stream_test {
namespace {

using mutate::FaultKind;

Trace ring(u32 ranks) {
  gen::GenParams p;
  p.ranks = ranks;
  p.count = 256;
  return *gen::generate("ring", p, true);
}

std::vector<FaultKind> every_kind() {
  std::vector<FaultKind> kinds;
  for (const mutate::FaultInfo& f : mutate::fault_kinds()) kinds.push_back(f.kind);
  return kinds;
}

std::string summary(const mutate::Mutant& m) {
  return fmt::format("{} #{} {} | {}", mutate::fault_info(m.kind).name, m.site_index, m.trace.name, m.label.text);
}

TEST(MutantStream, SameMutantsInTheSameOrderAtAnyThreadCount) {
  Trace t = ring(3);
  std::vector<mutate::MutantJob> jobs = mutate::plan_mutants(t, every_kind(), 9, 3);
  ASSERT_GT(jobs.size(), 20u);
  std::vector<std::string> one_by_one;
  for (const mutate::MutantJob& j : jobs) {
    Result<mutate::Mutant> m = mutate::make_mutant(t, j);
    ASSERT_TRUE(m.ok()) << m.error().message;
    one_by_one.push_back(summary(*m));
  }
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    std::vector<std::string> streamed;
    Status st = mutate::stream_mutants(t, jobs, threads, [&](mutate::Mutant&& m) {
      streamed.push_back(summary(m));
      return Status{};
    });
    EXPECT_EQ(message_of(st), "");
    EXPECT_EQ(streamed, one_by_one) << threads << " threads";
  }
  // make_mutants, the collecting form, gives the same mutants of one kind.
  Result<std::vector<mutate::Mutant>> drop = mutate::make_mutants(t, FaultKind::DropWait, 9, 3);
  ASSERT_TRUE(drop.ok());
  ASSERT_EQ(drop->size(), 3u);
  EXPECT_EQ(summary(drop->front()), one_by_one.front());
}

TEST(MutantStream, StopsAtTheFirstErrorOfTheSink) {
  Trace t = ring(3);
  std::vector<mutate::MutantJob> jobs = mutate::plan_mutants(t, {FaultKind::DropWait}, 1, 0);
  ASSERT_GT(jobs.size(), 10u);
  for (unsigned threads : {1u, 4u}) {
    std::size_t seen = 0;
    Status st = mutate::stream_mutants(t, jobs, threads, [&](mutate::Mutant&&) {
      return ++seen == 3 ? Status(Error{"disk full"}) : Status{};
    });
    EXPECT_EQ(message_of(st), "disk full");
    EXPECT_EQ(seen, 3u) << "nothing is handed on after an error";
  }
  EXPECT_EQ(message_of(mutate::stream_mutants(t, {}, 2, [](mutate::Mutant&&) { return Status{}; })), "");
}

TEST(ProgressLine, TextFitsTheTerminal) {
  EXPECT_EQ(fit_progress_text("collcheck: 3/4 inputs", 80), "collcheck: 3/4 inputs");
  EXPECT_EQ(fit_progress_text("0123456789", 11), "0123456789");  // the last cell stays free
  EXPECT_EQ(fit_progress_text("0123456789", 10), "012345...");
  EXPECT_EQ(fit_progress_text("0123456789", 4), "012");
  EXPECT_EQ(fit_progress_text("0123456789", 1), "0");
  EXPECT_EQ(fit_progress_text("0123456789", 0), "0");
  EXPECT_EQ(progress_duration(59.4), "0:59");
  EXPECT_EQ(progress_duration(61), "1:01");
  EXPECT_EQ(progress_duration(3 * 3600 + 62), "3:01:02");
  EXPECT_EQ(progress_duration(-5), "0:00");
}

std::size_t mutant_files(const std::string& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".jsonl") ++n;
  return n;
}

// Every piece of a progress stream between carriage returns, without the
// erase-to-end-of-line sequence: what the terminal shows on the line.
std::vector<std::string> drawn_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while ((at = err.find('\r', at)) != std::string::npos) {
    std::size_t end = err.find_first_of("\r\n", at + 1);
    std::string piece = err.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    if (std::size_t k = piece.find("\033[K"); k != std::string::npos) piece.erase(k, 3);
    lines.push_back(piece);
    at += 1;
  }
  return lines;
}

// A trace of more than 10^5 tasks, --count 0: 128 mutants, each a whole
// trace of 15 MB. Files appear while the run goes on, memory stays far
// below the 1.3 GB that holding every mutant would take (--max-memory
// would end the run with status 2), and Ctrl-C then ends it as the signal
// does, with the progress line erased.
TEST(MutateCli, CountZeroOnALargeTraceStreamsAndStopsCleanlyOnCtrlC) {
  std::string in = temp_path("stream_ring.jsonl");
  std::string dir = temp_path("stream_mutants");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(run_collcheck("gen ring --ranks 128 -o " + in).status, 0);
  std::string err = temp_path("stream_err.txt");
  std::string command = fmt::format(
      "exec env COLUMNS=46 {} mutate {} --kind drop-final-copy --count 0 --progress --threads 2 --max-memory 1G -o {} >/dev/null 2>{}",
      COLLCHECK_BINARY, in, dir, err);
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  // SIGINT at its default and unblocked in the child, whatever this process
  // inherited: a shell that starts the tests in the background (`&`, no job
  // control) ignores SIGINT in them, and the child would inherit that and
  // run to its end (collcheck keeps an ignored SIGINT ignored, as nohup asks).
  posix_spawnattr_t attr;
  ASSERT_EQ(posix_spawnattr_init(&attr), 0);
  sigset_t none, interrupt;
  sigemptyset(&none);
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &interrupt);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, "/bin/sh", nullptr, &attr, const_cast<char**>(argv), environ);
  posix_spawnattr_destroy(&attr);
  ASSERT_EQ(spawned, 0);
  auto start = std::chrono::steady_clock::now();
  while (mutant_files(dir) < 3 && std::chrono::steady_clock::now() - start < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::size_t written = mutant_files(dir);
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_GE(written, 3u) << "no mutant written while the run went on";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status;
  std::string shown = slurp(err);
  std::vector<std::string> lines = drawn_lines(shown);
  ASSERT_GE(lines.size(), 2u) << shown;
  EXPECT_NE(lines.front().find("collcheck mutate: "), std::string::npos) << lines.front();
  EXPECT_EQ(lines.back(), "") << "the last thing on the line is its erasure";
  for (const std::string& l : lines) EXPECT_LE(l.size(), 45u) << l;
  // A mutant under its own name is whole: it reads and fails as labelled.
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".jsonl") continue;
    RunResult c = run_collcheck("check -q " + e.path().string());
    EXPECT_EQ(c.status, 1) << e.path() << c.err;
    EXPECT_NE(c.out.find("FAIL"), std::string::npos) << c.out;
    break;
  }
}

TEST(DiskRoom, RefusesFilesThatCannotFit) {
  EXPECT_EQ(message_of(room_for_files(100, 10, 1000, "out", "mutants")), "");
  EXPECT_EQ(message_of(room_for_files(100, 0, 0, "out", "mutants")), "");
  EXPECT_EQ(message_of(room_for_files(15'400'000, 65'279, 76'000'000'000ull, "mut", "mutants")),
            "65279 more mutants of about 14.7 MiB each need about 936.3 GiB in mut, which has 70.8 GiB free; "
            "choose fewer with --count N, or another --output");
  std::string wraps = message_of(room_for_files(~u64{0} / 2, 3, ~u64{0}, "d", "mutants"));
  EXPECT_NE(wraps.find("need more than 16 EiB"), std::string::npos) << wraps;
}

TEST(MutateCli, HonoursMaxMemory) {
  std::string in = temp_path("stream_small.jsonl");
  std::string dir = temp_path("stream_small_mutants");
  ASSERT_EQ(run_collcheck("gen ring --ranks 4 -o " + in).status, 0);
  RunResult limited = run_collcheck(fmt::format("mutate {} --kind drop-wait --count 0 --max-memory 1M -o {}", in, dir));
  EXPECT_EQ(limited.status, 2);
  EXPECT_NE(limited.err.find("passed --max-memory 1M"), std::string::npos) << limited.err;
  RunResult bad = run_collcheck("mutate " + in + " --kind drop-wait --max-memory 12X");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--max-memory 12X"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace cc::test::mutate_stream_test
