// Independent pieces of work run on a few threads: how the graph and the
// stages use more than one core on one operator (the readers and the batch
// of operators keep their own, longer-lived threads).
//
// It lives in model/, the room every layer reaches, because the graph, the
// stages and the pipeline all cut their work into such pieces; it holds no
// state between calls (no pool kept alive), so a layer that asks for one
// worker runs everything on the calling thread and starts none.
#pragma once

#include <functional>
#include <span>
#include <vector>

namespace cc {

using Job = std::function<void()>;

// Runs every job exactly once on `workers` threads, the calling thread
// being one of them, and returns when all are done. Jobs are taken in list
// order as threads become free, so the longest should come first. A job
// must not throw (collcheck's core reports errors as values). With one
// worker, or one job, everything runs on the calling thread in list order.
void run_jobs(unsigned workers, std::span<const Job> jobs);

// Runs fn(p) once for every part p < parts on `workers` threads, as jobs
// taken in part order.
template <class Fn>
void run_parts(unsigned workers, unsigned parts, const Fn& fn) {
  std::vector<Job> jobs;
  jobs.reserve(parts);
  for (unsigned p = 0; p < parts; ++p) jobs.emplace_back([&fn, p] { fn(p); });
  run_jobs(workers, jobs);
}

}  // namespace cc
