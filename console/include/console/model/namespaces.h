// The choices of the console's namespace selector: "All namespaces" first, then every namespace
// by name, kept current by a LIST and the namespace watch that follows it. The selection is a
// name, so it stays put while namespaces come and go around it; when its own namespace is deleted
// it falls back to All namespaces rather than pointing at nothing.
//
// Before the first list arrives any name may be selected (the kubeconfig context's namespace, say);
// if the list then lacks it, the selection falls back to All.
//
// Pure state, not thread-safe: the UI thread owns it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace console::model {

class NamespaceSelector {
 public:
  static constexpr std::string_view kAllLabel = "All namespaces";

  // Replaces the names with those of a namespace LIST ({items: [{metadata: {name}}]}). Returns
  // an error message and changes nothing when malformed.
  std::optional<std::string> replace(const nlohmann::json& list);
  // ADDED and MODIFIED add the namespace, DELETED removes it; other events (BOOKMARK, ERROR) and
  // events without metadata.name change nothing. Returns true when the names changed.
  bool apply(const nlohmann::json& event);

  // Sorted, unique.
  const std::vector<std::string>& names() const { return names_; }
  // Choice 0 is All namespaces; choice i > 0 is names()[i - 1].
  size_t choice_count() const { return names_.size() + 1; }
  // `index` < choice_count().
  std::string_view choice_label(size_t index) const;

  // "" selects All namespaces. Returns false (selection unchanged) for a name the list lacks,
  // once a list has arrived.
  bool select(std::string_view name);
  // `index` < choice_count(); otherwise ignored.
  void select_choice(size_t index);
  // "" for All namespaces.
  const std::string& selected() const { return selected_; }
  bool all_selected() const { return selected_.empty(); }
  // The selected name's choice index; 0 for All (or a name not listed yet).
  size_t selected_choice() const;

 private:
  void fall_back_if_gone();

  std::vector<std::string> names_;
  std::string selected_;
  bool listed_ = false;
};

}  // namespace console::model
