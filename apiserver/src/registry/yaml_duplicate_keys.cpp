// yaml_duplicate_keys (field_validation.h): the duplicate keys of a YAML body as yaml.v2's strict
// mapping decode reports them (release-1.32 line): `line %d: key %#v already set in map`, the
// line of the value.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

// GCC 12 sees dangling pointers in yaml-cpp's inlined Node accessors that are not there.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
#include <yaml-cpp/yaml.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "registry/field_validation.h"
#include "registry/go_text.h"

namespace apiserver::registry {
namespace {

constexpr int kMaxYamlDepth = 1000;

// How yaml.v2 resolves a map key, as (identity, text printed by %#v).
std::pair<std::string, std::string> yaml_key(const YAML::Node& key) {
  if (!key.IsScalar() && !key.IsNull()) {
    return {"?", "?"};  // yaml.v2 rejects map and list keys; compared by text here
  }
  const std::string text = key.IsNull() ? std::string() : key.Scalar();
  if (key.Tag() != "?") {  // quoted or explicitly tagged: a string
    return {"s" + text, go_quote(text)};
  }
  static const std::unordered_set<std::string> kNull = {"", "~", "null", "Null", "NULL"};
  static const std::unordered_set<std::string> kTrue = {"y",  "Y",  "yes",  "Yes",  "YES", "on",
                                                        "On", "ON", "true", "True", "TRUE"};
  static const std::unordered_set<std::string> kFalse = {
      "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"};
  if (key.IsNull() || kNull.count(text) != 0) {
    return {"n", "<nil>"};
  }
  if (kTrue.count(text) != 0) {
    return {"btrue", "true"};
  }
  if (kFalse.count(text) != 0) {
    return {"bfalse", "false"};
  }
  // Integers as Go's ParseInt(text without '_', 0, 64) reads them.
  std::string digits;
  for (char c : text) {
    if (c != '_') {
      digits += c;
    }
  }
  std::size_t pos = 0;
  bool negative = false;
  if (pos < digits.size() && (digits[pos] == '+' || digits[pos] == '-')) {
    negative = digits[pos] == '-';
    ++pos;
  }
  int base = 10;
  if (digits.size() > pos + 1 && digits[pos] == '0') {
    const char p = digits[pos + 1];
    if (p == 'x' || p == 'X') {
      base = 16;
      pos += 2;
    } else if (p == 'b' || p == 'B') {
      base = 2;
      pos += 2;
    } else if (p == 'o' || p == 'O') {
      base = 8;
      pos += 2;
    } else {
      base = 8;
      pos += 1;
    }
  }
  if (pos < digits.size()) {
    std::uint64_t magnitude = 0;
    bool ok = true;
    for (std::size_t i = pos; i < digits.size() && ok; ++i) {
      const char c = digits[i];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : 99;
      ok = d < base && magnitude <= (UINT64_MAX - static_cast<std::uint64_t>(d)) / base;
      magnitude = magnitude * base + static_cast<std::uint64_t>(d);
    }
    if (ok && magnitude <= (negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1)) {
      std::string shown = (negative && magnitude != 0 ? "-" : "") + std::to_string(magnitude);
      return {"i" + shown, shown};
    }
  }
  return {"s" + text, go_quote(text)};
}

void find_yaml_duplicates(const YAML::Node& node, int depth, std::vector<std::string>& out) {
  if (depth > kMaxYamlDepth) {
    return;
  }
  if (node.IsSequence()) {
    for (const auto& item : node) {
      find_yaml_duplicates(item, depth + 1, out);
    }
    return;
  }
  if (!node.IsMap()) {
    return;
  }
  std::unordered_set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    // yaml.v2 decodes the value before it stores it under the key.
    find_yaml_duplicates(value, depth + 1, out);
    auto [identity, shown] = yaml_key(key);
    if (seen.insert(identity).second) {
      continue;
    }
    // The value's line; an empty value has no position of its own: it sits on the key's line.
    int line = value.Mark().line;
    if (line < 0 || (value.IsNull() && value.Scalar().empty())) {
      line = key.Mark().line;
    }
    out.push_back("line " + std::to_string(line + 1) + ": key " + shown + " already set in map");
  }
}

}  // namespace

std::vector<std::string> yaml_duplicate_keys(std::string_view yaml_text) {
  std::vector<std::string> out;
  try {
    const YAML::Node doc = YAML::Load(std::string(yaml_text));
    find_yaml_duplicates(doc, 0, out);
  } catch (const YAML::Exception&) {
    return {};
  }
  return out;
}

}  // namespace apiserver::registry
