// Label selectors and field selectors as kube-apiserver parses and matches them: the
// `labelSelector` / `fieldSelector` query parameters of list and watch, and metav1.LabelSelector
// objects (spec.selector of workloads). Pure functions over values; no I/O, no locks.
//
// Errors are returned as message text only, exactly as kube-apiserver words them; the caller wraps
// the text in a 400 BadRequest Status. When a request carries both parameters, kube-apiserver
// decodes labelSelector first, so its error wins.
//
// Worked example (label selector): "env in (prod, qa),tier!=db,!legacy" holds three requirements,
// all of which must match: labels {env: qa, tier: web} match; {env: qa, legacy: ""} do not
// (legacy exists); {tier: web} do not (env missing, and `in` needs the key).
//
// Worked example (field selector on pods): "spec.host=node-1,status.phase!=Running" becomes the
// terms spec.nodeName == "node-1" (the alias rewritten) and status.phase != "Running", compared
// against the strings kube-apiserver derives from the object (booleans "true"/"false", counts in
// decimal, absent fields "").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/registry.h"
#include "common/result.h"

namespace apiserver::registry {

enum class LabelOperator {
  In,
  NotIn,
  Equals,        // "="
  DoubleEquals,  // "=="
  NotEquals,     // "!="
  Exists,        // "key"
  DoesNotExist,  // "!key"
  GreaterThan,   // "key>5" (integers only)
  LessThan,      // "key<5"
};

struct LabelRequirement {
  std::string key;
  LabelOperator op = LabelOperator::Exists;
  std::vector<std::string> values;  // sorted and unique when parsed from text
};

class LabelSelector {
 public:
  // Everything: matches every label set.
  LabelSelector() = default;

  // Parses the `labelSelector` query syntax: comma-separated requirements of the forms
  // `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>n`, `k<n`; blanks
  // (space, tab, CR, LF) separate tokens. Keys must be qualified names and values valid label
  // values. An empty or blank text is Everything. The error is kube-apiserver's text, e.g.
  // "found '=', expected: ',' or 'end of string'" or
  // "unable to parse requirement: values[0][app]: Invalid value: ...".
  static common::Result<LabelSelector> parse(std::string_view text);

  // Converts a metav1.LabelSelector ({matchLabels, matchExpressions}) the way
  // metav1.LabelSelectorAsSelector does: null matches nothing, {} (no requirements) matches
  // everything; operators In, NotIn, Exists, DoesNotExist. matchLabels are taken in key order.
  // The error is the upstream text (e.g. `"Foo" is not a valid label selector operator`, or the
  // requirement's field errors).
  static common::Result<LabelSelector> from_json(const nlohmann::json& selector);

  // `labels` is an object's metadata.labels: an object of strings, or null / missing.
  bool matches(const nlohmann::json& labels) const;
  // True when the selector does not restrict anything (never true for the null selector).
  bool empty() const { return !nothing_ && requirements_.empty(); }
  // Requirements ordered by key.
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // labels.Selector.String(): "app=web,tier in (a,b),!canary"; "" for Everything.
  std::string to_string() const;

 private:
  std::vector<LabelRequirement> requirements_;
  bool nothing_ = false;  // from a null metav1.LabelSelector
};

enum class FieldOperator { Equals, NotEquals };  // "=" / "==", and "!="

struct FieldRequirement {
  std::string field;  // after alias rewriting, e.g. spec.nodeName for spec.host
  FieldOperator op = FieldOperator::Equals;
  std::string value;  // unescaped
};

class FieldSelector {
 public:
  // Everything.
  FieldSelector() = default;

  // Parses the `fieldSelector` query syntax for one resource: comma-separated terms
  // `label=value`, `label==value`, `label!=value`; in values, `\\`, `\,` and `\=` stand for
  // `\`, `,` and `=`. Labels pass through resource.field_selectors (aliases, then the accepted
  // list); an unknown label fails with the text of the resource's error_style ("core", "batch",
  // else the default text). Terms are checked in sorted order, syntax of all terms before any
  // label, so the first error is the one kube-apiserver reports. `resource` is only read during
  // the call. The error is kube-apiserver's text.
  static common::Result<FieldSelector> parse(std::string_view text, const Resource& resource);

  // `object` is the whole stored object (JSON of the served version).
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return terms_.empty(); }
  // The value of the first `metadata.name=` / `==` term, when there is one: the list can read
  // that single object. The caller must still apply matches() to it (other terms may exclude
  // it).
  std::optional<std::string> exact_name() const;
  // Terms in the order they are evaluated (sorted by their text).
  std::vector<FieldRequirement> requirements() const;

  // How a field's string value is derived from an object.
  enum class ValueKind {
    Text,        // string as is; booleans "true"/"false"; integers decimal; absent ""
    Bool,        // like Text, absent "false"
    Integer,     // like Text, absent "0"
    FirstPodIP,  // status.podIPs[0].ip, else status.podIP, else ""
    Absent,      // accepted by the API but not a selectable field: always ""
  };

 private:
  struct Term {
    FieldRequirement requirement;
    ValueKind kind = ValueKind::Text;
    std::vector<std::string> path;  // JSON path of the value
  };
  std::vector<Term> terms_;
};

}  // namespace apiserver::registry
