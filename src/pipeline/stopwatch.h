// Milliseconds since a point on the steady clock: the stage and load times
// the pipeline records (--time, the JSON report's timings).
#pragma once

#include <chrono>

namespace cc {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace cc
