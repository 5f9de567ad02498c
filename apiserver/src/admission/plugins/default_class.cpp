#include "admission/plugins/default_class.h"

#include "common/go_quote.h"
#include "registry/json_access.h"

namespace apiserver::admission {

std::optional<DefaultClass> newest_default_class(const std::vector<nlohmann::json>& classes,
                                                 std::initializer_list<const char*> annotations) {
  std::optional<DefaultClass> chosen;
  std::string chosen_created;
  for (const auto& c : classes) {
    bool marked = false;
    for (const char* key : annotations) {
      marked = marked || registry::string_at(c, {"metadata", "annotations", key}) == "true";
    }
    if (!marked) {
      continue;
    }
    const std::string name = registry::string_at(c, {"metadata", "name"});
    // The server stamps creationTimestamp as RFC 3339 in UTC with whole seconds, so the text
    // orders as the time does.
    const std::string created = registry::string_at(c, {"metadata", "creationTimestamp"});
    if (!chosen) {
      chosen = DefaultClass{name, 1};
      chosen_created = created;
      continue;
    }
    ++chosen->marked;
    if (created > chosen_created || (created == chosen_created && name < chosen->name)) {
      chosen->name = name;
      chosen_created = created;
    }
  }
  return chosen;
}

std::string describe_default(const DefaultClass& chosen, const std::string& kind) {
  std::string text = "the default " + kind + " is " + common::go_quote(chosen.name);
  if (chosen.marked > 1) {
    text += ", the newest of " + std::to_string(chosen.marked) + " marked default";
  }
  return text;
}

}  // namespace apiserver::admission
