#include "support/json_input.h"

namespace fuzz {

std::optional<nlohmann::json> parse_json_input(std::string_view text) {
  bool too_deep = false;
  const nlohmann::json::parser_callback_t limit = [&](int depth, nlohmann::json::parse_event_t,
                                                      nlohmann::json&) {
    too_deep = too_deep || depth > kMaxJsonNesting;
    return !too_deep;
  };
  nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), limit, false);
  if (too_deep || doc.is_discarded()) {
    return std::nullopt;
  }
  return doc;
}

}  // namespace fuzz
