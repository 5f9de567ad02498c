// A small command-line flag parser: --name value, --name=value, -x value, boolean --name, and
// positional arguments. Errors are returned, never thrown, so main can print usage and exit 2.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/result.h"

namespace sandbox {

struct FlagSpec {
  std::string name;        // long name without dashes, e.g. "output"
  std::string short_name;  // one letter or empty, e.g. "o"
  bool takes_value = false;
  std::string value_name;  // for help, e.g. "FORMAT"
  std::string help;
};

struct ParsedFlags {
  std::map<std::string, std::string> values;  // long name -> value ("true" for booleans)
  std::vector<std::string> positional;
  // Every value each flag was given, in order ("true" or "false" for booleans): for the flags
  // that may be repeated, and booleans whose default is true.
  std::map<std::string, std::vector<std::string>> occurrences;

  bool has(const std::string& name) const { return values.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // occurrences of `name` (none when it was not given).
  std::vector<std::string> all(const std::string& name) const;
};

// The non-empty items of a comma-separated flag value ("a,,b" is a and b).
std::vector<std::string> split_commas(const std::string& text);

class FlagSet {
 public:
  explicit FlagSet(std::vector<FlagSpec> specs) : specs_(std::move(specs)) {}

  // The flags and positional arguments of `args`, or a one-line message saying what is wrong.
  common::Result<ParsedFlags> parse(const std::vector<std::string>& args) const;
  // The flags section of a usage text.
  std::string describe() const;
  const std::vector<FlagSpec>& specs() const { return specs_; }

 private:
  const FlagSpec* find_long(const std::string& name) const;
  const FlagSpec* find_short(const std::string& name) const;

  std::vector<FlagSpec> specs_;
};

}  // namespace sandbox
