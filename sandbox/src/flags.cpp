#include "flags.h"

#include <optional>
#include <sstream>

namespace sandbox {

std::string ParsedFlags::get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

std::vector<std::string> ParsedFlags::all(const std::string& name) const {
  auto it = occurrences.find(name);
  return it == occurrences.end() ? std::vector<std::string>() : it->second;
}

const FlagSpec* FlagSet::find_long(const std::string& name) const {
  for (const auto& spec : specs_) {
    if (spec.name == name) {
      return &spec;
    }
  }
  return nullptr;
}

const FlagSpec* FlagSet::find_short(const std::string& name) const {
  for (const auto& spec : specs_) {
    if (!spec.short_name.empty() && spec.short_name == name) {
      return &spec;
    }
  }
  return nullptr;
}

common::Result<ParsedFlags> FlagSet::parse(const std::vector<std::string>& args) const {
  ParsedFlags parsed;
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    bool is_long = arg.rfind("--", 0) == 0;
    std::string body = arg.substr(is_long ? 2 : 1);
    std::optional<std::string> inline_value;
    if (auto eq = body.find('='); eq != std::string::npos) {
      inline_value = body.substr(eq + 1);
      body = body.substr(0, eq);
    }
    const FlagSpec* spec = is_long ? find_long(body) : find_short(body);
    if (spec == nullptr) {
      return "unknown flag: " + arg;
    }
    if (!spec->takes_value) {
      if (inline_value && *inline_value != "true" && *inline_value != "false") {
        return "flag --" + spec->name + " takes no value (or true|false), got \"" + *inline_value +
               "\"";
      }
      if (!inline_value || *inline_value == "true") {
        parsed.values[spec->name] = "true";
      } else {
        parsed.values.erase(spec->name);
      }
      parsed.occurrences[spec->name].push_back(inline_value.value_or("true"));
      continue;
    }
    if (inline_value) {
      parsed.values[spec->name] = *inline_value;
    } else if (i + 1 < args.size()) {
      parsed.values[spec->name] = args[++i];
    } else {
      return "flag needs a value: " + arg;
    }
    parsed.occurrences[spec->name].push_back(parsed.values[spec->name]);
  }
  return parsed;
}

std::string FlagSet::describe() const {
  std::ostringstream out;
  for (const auto& spec : specs_) {
    std::string left = "  ";
    left += spec.short_name.empty() ? "    " : "-" + spec.short_name + ", ";
    left += "--" + spec.name;
    if (spec.takes_value) {
      left += " " + (spec.value_name.empty() ? std::string("VALUE") : spec.value_name);
    }
    if (left.size() < 32) {
      left.resize(32, ' ');
    } else {
      left += "  ";
    }
    out << left << spec.help << "\n";
  }
  return out.str();
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) {
      comma = text.size();
    }
    if (comma > start) {
      out.push_back(text.substr(start, comma - start));
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace sandbox
