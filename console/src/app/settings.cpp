#include "console/app/settings.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace console::app {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSection = "[kube-sandbox][console]";
constexpr int kMaxWindow = 16384;
constexpr float kMaxPane = 16384.0f;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool parse_int(std::string_view text, int& out) {
  text = trim(text);
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && p == text.data() + text.size() && !text.empty();
}

// "A<sep>B" -> two ints.
bool parse_pair(std::string_view text, char separator, std::pair<int, int>& out) {
  const size_t at = text.find(separator);
  return at != std::string_view::npos && parse_int(text.substr(0, at), out.first) &&
         parse_int(text.substr(at + 1), out.second);
}

bool parse_pane(std::string_view text, float& out) {
  int value = 0;
  if (!parse_int(text, value) || value < 0 || static_cast<float>(value) > kMaxPane) {
    return false;
  }
  out = static_cast<float>(value);
  return true;
}

void apply_line(ConsoleSettings& s, std::string_view key, std::string_view value, bool& known,
                bool& valid) {
  known = true;
  valid = true;
  if (key == "window-size") {
    std::pair<int, int> size;
    valid = parse_pair(value, 'x', size) && size.first > 0 && size.second > 0 &&
            size.first <= kMaxWindow && size.second <= kMaxWindow;
    if (valid) {
      s.window_size = size;
    }
  } else if (key == "window-pos") {
    std::pair<int, int> pos;
    valid = parse_pair(value, ',', pos) && std::abs(pos.first) <= kMaxWindow &&
            std::abs(pos.second) <= kMaxWindow;
    if (valid) {
      s.window_pos = pos;
    }
  } else if (key == "theme") {
    valid = value == "dark" || value == "light";
    if (valid) {
      s.light_theme = value == "light";
    }
  } else if (key == "favourites") {
    s.favourites.clear();
    size_t start = 0;
    while (start <= value.size()) {
      const size_t comma = std::min(value.find(',', start), value.size());
      const std::string_view item = trim(value.substr(start, comma - start));
      if (item.find('/') != std::string_view::npos) {
        s.favourites.emplace(item);
      } else if (!item.empty()) {
        valid = false;  // keeps the well-formed ones
      }
      start = comma + 1;
    }
  } else if (key == "tree-width") {
    valid = parse_pane(value, s.panes.tree_width);
  } else if (key == "object-width") {
    valid = parse_pane(value, s.panes.object_width);
  } else if (key == "watch-height") {
    valid = parse_pane(value, s.panes.watch_height);
  } else {
    known = false;
  }
}

}  // namespace

ConsoleSettings parse_settings(std::string_view text, std::vector<std::string>* warnings) {
  ConsoleSettings settings;
  bool ours = false;
  size_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view raw = text.substr(start, end - start + (end < text.size() ? 1 : 0));
    const std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.front() == '[') {
      ours = line == kSection;
      if (ours) {
        continue;
      }
    }
    if (!ours) {
      settings.imgui.append(raw);
      if (raw.empty() || raw.back() != '\n') {
        settings.imgui += '\n';
      }
      continue;
    }
    if (line.empty() || line.front() == ';' || line.front() == '#') {
      continue;
    }
    const size_t eq = line.find('=');
    bool known = false;
    bool valid = false;
    if (eq != std::string_view::npos) {
      apply_line(settings, trim(line.substr(0, eq)), trim(line.substr(eq + 1)), known, valid);
    }
    if (warnings != nullptr && (!known || !valid)) {
      warnings->push_back("line " + std::to_string(line_number) + ": " +
                          (eq == std::string_view::npos ? "not key=value"
                           : !known                     ? "unknown setting"
                                                        : "bad value") +
                          ": " + std::string(line));
    }
  }
  // Leading blank lines before ImGui's first section carry nothing.
  const size_t first = settings.imgui.find_first_not_of("\r\n");
  settings.imgui.erase(0, first == std::string::npos ? settings.imgui.size() : first);
  return settings;
}

std::string format_settings(const ConsoleSettings& s) {
  std::ostringstream out;
  out << kSection << "\n";
  if (s.window_size) {
    out << "window-size=" << s.window_size->first << "x" << s.window_size->second << "\n";
  }
  if (s.window_pos) {
    out << "window-pos=" << s.window_pos->first << "," << s.window_pos->second << "\n";
  }
  out << "theme=" << (s.light_theme ? "light" : "dark") << "\n";
  out << "favourites=";
  bool first = true;
  for (const auto& key : s.favourites) {
    out << (first ? "" : ",") << key;
    first = false;
  }
  out << "\n";
  const auto pane = [&out](const char* key, float value) {
    if (value > 0) {
      out << key << "=" << static_cast<int>(std::lround(value)) << "\n";
    }
  };
  pane("tree-width", s.panes.tree_width);
  pane("object-width", s.panes.object_width);
  pane("watch-height", s.panes.watch_height);
  if (!s.imgui.empty()) {
    out << "\n" << s.imgui;
    if (s.imgui.back() != '\n') {
      out << "\n";
    }
  }
  return out.str();
}

common::Result<ConsoleSettings> load_settings(const std::string& path,
                                              std::vector<std::string>* warnings) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return ConsoleSettings{};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return path + ": cannot be read";
  }
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  if (in.bad()) {
    return path + ": cannot be read";
  }
  return parse_settings(text, warnings);
}

std::optional<std::string> save_settings(const std::string& path, const ConsoleSettings& settings) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) {
      return parent.string() + ": " + ec.message();
    }
  }
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << format_settings(settings);
    if (!out.flush()) {
      return temp + ": cannot be written";
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    std::string error = path + ": " + ec.message();
    fs::remove(temp, ec);
    return error;
  }
  return std::nullopt;
}

std::string default_settings_path(const char* xdg_config_home, const char* home) {
  if (xdg_config_home != nullptr && xdg_config_home[0] == '/') {
    return (fs::path(xdg_config_home) / "kube-sandbox" / "console.ini").string();
  }
  if (home != nullptr && home[0] != '\0') {
    return (fs::path(home) / ".config" / "kube-sandbox" / "console.ini").string();
  }
  return "";
}

}  // namespace console::app
