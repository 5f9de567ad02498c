#include "admission/chain.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "admission/plugins.h"
#include "registry/changed_paths.h"
#include "registry/go_text.h"
#include "trace/request_trace.h"

namespace apiserver::admission {
namespace {

const PluginEntry* find_entry(const std::string& name) {
  for (const auto& entry : ordered_plugins()) {
    if (entry.name == name) {
      return &entry;
    }
  }
  return nullptr;
}

// Go's %v of a sorted []string: "[A B]".
std::string go_list(const std::set<std::string>& names) {
  std::string out = "[";
  for (const auto& name : names) {
    if (out.size() > 1) {
      out += ' ';
    }
    out += name;
  }
  return out + "]";
}

// The trace's note about one plugin: the fields it changed and what it said.
void note_plugin(std::string_view plugin, const std::string& changed, const std::string& said,
                 const Decision& decision, bool again) {
  std::string text(plugin);
  text += again ? " (reinvoked): " : ": ";
  std::string what;
  if (decision) {
    what = "refused: " + decision->message;
  } else {
    what = changed;
    if (!said.empty()) {
      what += what.empty() ? said : "; " + said;
    }
  }
  if (what.empty()) {
    return;  // the plugin had nothing to do with this request
  }
  trace::note("admission", text + what);
}

std::string changed_fields(const nlohmann::json& before, const nlohmann::json& after) {
  size_t more = 0;
  auto paths = registry::changed_paths(before, after, 20, &more);
  if (paths.empty()) {
    return {};
  }
  std::string text = "set " + registry::join(paths, ", ");
  if (more != 0) {
    text += " and " + std::to_string(more) + " more";
  }
  return text;
}

}  // namespace

common::Result<std::vector<std::string>> enabled_plugins(const PluginFlags& flags) {
  using R = common::Result<std::vector<std::string>>;
  std::vector<std::string> problems;
  for (const auto& name : flags.enable) {
    if (find_entry(name) == nullptr) {
      problems.push_back("enable-admission-plugins plugin \"" + name + "\" is unknown");
    }
  }
  for (const auto& name : flags.disable) {
    if (find_entry(name) == nullptr) {
      problems.push_back("disable-admission-plugins plugin \"" + name + "\" is unknown");
    }
  }
  std::set<std::string> enable(flags.enable.begin(), flags.enable.end());
  std::set<std::string> both;
  for (const auto& name : flags.disable) {
    if (enable.count(name) != 0) {
      both.insert(name);
    }
  }
  if (!both.empty()) {
    problems.push_back(go_list(both) +
                       " in enable-admission-plugins and disable-admission-plugins overlapped");
  }
  for (const auto& name : flags.enable) {
    const PluginEntry* entry = find_entry(name);
    if (entry != nullptr && entry->make == nullptr) {
      problems.push_back("admission plugin \"" + name + "\" is not available in kube-sandbox");
    }
  }
  if (!problems.empty()) {
    std::string message;
    for (const auto& p : problems) {
      message += (message.empty() ? "" : "\n") + p;
    }
    return R::failure(message);
  }
  std::set<std::string> disable(flags.disable.begin(), flags.disable.end());
  std::vector<std::string> on;
  for (const auto& entry : ordered_plugins()) {
    std::string name(entry.name);
    const bool wanted = (entry.on_by_default || enable.count(name) != 0) &&
                        disable.count(name) == 0 && entry.make != nullptr;
    if (wanted) {
      on.push_back(std::move(name));
    }
  }
  return on;
}

Chain::Chain(const Services& services, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    const PluginEntry* entry = find_entry(name);
    if (entry != nullptr && entry->make != nullptr) {
      plugins_.push_back(entry->make(services));
    }
  }
}

Chain::~Chain() = default;

std::vector<std::string> Chain::names() const {
  std::vector<std::string> out;
  for (const auto& plugin : plugins_) {
    out.emplace_back(plugin->name());
  }
  return out;
}

Decision Chain::admit(Attributes& a) const {
  a.reinvoking = false;
  a.webhooks_to_reinvoke.clear();
  if (auto decision = admit_pass(a)) {
    return decision;
  }
  if (a.webhooks_to_reinvoke.empty()) {
    return std::nullopt;
  }
  // Once more: the in-tree plugins see what the webhooks added, and the webhooks that asked
  // for it are called again (never a third time).
  a.reinvoking = true;
  return admit_pass(a);
}

Decision Chain::admit_pass(Attributes& a) const {
  for (const auto& plugin : plugins_) {
    if (!plugin->mutates()) {
      continue;
    }
    const bool compare = trace::active() && a.object != nullptr;
    const nlohmann::json before = compare ? *a.object : nlohmann::json();
    std::string said;
    Decision decision = plugin->admit(a, said);
    if (trace::active()) {
      note_plugin(plugin->name(), compare ? changed_fields(before, *a.object) : std::string(), said,
                  decision, a.reinvoking);
    }
    if (decision) {
      return decision;
    }
  }
  return std::nullopt;
}

Decision Chain::validate(Attributes& a) const {
  for (const auto& plugin : plugins_) {
    if (!plugin->validates()) {
      continue;
    }
    std::string said;
    Decision decision = plugin->validate(a, said);
    if (trace::active()) {
      note_plugin(plugin->name(), std::string(), said, decision, false);
    }
    if (decision) {
      return decision;
    }
  }
  return std::nullopt;
}

}  // namespace apiserver::admission
