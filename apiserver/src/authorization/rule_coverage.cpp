#include "authorization/rule_coverage.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "common/go_quote.h"

namespace apiserver::authorization {
namespace {

bool has(const std::vector<std::string>& set, const std::string& value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

bool has_all(const std::vector<std::string>& set, const std::vector<std::string>& wanted) {
  for (const auto& w : wanted) {
    if (!has(set, w)) {
      return false;
    }
  }
  return true;
}

bool resources_covered(const std::vector<std::string>& owner,
                       const std::vector<std::string>& wanted) {
  if (has(owner, "*") || has_all(owner, wanted)) {
    return true;
  }
  for (const auto& path : wanted) {
    if (has(owner, path)) {
      continue;
    }
    const size_t slash = path.find('/');
    if (slash == std::string::npos || !has(owner, "*/" + path.substr(slash + 1))) {
      return false;
    }
  }
  return true;
}

bool url_covered(const std::string& owner, const std::string& path) {
  if (owner == path) {
    return true;
  }
  if (!owner.ends_with("*")) {
    return false;
  }
  const size_t stem = owner.find_last_not_of('*');
  return std::string_view(path).starts_with(
      std::string_view(owner.data(), stem == std::string::npos ? 0 : stem + 1));
}

bool urls_covered(const std::vector<std::string>& owner, const std::vector<std::string>& wanted) {
  for (const auto& path : wanted) {
    bool covered = false;
    for (const auto& o : owner) {
      if (url_covered(o, path)) {
        covered = true;
        break;
      }
    }
    if (!covered) {
      return false;
    }
  }
  return true;
}

// Whether `owner` covers `sub`, a rule of at most one verb, resource and name.
bool covers(const PolicyRule& owner, const PolicyRule& sub) {
  const bool verbs = has(owner.verbs, "*") || has_all(owner.verbs, sub.verbs);
  const bool groups = has(owner.api_groups, "*") || has_all(owner.api_groups, sub.api_groups);
  const bool names =
      sub.resource_names.empty()
          ? owner.resource_names.empty()
          : owner.resource_names.empty() || has_all(owner.resource_names, sub.resource_names);
  return verbs && groups && resources_covered(owner.resources, sub.resources) && names &&
         urls_covered(owner.non_resource_urls, sub.non_resource_urls);
}

}  // namespace

std::vector<PolicyRule> break_down(const PolicyRule& rule) {
  std::vector<PolicyRule> out;
  for (const auto& group : rule.api_groups) {
    for (const auto& resource : rule.resources) {
      for (const auto& verb : rule.verbs) {
        if (rule.resource_names.empty()) {
          out.push_back({{verb}, {group}, {resource}, {}, {}});
          continue;
        }
        for (const auto& name : rule.resource_names) {
          out.push_back({{verb}, {group}, {resource}, {name}, {}});
        }
      }
    }
  }
  for (const auto& url : rule.non_resource_urls) {
    for (const auto& verb : rule.verbs) {
      out.push_back({{verb}, {}, {}, {}, {url}});
    }
  }
  return out;
}

std::vector<PolicyRule> uncovered(const std::vector<PolicyRule>& owner,
                                  const std::vector<PolicyRule>& servant) {
  std::vector<PolicyRule> missing;
  for (const auto& rule : servant) {
    for (auto& sub : break_down(rule)) {
      bool covered = false;
      for (const auto& o : owner) {
        if (covers(o, sub)) {
          covered = true;
          break;
        }
      }
      if (!covered) {
        missing.push_back(std::move(sub));
      }
    }
  }
  return missing;
}

std::vector<PolicyRule> compact_rules(const std::vector<PolicyRule>& rules) {
  std::vector<PolicyRule> out;
  // (group, resource, has a name, name) -> the merged rule; upstream then lists them in map
  // order, which callers never rely on (they sort what they print).
  std::map<std::tuple<std::string, std::string, bool, std::string>, PolicyRule> simple;
  std::vector<std::tuple<std::string, std::string, bool, std::string>> order;
  for (const auto& rule : rules) {
    const bool is_simple = rule.resource_names.size() <= 1 && rule.non_resource_urls.empty() &&
                           rule.api_groups.size() == 1 && rule.resources.size() == 1;
    if (!is_simple) {
      out.push_back(rule);
      continue;
    }
    auto key = std::make_tuple(rule.api_groups[0], rule.resources[0], !rule.resource_names.empty(),
                               rule.resource_names.empty() ? "" : rule.resource_names[0]);
    auto it = simple.find(key);
    if (it == simple.end()) {
      simple.emplace(key, rule);
      order.push_back(key);
    } else {
      it->second.verbs.insert(it->second.verbs.end(), rule.verbs.begin(), rule.verbs.end());
    }
  }
  for (const auto& key : order) {
    out.push_back(simple.at(key));
  }
  return out;
}

std::string go_quote_list(const std::vector<std::string>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) {
      out += ' ';
    }
    out += common::go_quote(list[i]);
  }
  return out + "]";
}

std::string compact_string(const PolicyRule& rule) {
  std::vector<std::string> parts;
  if (!rule.api_groups.empty()) {
    parts.push_back("APIGroups:" + go_quote_list(rule.api_groups));
  }
  if (!rule.resources.empty()) {
    parts.push_back("Resources:" + go_quote_list(rule.resources));
  }
  if (!rule.non_resource_urls.empty()) {
    parts.push_back("NonResourceURLs:" + go_quote_list(rule.non_resource_urls));
  }
  if (!rule.resource_names.empty()) {
    parts.push_back("ResourceNames:" + go_quote_list(rule.resource_names));
  }
  if (!rule.verbs.empty()) {
    parts.push_back("Verbs:" + go_quote_list(rule.verbs));
  }
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) {
    out += (i > 0 ? ", " : "") + parts[i];
  }
  return out + "}";
}

}  // namespace apiserver::authorization
