// After stages 4 and 5: a missing or wrong piece of the result (406, 407)
// on bytes that a reported race (302) touched may well be that race's
// doing; the user should fix the race first and look again.
#pragma once

#include "check/sink.h"
#include "model/trace.h"

namespace cc {

// Marks each kept 406/407 whose bytes meet the bytes a kept 302 touched (its
// overlap, and what its two tasks write) as a consequence of the first such
// race, which becomes a cause; adds a line saying so to the 406/407. Counts
// the new causes and consequences in `sink`. A finding already in a cascade
// keeps its place.
void link_results_to_races(const Trace& t, FindingSink& sink);

}  // namespace cc
