#include "console/model/namespaces.h"

#include <algorithm>

namespace console::model {

namespace {

const std::string* name_of(const nlohmann::json& object) {
  if (!object.is_object()) {
    return nullptr;
  }
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) {
    return nullptr;
  }
  const auto name = metadata->find("name");
  return name != metadata->end() && name->is_string() ? name->get_ptr<const std::string*>()
                                                      : nullptr;
}

}  // namespace

std::optional<std::string> NamespaceSelector::replace(const nlohmann::json& list) {
  if (!list.is_object()) {
    return "namespace list: not an object";
  }
  static const nlohmann::json kNoItems = nlohmann::json::array();
  const auto found = list.find("items");
  const nlohmann::json& items = found == list.end() || found->is_null() ? kNoItems : *found;
  if (!items.is_array()) {
    return "namespace list: items is not an array";
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string* name = name_of(items[i]);
    if (name == nullptr) {
      return "namespace list: items[" + std::to_string(i) + "].metadata.name is missing";
    }
    names.push_back(*name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  names_ = std::move(names);
  listed_ = true;
  fall_back_if_gone();
  return std::nullopt;
}

bool NamespaceSelector::apply(const nlohmann::json& event) {
  if (!event.is_object() || !event.contains("type") || !event["type"].is_string() ||
      !event.contains("object")) {
    return false;
  }
  const std::string& type = event["type"].get_ref<const std::string&>();
  const std::string* name = name_of(event["object"]);
  if (name == nullptr) {
    return false;
  }
  const auto at = std::lower_bound(names_.begin(), names_.end(), *name);
  const bool present = at != names_.end() && *at == *name;
  if ((type == "ADDED" || type == "MODIFIED") && !present) {
    names_.insert(at, *name);
    return true;
  }
  if (type == "DELETED" && present) {
    names_.erase(at);
    fall_back_if_gone();
    return true;
  }
  return false;
}

std::string_view NamespaceSelector::choice_label(size_t index) const {
  return index == 0 ? kAllLabel : std::string_view(names_.at(index - 1));
}

bool NamespaceSelector::select(std::string_view name) {
  if (!name.empty() && listed_ && !std::binary_search(names_.begin(), names_.end(), name)) {
    return false;
  }
  selected_ = std::string(name);
  return true;
}

void NamespaceSelector::select_choice(size_t index) {
  if (index < choice_count()) {
    selected_ = index == 0 ? std::string() : names_[index - 1];
  }
}

size_t NamespaceSelector::selected_choice() const {
  if (selected_.empty()) {
    return 0;
  }
  const auto at = std::lower_bound(names_.begin(), names_.end(), selected_);
  return at != names_.end() && *at == selected_ ? static_cast<size_t>(at - names_.begin()) + 1 : 0;
}

void NamespaceSelector::fall_back_if_gone() {
  if (!selected_.empty() && !std::binary_search(names_.begin(), names_.end(), selected_)) {
    selected_.clear();
  }
}

}  // namespace console::model
