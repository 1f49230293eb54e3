// "Did you mean …?": the known word closest to a mistyped one, for messages
// about an unknown code, subcommand or option.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace cc {

// Edit distance: insertions, deletions, substitutions and swaps of two
// adjacent letters each count one; ASCII letters compared without case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be what was
// meant: at most a third of the longer word's letters differ (at least one
// may). Ties go to the earlier candidate.
std::optional<std::string_view> closest_word(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace cc
