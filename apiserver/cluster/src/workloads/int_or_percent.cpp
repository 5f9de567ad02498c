#include "workloads/int_or_percent.h"

#include <charconv>
#include <string>

namespace cluster {

std::optional<int64_t> scaled_value(const nlohmann::json& int_or_percent, int64_t total,
                                    bool round_up) {
  if (int_or_percent.is_number_integer()) {
    return int_or_percent.get<int64_t>();
  }
  if (!int_or_percent.is_string()) {
    return std::nullopt;
  }
  const std::string& text = int_or_percent.get_ref<const std::string&>();
  if (text.size() < 2 || text.back() != '%' || text.front() == '+' || text.front() == '-') {
    return std::nullopt;
  }
  int64_t percent = 0;
  const char* end = text.data() + text.size() - 1;
  auto [stop, ec] = std::from_chars(text.data(), end, percent);
  // A percentage beyond 100000% is no budget anyone means; it would only overflow.
  if (ec != std::errc() || stop != end || percent > 100'000 || total < 0 ||
      total > INT64_MAX / 100'000) {
    return std::nullopt;
  }
  const int64_t product = percent * total;
  return round_up ? (product + 99) / 100 : product / 100;
}

}  // namespace cluster
