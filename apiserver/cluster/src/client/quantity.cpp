#include "client/quantity.h"

#include <charconv>
#include <cmath>
#include <utility>

namespace cluster {
namespace {

constexpr std::pair<std::string_view, double> kSuffixes[] = {
    {"Ki", 1024.0},
    {"Mi", 1024.0 * 1024},
    {"Gi", 1024.0 * 1024 * 1024},
    {"Ti", 1024.0 * 1024 * 1024 * 1024},
    {"Pi", 1024.0 * 1024 * 1024 * 1024 * 1024},
    {"Ei", 1024.0 * 1024 * 1024 * 1024 * 1024 * 1024},
    {"n", 1e-9},
    {"u", 1e-6},
    {"m", 1e-3},
    {"k", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"E", 1e18},
};

}  // namespace

std::optional<double> parse_quantity(std::string_view text) {
  if (text.empty() || text.size() > 64) {
    return std::nullopt;
  }
  double scale = 1;
  for (const auto& [suffix, factor] : kSuffixes) {
    if (text.size() > suffix.size() && text.ends_with(suffix)) {
      text.remove_suffix(suffix.size());
      scale = factor;
      break;
    }
  }
  if (scale == 1) {
    // A decimal exponent: 1e3, 5E-2.
    if (size_t e = text.find_first_of("eE"); e != std::string_view::npos && e > 0) {
      int exponent = 0;
      auto [end, ec] = std::from_chars(text.data() + e + 1, text.data() + text.size(), exponent);
      if (ec != std::errc() || end != text.data() + text.size() || exponent < -30 ||
          exponent > 30) {
        return std::nullopt;
      }
      scale = std::pow(10.0, exponent);
      text = text.substr(0, e);
    }
  }
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
  }
  double value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    return std::nullopt;
  }
  return value * scale;
}

}  // namespace cluster
