// bench_check: times `collcheck check` on generated traces of growing size.
//
//   bench_check [--collcheck PATH] [--workload W] [--ranks 8,32,...] [--runs 5]
//               [--dir DIR] [--gen-args "..."]   ({n/K} in gen-args: ranks / K)
//               [--check-args "..."]              (e.g. --ccu-loop-merge)
//               [--as stlog]  (check the trace converted to an HCCL ST log)
//               [--as hcclvm-db] [--db-writer PATH]  (check the schedule as an
//                             HCCL VM database, written by bench_hcclvm_db)
//
// For every rank count it writes the trace (W = synthetic-ring,
// ccu-allreduce — the CCU AllReduce of the tests, 1 MiB per rank staged in
// 256 loop iterations — or any algorithm of `collcheck gen`), runs `collcheck check -q --json` RUNS times
// as a child process, and prints the median of each stage's time (from the
// JSON report), tasks per second of the whole check, the peak resident
// memory of the child (wait4's ru_maxrss), and the exponent of a log-log
// least-squares fit of total time against tasks. Before the timed runs the
// written input is flushed to disk (sync) and checked once untimed: the
// kernel's write-back of a 2 GB database ran under the first timed runs and
// made them up to half as slow again as the same check a minute later.
#include <simdjson.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "export/jsonl.h"
#include "ccu_allreduce.h"
#include "synthetic_ring.h"

