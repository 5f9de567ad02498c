#include "registry/version_priority.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace apiserver::registry {
namespace {

enum class Stability { Alpha = 0, Beta = 1, Ga = 2 };

struct KubeVersion {
  long long major = 0;
  Stability stability = Stability::Ga;
  long long minor = 0;
};

// A run of digits as a number; nullopt when empty, not all digits or out of range.
std::optional<long long> number(std::string_view digits) {
  long long value = 0;
  if (digits.empty()) {
    return std::nullopt;
  }
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

// v<digits>, or v<digits>alpha<digits>, or v<digits>beta<digits>.
std::optional<KubeVersion> parse(std::string_view text) {
  if (text.size() < 2 || text[0] != 'v') {
    return std::nullopt;
  }
  text.remove_prefix(1);
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  KubeVersion v;
  auto major = number(text.substr(0, digits));
  if (!major) {
    return std::nullopt;
  }
  v.major = *major;
  std::string_view rest = text.substr(digits);
  if (rest.empty()) {
    return v;
  }
  for (auto [word, stability] : {std::pair{std::string_view("alpha"), Stability::Alpha},
                                 std::pair{std::string_view("beta"), Stability::Beta}}) {
    if (rest.substr(0, word.size()) == word) {
      auto minor = number(rest.substr(word.size()));
      if (!minor) {
        return std::nullopt;
      }
      v.stability = stability;
      v.minor = *minor;
      return v;
    }
  }
  return std::nullopt;
}

int order(long long a, long long b) {
  return a > b ? 1 : (a < b ? -1 : 0);
}

}  // namespace

int compare_version_priority(const std::string& a, const std::string& b) {
  if (a == b) {
    return 0;
  }
  auto va = parse(a);
  auto vb = parse(b);
  if (!va && !vb) {
    const int c = b.compare(a);
    return c > 0 ? 1 : (c < 0 ? -1 : 0);  // alphabetical: the smaller one first
  }
  if (!va || !vb) {
    return va ? 1 : -1;
  }
  if (va->stability != vb->stability) {
    return static_cast<int>(va->stability) - static_cast<int>(vb->stability);
  }
  if (va->major != vb->major) {
    return order(va->major, vb->major);
  }
  return order(va->minor, vb->minor);
}

void sort_by_version_priority(std::vector<std::string>& versions) {
  std::stable_sort(versions.begin(), versions.end(),
                   [](const std::string& a, const std::string& b) {
                     return compare_version_priority(a, b) > 0;
                   });
}

}  // namespace apiserver::registry
