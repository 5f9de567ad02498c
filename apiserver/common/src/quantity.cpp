#include "common/quantity.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <utility>

namespace common {
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

constexpr std::string_view kBinarySuffixes[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

}  // namespace

QuantityFormat quantity_format(std::string_view text) {
  for (std::string_view suffix : kBinarySuffixes) {
    if (text.ends_with(suffix)) {
      return QuantityFormat::BinarySI;
    }
  }
  return QuantityFormat::DecimalSI;
}

std::string format_quantity(double value, QuantityFormat format) {
  // Milli-units, within int64 (values beyond 9.2e15 units are clamped).
  constexpr double kMostMilli = 9.2e18;
  const double milli_value = std::clamp(std::round(value * 1000), -kMostMilli, kMostMilli);
  int64_t milli = static_cast<int64_t>(milli_value);
  if (milli == 0) {
    return "0";
  }
  if (format == QuantityFormat::BinarySI && milli % 1000 == 0 &&
      (milli >= 1024 * 1000 || milli <= -1024 * 1000)) {
    int64_t units = milli / 1000;
    size_t power = 0;
    while (power < std::size(kBinarySuffixes) && units % 1024 == 0) {
      units /= 1024;
      ++power;
    }
    return std::to_string(units) + (power == 0 ? "" : std::string(kBinarySuffixes[power - 1]));
  }
  constexpr std::string_view kDecimalSuffixes[] = {"m", "", "k", "M", "G", "T", "P", "E"};
  size_t exponent = 0;  // index into kDecimalSuffixes: milli first
  while (exponent + 1 < std::size(kDecimalSuffixes) && milli % 1000 == 0) {
    milli /= 1000;
    ++exponent;
  }
  return std::to_string(milli) + std::string(kDecimalSuffixes[exponent]);
}

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

}  // namespace common
