// A line diff of two texts, for the console's "what changed" view of two versions of an object
// (their YAML, see yaml_text.h). Myers' algorithm finds a shortest edit script; the lines come
// back grouped into hunks with a few lines of context, like a unified diff.
//
// Cost is bounded: common leading and trailing lines are set aside first, and when more than
// `max_edits` lines differ the search stops and the differing middle is reported as removed then
// added (approximate = true) instead of stalling the frame. Time O((N+M)·D) and memory O(D²) for
// D = min(edit distance, max_edits).
//
// Example (context 1): "a\nb\nc\nd\n" -> "a\nB\nc\nd\n" gives one hunk: same "a", removed "b",
// added "B", same "c".
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace console::model {

enum class LineTag { Same, Added, Removed };

struct DiffLine {
  LineTag tag = LineTag::Same;
  std::string text;     // without the newline
  size_t old_line = 0;  // 1-based line in the old text; 0 for Added lines
  size_t new_line = 0;  // 1-based line in the new text; 0 for Removed lines
};

struct DiffHunk {
  // As in a unified diff header "@@ -old_start,old_count +new_start,new_count @@": the first line
  // of the hunk on each side, or the line before it when that side has no lines in the hunk.
  size_t old_start = 0;
  size_t old_count = 0;
  size_t new_start = 0;
  size_t new_count = 0;
  std::vector<DiffLine> lines;
};

struct DiffOptions {
  // Unchanged lines kept around each change; hunks closer than twice this merge. SIZE_MAX gives
  // one hunk holding both texts whole (when they differ).
  size_t context = 3;
  size_t max_edits = 1000;
};

struct TextDiff {
  std::vector<DiffHunk> hunks;  // empty when the texts are equal
  size_t added = 0;
  size_t removed = 0;
  bool approximate = false;  // max_edits was reached; the script is correct but not minimal
};

// Lines are split at '\n'; a final newline does not start another line.
TextDiff diff_lines(std::string_view before, std::string_view after,
                    const DiffOptions& options = {});

// Diffs the YAML renderings (managedFields folded) of two versions of an object.
TextDiff diff_objects(const nlohmann::json& before, const nlohmann::json& after,
                      const DiffOptions& options = {});

}  // namespace console::model
