#include "admission/plugins/toleration_merge.h"

#include <optional>
#include <string>
#include <vector>

#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

// A toleration's fields as the Go struct holds them (absent strings are "").
struct Toleration {
  std::string key;
  std::string op;
  std::string value;
  std::string effect;
  std::optional<int64_t> seconds;

  bool operator==(const Toleration&) const = default;
};

Toleration read(const json& t) {
  return {registry::string_at(t, {"key"}), registry::string_at(t, {"operator"}),
          registry::string_at(t, {"value"}), registry::string_at(t, {"effect"}),
          registry::integer_at(t, {"tolerationSeconds"})};
}

bool superset(const Toleration& ss, const Toleration& t) {
  if (ss == t) {
    return true;
  }
  // An empty key with Exists matches every key.
  if (t.key != ss.key && (!ss.key.empty() || ss.op != "Exists")) {
    return false;
  }
  // An empty effect matches every effect.
  if (t.effect != ss.effect && !ss.effect.empty()) {
    return false;
  }
  if (ss.effect == "NoExecute" && ss.seconds && (!t.seconds || *t.seconds > *ss.seconds)) {
    return false;
  }
  if (ss.op == "Equal" || ss.op.empty()) {
    return t.op == "Equal" && t.value == ss.value;
  }
  return ss.op == "Exists";
}

}  // namespace

bool tolerates_superset(const json& wide, const json& narrow) {
  return superset(read(wide), read(narrow));
}

json merge_tolerations(const json& first, const json& second) {
  std::vector<const json*> all;
  for (const json* list : {&first, &second}) {
    if (list->is_array()) {
      for (const auto& t : *list) {
        if (t.is_object()) {
          all.push_back(&t);
        }
      }
    }
  }
  std::vector<Toleration> read_all;
  read_all.reserve(all.size());
  for (const json* t : all) {
    read_all.push_back(read(*t));
  }
  json merged = json::array();
  std::vector<Toleration> kept;
  for (size_t i = 0; i < all.size(); ++i) {
    const Toleration& t = read_all[i];
    bool redundant = false;
    for (const auto& k : kept) {
      redundant = redundant || superset(k, t);
    }
    // A later toleration that is wider (and not the same) makes this one redundant too.
    for (size_t j = i + 1; j < all.size() && !redundant; ++j) {
      redundant = !(read_all[j] == t) && superset(read_all[j], t);
    }
    if (!redundant) {
      kept.push_back(t);
      merged.push_back(*all[i]);
    }
  }
  return merged;
}

}  // namespace apiserver::admission
