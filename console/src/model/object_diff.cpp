#include "console/model/object_diff.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "console/model/yaml_text.h"

namespace console::model {

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Myers' greedy forward search over the diagonals k = x - y. Round d records, for each diagonal
// it reaches, the furthest x reachable with d edits; those rows (k from -d to d, kept at offset
// d² in `trace`) let the walk back from (n, m) recover the script. Appends the script turning `a`
// into `b` and returns true, or returns false once more than `max_edits` edits would be needed.
bool shortest_script(const uint32_t* a, int n, const uint32_t* b, int m, size_t max_edits,
                     std::vector<LineTag>& script) {
  const int max_d = static_cast<int>(std::min<size_t>(static_cast<size_t>(n + m), max_edits));
  const int offset = max_d + 1;
  std::vector<int> v(static_cast<size_t>(2 * max_d + 3), 0);
  std::vector<int> trace;
  for (int d = 0; d <= max_d; ++d) {
    for (int k = -d; k <= d; k += 2) {
      const bool down = k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]);
      int x = down ? v[offset + k + 1] : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) {
        ++x;
        ++y;
      }
      v[offset + k] = x;
      if (x < n || y < m) {
        continue;
      }
      std::vector<LineTag> reversed;
      for (int round = d; round > 0; --round) {
        const int* previous = &trace[static_cast<size_t>((round - 1) * (round - 1))];
        auto furthest = [&](int diagonal) { return previous[diagonal + round - 1]; };
        const int diagonal = x - y;
        const bool was_down =
            diagonal == -round ||
            (diagonal != round && furthest(diagonal - 1) < furthest(diagonal + 1));
        const int from_diagonal = was_down ? diagonal + 1 : diagonal - 1;
        const int from_x = furthest(from_diagonal);
        const int from_y = from_x - from_diagonal;
        while (x > from_x && y > from_y) {
          reversed.push_back(LineTag::Same);
          --x;
          --y;
        }
        reversed.push_back(was_down ? LineTag::Added : LineTag::Removed);
        x = from_x;
        y = from_y;
      }
      reversed.insert(reversed.end(), static_cast<size_t>(x), LineTag::Same);
      script.insert(script.end(), reversed.rbegin(), reversed.rend());
      return true;
    }
    trace.insert(trace.end(), v.begin() + offset - d, v.begin() + offset + d + 1);
  }
  return false;
}

bool within(size_t gap, size_t context) {
  return gap <= context || gap - context <= context;
}

}  // namespace

TextDiff diff_lines(std::string_view before, std::string_view after, const DiffOptions& options) {
  const std::vector<std::string_view> old_lines = split_lines(before);
  const std::vector<std::string_view> new_lines = split_lines(after);

  // Lines as small integers, so the search compares numbers.
  std::unordered_map<std::string_view, uint32_t> ids;
  auto intern = [&](const std::vector<std::string_view>& lines) {
    std::vector<uint32_t> out;
    out.reserve(lines.size());
    for (const std::string_view line : lines) {
      out.push_back(ids.emplace(line, static_cast<uint32_t>(ids.size())).first->second);
    }
    return out;
  };
  const std::vector<uint32_t> a = intern(old_lines);
  const std::vector<uint32_t> b = intern(new_lines);

  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) {
    ++prefix;
  }
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }

  TextDiff diff;
  std::vector<LineTag> script(prefix, LineTag::Same);
  const int n = static_cast<int>(a.size() - prefix - suffix);
  const int m = static_cast<int>(b.size() - prefix - suffix);
  if (!shortest_script(a.data() + prefix, n, b.data() + prefix, m, options.max_edits, script)) {
    diff.approximate = true;
    script.insert(script.end(), static_cast<size_t>(n), LineTag::Removed);
    script.insert(script.end(), static_cast<size_t>(m), LineTag::Added);
  }
  script.insert(script.end(), suffix, LineTag::Same);

  // Line numbers before each script position.
  std::vector<size_t> old_before(script.size() + 1, 0);
  std::vector<size_t> new_before(script.size() + 1, 0);
  for (size_t i = 0; i < script.size(); ++i) {
    old_before[i + 1] = old_before[i] + (script[i] != LineTag::Added ? 1 : 0);
    new_before[i + 1] = new_before[i] + (script[i] != LineTag::Removed ? 1 : 0);
    diff.added += script[i] == LineTag::Added ? 1 : 0;
    diff.removed += script[i] == LineTag::Removed ? 1 : 0;
  }

  const size_t total = script.size();
  const size_t context = options.context;
  size_t next_free = 0;  // the end of the previous hunk
  while (true) {
    size_t change = next_free;
    while (change < total && script[change] == LineTag::Same) {
      ++change;
    }
    if (change == total) {
      break;
    }
    const size_t start = std::max(next_free, change >= context ? change - context : 0);
    size_t end = change;  // one past the last changed line taken into this hunk
    while (true) {
      while (end < total && script[end] != LineTag::Same) {
        ++end;
      }
      size_t next_change = end;
      while (next_change < total && script[next_change] == LineTag::Same) {
        ++next_change;
      }
      if (next_change == total || !within(next_change - end, context)) {
        break;
      }
      end = next_change;
    }
    const size_t stop = total - end > context ? end + context : total;

    DiffHunk hunk;
    hunk.old_count = old_before[stop] - old_before[start];
    hunk.new_count = new_before[stop] - new_before[start];
    hunk.old_start = old_before[start] + (hunk.old_count > 0 ? 1 : 0);
    hunk.new_start = new_before[start] + (hunk.new_count > 0 ? 1 : 0);
    hunk.lines.reserve(stop - start);
    for (size_t i = start; i < stop; ++i) {
      DiffLine line;
      line.tag = script[i];
      if (script[i] != LineTag::Added) {
        line.old_line = old_before[i] + 1;
        line.text = std::string(old_lines[old_before[i]]);
      }
      if (script[i] != LineTag::Removed) {
        line.new_line = new_before[i] + 1;
        line.text = std::string(new_lines[new_before[i]]);
      }
      hunk.lines.push_back(std::move(line));
    }
    diff.hunks.push_back(std::move(hunk));
    next_free = stop;
  }
  return diff;
}

TextDiff diff_objects(const nlohmann::json& before, const nlohmann::json& after,
                      const DiffOptions& options) {
  return diff_lines(to_yaml(before), to_yaml(after), options);
}

}  // namespace console::model
