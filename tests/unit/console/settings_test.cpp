#include "console/app/settings.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "console/app/console_state.h"
#include "fake_session.h"

using console::app::ConsoleSettings;
using console::app::default_settings_path;
using console::app::format_settings;
using console::app::load_settings;
using console::app::parse_settings;
using console::app::save_settings;

namespace fs = std::filesystem;

namespace {

// A temporary folder removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "ks-settings-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

ConsoleSettings full_settings() {
  ConsoleSettings s;
  s.window_size = std::make_pair(1280, 800);
  s.window_pos = std::make_pair(-40, 25);
  s.light_theme = true;
  s.favourites = {"apps/deployments", "core/pods"};
  s.panes = {240, 460, 280};
  s.imgui = "[Table][0x1234ABCD,5]\nRefScale=15\nColumn 0  Width=120\n";
  return s;
}

}  // namespace

TEST_CASE("settings are written as an ini file and read back unchanged", "[settings]") {
  const ConsoleSettings s = full_settings();
  const std::string text = format_settings(s);
  CHECK(text ==
        "[kube-sandbox][console]\n"
        "window-size=1280x800\n"
        "window-pos=-40,25\n"
        "theme=light\n"
        "favourites=apps/deployments,core/pods\n"
        "tree-width=240\n"
        "object-width=460\n"
        "watch-height=280\n"
        "\n"
        "[Table][0x1234ABCD,5]\n"
        "RefScale=15\n"
        "Column 0  Width=120\n");
  std::vector<std::string> warnings;
  CHECK(parse_settings(text, &warnings) == s);
  CHECK(warnings.empty());
}

TEST_CASE("defaults are written without the values nobody set", "[settings]") {
  const std::string text = format_settings(ConsoleSettings{});
  CHECK(text == "[kube-sandbox][console]\ntheme=dark\nfavourites=\n");
  CHECK(parse_settings(text) == ConsoleSettings{});
}

TEST_CASE("ImGui's sections before and after the console's are kept", "[settings]") {
  const ConsoleSettings s = parse_settings(
      "[Window][Help]\nPos=10,10\n\n[kube-sandbox][console]\ntheme=light\n\n[Table][0x1,2]\n"
      "Column 0  Width=9\n");
  CHECK(s.light_theme);
  CHECK(s.imgui == "[Window][Help]\nPos=10,10\n\n[Table][0x1,2]\nColumn 0  Width=9\n");
}

TEST_CASE("bad lines are skipped and named, the good ones kept", "[settings]") {
  std::vector<std::string> warnings;
  const ConsoleSettings s = parse_settings(
      "[kube-sandbox][console]\n"
      "window-size=wide\n"
      "window-pos=10,20\n"
      "theme=blue\n"
      "favourites=core/pods, nonsense ,apps/deployments\n"
      "tree-width=-5\n"
      "object-width=300\n"
      "colour=red\n"
      "just words\n"
      "; a comment\n",
      &warnings);
  CHECK_FALSE(s.window_size);
  REQUIRE(s.window_pos);
  CHECK(*s.window_pos == std::make_pair(10, 20));
  CHECK_FALSE(s.light_theme);
  CHECK(s.favourites == std::set<std::string, std::less<>>{"apps/deployments", "core/pods"});
  CHECK(s.panes.tree_width == 0);
  CHECK(s.panes.object_width == 300);
  CHECK(warnings == std::vector<std::string>{
                        "line 2: bad value: window-size=wide",
                        "line 4: bad value: theme=blue",
                        "line 5: bad value: favourites=core/pods, nonsense ,apps/deployments",
                        "line 6: bad value: tree-width=-5",
                        "line 8: unknown setting: colour=red",
                        "line 9: not key=value: just words",
                    });
}

TEST_CASE("windows too large to be real are refused", "[settings]") {
  const auto size = GENERATE(as<std::string>{}, "0x600", "800x0", "20000x600", "800x-1", "x");
  CAPTURE(size);
  std::vector<std::string> warnings;
  CHECK_FALSE(
      parse_settings("[kube-sandbox][console]\nwindow-size=" + size + "\n", &warnings).window_size);
  CHECK(warnings.size() == 1);
}

TEST_CASE("settings are saved to a new folder and loaded back", "[settings]") {
  TempDir dir;
  const fs::path path = dir.path / "config" / "kube-sandbox" / "console.ini";
  SECTION("a missing file gives the defaults") {
    const auto loaded = load_settings(path.string());
    REQUIRE(loaded.ok());
    CHECK(*loaded == ConsoleSettings{});
  }
  SECTION("saved, then loaded") {
    REQUIRE(save_settings(path.string(), full_settings()) == std::nullopt);
    CHECK(read(path) == format_settings(full_settings()));
    CHECK_FALSE(fs::exists(path.string() + ".tmp"));
    const auto loaded = load_settings(path.string());
    REQUIRE(loaded.ok());
    CHECK(*loaded == full_settings());
  }
  SECTION("a folder in the way is an error naming it") {
    std::ofstream(dir.path / "file") << "x";
    const std::string blocked = (dir.path / "file" / "console.ini").string();
    const auto error = save_settings(blocked, full_settings());
    REQUIRE(error);
    CHECK(error->starts_with((dir.path / "file").string() + ": "));
  }
}

TEST_CASE("kube-sandbox console keeps its settings in the user's config folder", "[settings]") {
  CHECK(default_settings_path("/xdg", "/home/u") == "/xdg/kube-sandbox/console.ini");
  CHECK(default_settings_path("relative", "/home/u") == "/home/u/.config/kube-sandbox/console.ini");
  CHECK(default_settings_path(nullptr, "/home/u") == "/home/u/.config/kube-sandbox/console.ini");
  CHECK(default_settings_path(nullptr, nullptr).empty());
  CHECK(default_settings_path("", "").empty());
}

TEST_CASE("the console state gives and takes theme, favourites and pane sizes", "[settings]") {
  console::testing::FakeSession session;
  console::app::ConsoleState state{session};
  ConsoleSettings in = full_settings();
  state.apply_settings(in);
  CHECK(state.view_options().light_theme);
  CHECK(state.view_options().panes == in.panes);
  CHECK(state.is_favourite("core/pods"));
  CHECK_FALSE(state.is_favourite("core/configmaps"));
  state.set_favourite("core/configmaps", true);
  state.set_favourite("core/pods", false);
  state.view_options().panes.watch_height = 333;
  ConsoleSettings out;
  state.fill_settings(out);
  CHECK(out.light_theme);
  CHECK(out.favourites ==
        std::set<std::string, std::less<>>{"apps/deployments", "core/configmaps"});
  CHECK(out.panes.watch_height == 333);
  CHECK_FALSE(out.window_size);  // the window is the UI's
  CHECK(out.imgui.empty());
}