namespace {

struct Run {
  double wall_ms = 0;
  long peak_kb = 0;
  std::map<std::string, double> stage_ms;
  unsigned long long tasks = 0;
  int status = -1;
};

// Runs argv as a child; returns its exit status, wall time and peak RSS.
Run spawn(const std::vector<std::string>& args) {
  Run r;
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.peak_kb = ru.ru_maxrss;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool read_report(const std::string& path, Run& r) {
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  if (p.load(path).get(doc)) return false;
  simdjson::dom::element input = doc["inputs"].at(0);
  simdjson::dom::element stats = input["stats"];
  r.tasks = uint64_t(stats["tasks"]);
  r.stage_ms["read"] = double(stats["readMs"]);
  for (auto [k, v] : simdjson::dom::object(stats["stages"])) r.stage_ms[std::string(k)] = double(v);
  r.stage_ms["check"] = double(stats["ms"]);
  return true;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<unsigned> parse_list(const std::string& s) {
  std::vector<unsigned> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) out.push_back(static_cast<unsigned>(std::stoul(x)));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string collcheck = "build/collcheck", workload = "synthetic-ring", dir = "/tmp", gen_args, check_args, as = "jsonl";
  std::string db_writer = "build/bench/bench_hcclvm_db";
  std::vector<unsigned> ranks = {8, 32, 128, 256, 512, 1024};
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--collcheck") collcheck = v;
    else if (k == "--workload") workload = v;
    else if (k == "--ranks") ranks = parse_list(v);
    else if (k == "--runs") runs = std::stoi(v);
    else if (k == "--dir") dir = v;
    else if (k == "--gen-args") gen_args = v;
    else if (k == "--check-args") check_args = v;
    else if (k == "--as") as = v;
    else if (k == "--db-writer") db_writer = v;
    else {
      std::fprintf(stderr, "bench_check: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  bool ccu = workload == "ccu-allreduce";
  std::vector<const char*> stages = {"read", "graph", "single", "sync", "mem", "semantic"};
  if (ccu) stages.insert(stages.begin() + 1, "ccu");
  std::printf("workload %s%s%s%s%s, %d runs per size, medians\n\n", workload.c_str(), as == "jsonl" ? "" : " as ",
              as == "jsonl" ? "" : as.c_str(), check_args.empty() ? "" : ", check ", check_args.c_str(), runs);
  std::printf("| ranks | tasks |");
  for (const char* s : stages) std::printf(" %s ms |", s);
  std::printf(" total ms | tasks/s | peak RSS MB |\n|---:|---:|");
  for (std::size_t i = 0; i < stages.size(); ++i) std::printf("---:|");
  std::printf("---:|---:|---:|\n");
  std::vector<double> xs, ys;
  for (unsigned n : ranks) {
    std::string trace = dir + "/bench-" + workload + "-" + std::to_string(n) + ".jsonl";
    if (as == "hcclvm-db") {
      // The database and the same schedule as a trace, from the gen
      // algorithm `workload` (count 65536 FP32, --fold-ccl); the operator
      // from --gen-args' --op-type.
      std::string stem = dir + "/bench-db-" + workload + "-" + std::to_string(n), op;
      std::stringstream ss(gen_args);
      for (std::string a, prev; ss >> a; prev = a)
        if (prev == "--op-type") op = a;
      std::vector<std::string> w = {db_writer, workload, std::to_string(n), stem};
      if (!op.empty()) w.push_back(op);
      Run wr = spawn(w);
      if (wr.status != 0) {
        std::fprintf(stderr, "bench_check: %s %s %u failed\n", db_writer.c_str(), workload.c_str(), n);
        return 2;
      }
      trace = stem + ".db";
    } else if (workload == "synthetic-ring") {
      cc::Trace t = cc::bench::synthetic_ring_allreduce(n, 64);
      cc::Status st = cc::write_jsonl_file(t, trace);
      if (!st) {
        std::fprintf(stderr, "bench_check: %s\n", st.message().c_str());
        return 2;
      }
    } else if (ccu) {
      std::ofstream out(trace);
      out << cc::test::ccu_allreduce(n, cc::test::AllReduceMutant::None, 0x100000, 0x1000).text();
      if (!out) {
        std::fprintf(stderr, "bench_check: cannot write %s\n", trace.c_str());
        return 2;
      }
    } else {
      std::vector<std::string> g = {collcheck, "gen", workload, "--ranks", std::to_string(n), "-o", trace};
      std::stringstream ss(gen_args);
      for (std::string a; ss >> a;) {
        // "{n/K}": the rank count divided by K (e.g. servers of K ranks).
        if (a.size() > 4 && a.rfind("{n/", 0) == 0 && a.back() == '}')
          a = std::to_string(n / std::stoul(a.substr(3, a.size() - 4)));
        g.push_back(a);
      }
      Run gr = spawn(g);
      if (gr.status != 0) {
        std::fprintf(stderr, "bench_check: collcheck gen %s failed\n", workload.c_str());
        return 2;
      }
    }
    if (as == "stlog") {
      std::string log = trace.substr(0, trace.size() - 6) + ".log";
      Run cr = spawn({collcheck, "convert", trace, "--to", "stlog", "-o", log});
      if (cr.status != 0) {
        std::fprintf(stderr, "bench_check: collcheck convert --to stlog failed on %s\n", trace.c_str());
        return 2;
      }
      trace = log;
    }
    std::map<std::string, std::vector<double>> ms;
    std::vector<double> wall, peak;
    unsigned long long tasks = 0;
    ::sync();
    for (int r = -1; r < runs; ++r) {  // run -1: the untimed warm-up
      std::string report = trace + ".report.json";
      std::vector<std::string> cmd = {collcheck, "check", "-q", "-j1", "--json", report};
      std::stringstream extra(check_args);
      for (std::string a; extra >> a;) cmd.push_back(a);
      cmd.push_back(trace);
      Run run = spawn(cmd);
      if (run.status != 0 && run.status != 1) {
        std::fprintf(stderr, "bench_check: collcheck check exited %d on %s\n", run.status, trace.c_str());
        return 2;
      }
      if (!read_report(report, run)) {
        std::fprintf(stderr, "bench_check: cannot read %s\n", report.c_str());
        return 2;
      }
      if (r < 0) continue;
      tasks = run.tasks;
      for (auto& [k, v] : run.stage_ms) ms[k].push_back(v);
      wall.push_back(run.wall_ms);
      peak.push_back(static_cast<double>(run.peak_kb));
    }
    double total = median(wall);
    std::printf("| %u | %llu |", n, tasks);
    for (const char* s : stages) std::printf(" %.1f |", ms.count(s) ? median(ms[s]) : 0.0);
    std::printf(" %.1f | %.3g | %.0f |\n", total, tasks / (total / 1000.0), median(peak) / 1024.0);
    std::fflush(stdout);
    xs.push_back(std::log(static_cast<double>(tasks)));
    ys.push_back(std::log(total));
  }
  // Least-squares slope of log(time) against log(tasks) over points [from, end).
  auto slope = [&](std::size_t from) {
    std::size_t k = xs.size() - from;
    double mx = 0, my = 0;
    for (std::size_t i = from; i < xs.size(); ++i) mx += xs[i], my += ys[i];
    mx /= k, my /= k;
    double num = 0, den = 0;
    for (std::size_t i = from; i < xs.size(); ++i)
      num += (xs[i] - mx) * (ys[i] - my), den += (xs[i] - mx) * (xs[i] - mx);
    return num / den;
  };
  if (xs.size() >= 2) std::printf("\nlog-log growth exponent of total time vs tasks, all sizes: %.3f\n", slope(0));
  if (xs.size() >= 4)
    std::printf("log-log growth exponent over the %zu largest sizes: %.3f\n", xs.size() - xs.size() / 2,
                slope(xs.size() / 2));
  return 0;
}
