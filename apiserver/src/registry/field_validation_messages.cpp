// How field problems reach the client (read upstream, release-1.32 line): the apiserver
// handlers' transformDecodeError (`%s in version %q cannot be handled as a %s: %v`) for Strict;
// for Warn one warning per problem, YAML's error split into one per line, with the warning
// recorder's dedupe, validity check and truncation (4096 / 256 runes) and net.NewWarningHeader's
// quoting.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "registry/field_validation.h"
#include "registry/go_text.h"

namespace apiserver::registry {
namespace {

constexpr std::size_t kWarningTotalRunes = 4 * 1024;  // apiserver warning recorder
constexpr std::size_t kWarningItemRunes = 256;

bool is_yaml_problem(const std::string& problem) {
  static const std::string kSuffix = " already set in map";
  return problem.rfind("line ", 0) == 0 && problem.size() > kSuffix.size() &&
         problem.compare(problem.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

// ---------------------------------------------------------------------------------------------
// Warning headers

// net.NewWarningHeader refuses text that is not UTF-8 or holds control characters
// (unicode.IsControl: C0, DEL and C1).
bool valid_warning_text(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t width = 1;
    const char32_t r = decode_rune(s, i, width);
    if ((r == 0xFFFD && width == 1) || r < 0x20 || (r >= 0x7F && r <= 0x9F)) {
      return false;
    }
    i += width;
  }
  return true;
}

std::string warning_header(const std::string& text) {
  std::string out = "299 - \"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

std::string strict_error_message(const std::string& kind, const std::string& version,
                                 const std::vector<std::string>& problems) {
  std::vector<std::string> items;
  std::size_t yaml_item = SIZE_MAX;
  for (const auto& problem : problems) {
    if (!is_yaml_problem(problem)) {
      items.push_back(problem);
    } else if (yaml_item == SIZE_MAX) {
      yaml_item = items.size();
      items.push_back("yaml: unmarshal errors:\n  " + problem);
    } else {
      items[yaml_item] += "\n  " + problem;
    }
  }
  std::string message = kind + " in version " + go_quote(version) + " cannot be handled as a " +
                        kind + ": strict decoding error: ";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) {
      message += ", ";
    }
    message += items[i];
  }
  return message;
}

std::vector<std::string> warning_headers(const std::vector<std::string>& problems) {
  std::vector<std::string> headers;
  std::vector<std::string> ordered;
  std::unordered_set<std::string> recorded;
  std::size_t written = 0;
  bool truncating = false;
  for (const auto& problem : problems) {
    if (problem.empty() || (truncating && written >= kWarningTotalRunes)) {
      continue;
    }
    if (!recorded.insert(problem).second) {
      continue;
    }
    ordered.push_back(problem);
    std::string text = problem;
    std::size_t runes = rune_count(text);
    if (truncating && runes > kWarningItemRunes) {
      text = first_runes(text, kWarningItemRunes);
      runes = kWarningItemRunes;
    }
    if (!valid_warning_text(text)) {
      continue;
    }
    if (written + runes <= kWarningTotalRunes || truncating) {
      written += runes;
      headers.push_back(warning_header(text));
      continue;
    }
    // Over the limit: start again with every recorded text cut to kWarningItemRunes.
    truncating = true;
    written = 0;
    headers.clear();
    for (const auto& earlier : ordered) {
      std::string cut = earlier;
      std::size_t cut_runes = rune_count(cut);
      if (cut_runes > kWarningItemRunes) {
        cut = first_runes(cut, kWarningItemRunes);
        cut_runes = kWarningItemRunes;
      }
      if (valid_warning_text(cut)) {
        written += cut_runes;
        headers.push_back(warning_header(cut));
      }
    }
  }
  return headers;
}

}  // namespace apiserver::registry
