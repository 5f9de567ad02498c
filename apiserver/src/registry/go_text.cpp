#include "registry/go_text.h"

#include <algorithm>

namespace apiserver::registry {

std::size_t rune_count(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++n) {
    std::size_t width = 1;
    decode_rune(s, i, width);
    i += width;
  }
  return n;
}

std::string first_runes(std::string_view s, std::size_t runes) {
  std::string out;
  for (std::size_t i = 0, n = 0; i < s.size() && n < runes; ++n) {
    std::size_t width = 1;
    append_utf8(out, decode_rune(s, i, width));
    i += width;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

std::string go_json_string(const std::string& s) {
  return go_json_escape(nlohmann::json(s).dump());
}

std::string go_json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::size_t json_text_depth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::string go_json_kind(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      return "object";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::boolean:
      return "bool";
    case nlohmann::json::value_t::null:
      return "null";
    default:
      return "number";
  }
}

std::string go_print(const nlohmann::json& value, bool sharp) {
  using nlohmann::json;
  // Without recursion (values may nest as deep as a request allows): one frame per open map or
  // slice, written in order.
  struct Frame {
    const json* value;
    json::const_iterator next;
  };
  std::string out;
  std::vector<Frame> stack;
  auto write = [&](const json& v) {
    switch (v.type()) {
      case json::value_t::object:
        // Go prints map keys sorted, as nlohmann::json keeps them.
        out += sharp ? "map[string]interface {}{" : "map[";
        stack.push_back({&v, v.begin()});
        break;
      case json::value_t::array:
        out += sharp ? "[]interface {}{" : "[";
        stack.push_back({&v, v.begin()});
        break;
      case json::value_t::string:
        out += sharp ? go_quote(v.get_ref<const std::string&>()) : v.get_ref<const std::string&>();
        break;
      case json::value_t::null:
        out += sharp ? "interface {}(nil)" : "<nil>";
        break;
      default:
        out += v.dump();
        break;
    }
  };
  write(value);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.value->end()) {
      out += sharp ? "}" : "]";
      stack.pop_back();
      continue;
    }
    if (f.next != f.value->begin()) {
      out += sharp ? ", " : " ";
    }
    if (f.value->is_object()) {
      out += sharp ? go_quote(f.next.key()) : f.next.key();
      out += ':';
    }
    const json& item = *f.next;
    ++f.next;
    write(item);  // may grow the stack: `f` is not used after this
  }
  return out;
}

}  // namespace apiserver::registry
