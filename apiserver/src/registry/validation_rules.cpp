#include "registry/validation_rules.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "registry/go_text.h"
#include "registry/go_values.h"

namespace apiserver::registry::rules {

const json& null_json() {
  static const json kNull;
  return kNull;
}

const json& get(const json& j, const char* key) {
  if (!j.is_object()) {
    return null_json();
  }
  auto it = j.find(key);
  return it == j.end() ? null_json() : *it;
}

std::string str(const json& j, const char* key) {
  const json& v = get(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

bool present(const json& j, const char* key) {
  return !get(j, key).is_null();
}

std::string index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string key_of(const std::string& path, const std::string& key) {
  return path + "[" + key + "]";
}

std::string render_scalar(const json& v) {
  if (v.is_string()) {
    return go_quote(v.get<std::string>());
  }
  return v.dump();
}

std::string go_string_map(const json& m) {
  if (!m.is_object()) {
    return "map[string]string(nil)";
  }
  std::string out = "map[string]string{";
  bool first = true;
  for (auto it = m.begin(); it != m.end(); ++it) {  // nlohmann objects iterate in key order
    out += (first ? "" : ", ") + go_quote(it.key()) + ":" +
           go_quote(it->is_string() ? it->get<std::string>() : it->dump());
    first = false;
  }
  return out + "}";
}

std::string go_label_selector(const json& sel) {
  if (!sel.is_object()) {
    return "null";
  }
  std::string labels = "map[string]string{";
  for (auto it = get(sel, "matchLabels").begin();
       get(sel, "matchLabels").is_object() && it != get(sel, "matchLabels").end(); ++it) {
    labels += it.key() + ": " + (it->is_string() ? it->get<std::string>() : it->dump()) + ",";
  }
  labels += "}";
  std::string exprs = "[]LabelSelectorRequirement{";
  const json& list = get(sel, "matchExpressions");
  if (list.is_array()) {
    for (const auto& e : list) {
      std::string values = "[";
      const json& vs = get(e, "values");
      if (vs.is_array()) {
        for (size_t i = 0; i < vs.size(); ++i) {
          values += (i ? " " : "") + (vs[i].is_string() ? vs[i].get<std::string>() : vs[i].dump());
        }
      }
      values += "]";
      exprs += "LabelSelectorRequirement{Key:" + str(e, "key") + ",Operator:" + str(e, "operator") +
               ",Values:" + values + ",},";
    }
  }
  exprs += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs + ",}";
}

void validate_labels(const json& labels, const std::string& path, Errors& out) {
  if (!labels.is_object()) {
    return;
  }
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    for (const auto& msg : label_key_problems(it.key())) {
      out.push_back(invalid_value(path, it.key(), msg));
    }
    const std::string value = it->is_string() ? it->get<std::string>() : std::string();
    for (const auto& msg : label_value_problems(value)) {
      out.push_back(invalid_value(path, value, msg));
    }
  }
}

void validate_annotations(const json& annotations, const std::string& path, Errors& out) {
  if (!annotations.is_object()) {
    return;
  }
  size_t total = 0;
  for (auto it = annotations.begin(); it != annotations.end(); ++it) {
    std::string lower = it.key();
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& msg : label_key_problems(lower)) {
      out.push_back(invalid_value(path, it.key(), msg));
    }
    total += it.key().size() + (it->is_string() ? it->get<std::string>().size() : 0);
  }
  if (total > 256 * 1024) {
    out.push_back(too_long(path, 256 * 1024));
  }
}

void validate_finalizers(const json& finalizers, const std::string& path, bool core, Errors& out) {
  if (!finalizers.is_array()) {
    return;
  }
  static const std::set<std::string> kStandard = {"kubernetes", "orphan", "foregroundDeletion"};
  std::vector<std::string> quoted;
  for (const auto& f : finalizers) {
    const std::string name = f.is_string() ? f.get<std::string>() : std::string();
    quoted.push_back(go_quote(name));
    auto problems = label_key_problems(name);
    for (const auto& msg : problems) {
      out.push_back(invalid_value(path, name, msg));
    }
    // Core's finalizer rule (text unverified against 1.32).
    if (core && problems.empty() && name.find('/') == std::string::npos && !kStandard.count(name)) {
      out.push_back(invalid_value(
          path, name, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
  // The garbage collector cannot both orphan the dependents and delete them first.
  if (std::find(finalizers.begin(), finalizers.end(), json("orphan")) != finalizers.end() &&
      std::find(finalizers.begin(), finalizers.end(), json("foregroundDeletion")) !=
          finalizers.end()) {
    out.push_back(invalid_rendered(path, "[]string{" + join(quoted, ", ") + "}",
                                   "finalizer orphan and foregroundDeletion cannot be both set"));
  }
}

void validate_no_new_finalizers(const json& finalizers, const json& old_finalizers,
                                const std::string& path, Errors& out) {
  std::set<std::string> added;
  auto names = [](const json& list) {
    std::set<std::string> set;
    if (list.is_array()) {
      for (const auto& f : list) {
        set.insert(f.is_string() ? f.get<std::string>() : std::string());
      }
    }
    return set;
  };
  const std::set<std::string> before = names(old_finalizers);
  for (const std::string& name : names(finalizers)) {
    if (before.count(name) == 0) {
      added.insert(name);
    }
  }
  if (added.empty()) {
    return;
  }
  std::vector<std::string> quoted;
  for (const std::string& name : added) {
    quoted.push_back(go_quote(name));
  }
  out.push_back(forbidden(path,
                          "no new finalizers can be added if the object is being deleted, found "
                          "new finalizers []string{" +
                              join(quoted, ", ") + "}"));
}

void validate_label_selector(const json& sel, const std::string& path, Errors& out) {
  if (!sel.is_object()) {
    return;
  }
  validate_labels(get(sel, "matchLabels"), path + ".matchLabels", out);
  const json& exprs = get(sel, "matchExpressions");
  if (!exprs.is_array()) {
    return;
  }
  for (size_t i = 0; i < exprs.size(); ++i) {
    const std::string p = index(path + ".matchExpressions", i);
    const std::string op = str(exprs[i], "operator");
    const json& values = get(exprs[i], "values");
    const size_t n = values.is_array() ? values.size() : 0;
    if (op == "In" || op == "NotIn") {
      if (n == 0) {
        out.push_back(
            required_value(p + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (n > 0) {
        out.push_back(forbidden(
            p + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      out.push_back(invalid_value(p + ".operator", op, "not a valid selector operator"));
    }
    const std::string key = str(exprs[i], "key");
    for (const auto& msg : label_key_problems(key)) {
      out.push_back(invalid_value(p + ".key", key, msg));
    }
  }
}

bool selector_is_empty(const json& sel) {
  const json& ml = get(sel, "matchLabels");
  const json& me = get(sel, "matchExpressions");
  return (!ml.is_object() || ml.empty()) && (!me.is_array() || me.empty());
}

bool selector_matches(const json& sel, const json& labels) {
  if (!sel.is_object()) {
    return false;
  }
  auto value_of = [&](const std::string& k) -> std::optional<std::string> {
    const json& v = get(labels, k.c_str());
    if (!v.is_string()) {
      return std::nullopt;
    }
    return v.get<std::string>();
  };
  const json& ml = get(sel, "matchLabels");
  if (ml.is_object()) {
    for (auto it = ml.begin(); it != ml.end(); ++it) {
      auto v = value_of(it.key());
      if (!v || !it->is_string() || *v != it->get<std::string>()) {
        return false;
      }
    }
  }
  const json& me = get(sel, "matchExpressions");
  if (me.is_array()) {
    for (const auto& e : me) {
      const auto v = value_of(str(e, "key"));
      const std::string op = str(e, "operator");
      bool listed = false;
      const json& vs = get(e, "values");
      if (v && vs.is_array()) {
        listed = std::any_of(vs.begin(), vs.end(),
                             [&](const json& x) { return x.is_string() && x == *v; });
      }
      if ((op == "In" && !listed) || (op == "NotIn" && listed) || (op == "Exists" && !v) ||
          (op == "DoesNotExist" && v)) {
        return false;
      }
    }
  }
  return true;
}

std::string quantity_text(const json& q) {
  return q.is_string() ? q.get<std::string>() : q.dump();
}

void validate_nonnegative(const json& spec, const char* key, const std::string& path, Errors& out) {
  const json& v = get(spec, key);
  if (v.is_number_integer() && v.get<int64_t>() < 0) {
    out.push_back(invalid_rendered(path, v.dump(), kNegative));
  }
}

std::string go_int_or_string(const json& v) {
  if (v.is_string()) {
    return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + go_quote(v.get<std::string>()) + "}";
  }
  const std::string n = v.is_number_integer() ? v.dump() : "0";
  return "intstr.IntOrString{Type:0, IntVal:" + n + ", StrVal:\"\"}";
}

bool is_valid_percent(const std::string& s) {
  return s.size() > 1 && s.back() == '%' &&
         std::all_of(s.begin(), s.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
}

int64_t int_or_percent_value(const json& v) {
  if (v.is_number_integer()) {
    return v.get<int64_t>();
  }
  if (!v.is_string()) {
    return 0;
  }
  const std::string& s = v.get_ref<const std::string&>();
  return go_atoi(is_valid_percent(s) ? std::string_view(s).substr(0, s.size() - 1) : s).value;
}

void validate_int_or_percent(const json& v, const std::string& path, Errors& out) {
  if (v.is_number_integer()) {
    if (v.get<int64_t>() < 0) {
      out.push_back(invalid_rendered(path, v.dump(), kNegative));
    }
    return;
  }
  if (v.is_string() && !is_valid_percent(v.get<std::string>())) {
    out.push_back(invalid_rendered(path, go_int_or_string(v),
                                   "a valid percent string must be a numeric string followed by an "
                                   "ending '%' (e.g. '1%',  or '93%', regex used for validation is "
                                   "'[0-9]+%')"));
  }
}

void validate_not_over_100_percent(const json& v, const std::string& path, Errors& out) {
  if (v.is_string() && is_valid_percent(v.get<std::string>()) && int_or_percent_value(v) > 100) {
    out.push_back(invalid_rendered(path, go_int_or_string(v), "must not be greater than 100%"));
  }
}

void validate_immutable_data(const json& obj, const json& old,
                             std::initializer_list<const char*> keys, Errors& out) {
  const json& was_immutable = get(old, "immutable");
  if (!(was_immutable.is_boolean() && was_immutable.get<bool>())) {
    return;
  }
  const json& now_immutable = get(obj, "immutable");
  if (!(now_immutable.is_boolean() && now_immutable.get<bool>())) {
    out.push_back(forbidden("immutable", "field is immutable when `immutable` is set"));
  }
  for (const char* key : keys) {
    if (get(obj, key) != get(old, key)) {
      out.push_back(forbidden(key, "field is immutable when `immutable` is set"));
    }
  }
}

void validate_port_number(const json& port, const std::string& path, Errors& out) {
  const int64_t n = port.is_number_integer() ? port.get<int64_t>() : 0;
  if (n < 1 || n > 65535) {
    out.push_back(invalid_rendered(path, port.dump(), "must be between 1 and 65535, inclusive"));
  }
}

void validate_protocol(const json& container, const std::string& path, Errors& out) {
  const std::string protocol = str(container, "protocol");
  if (protocol.empty()) {
    out.push_back(required_value(path, ""));
  } else if (std::find(kProtocols.begin(), kProtocols.end(), protocol) == kProtocols.end()) {
    out.push_back(not_supported(path, go_quote(protocol), kProtocols));
  }
}

}  // namespace apiserver::registry::rules
