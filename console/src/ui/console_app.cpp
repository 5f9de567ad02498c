#include "console/ui/console_app.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>
#include <vector>

#include "console/app/console_state.h"
#include "console/app/script.h"
#include "console/app/settings.h"
#include "console/client/session.h"
#include "ui/frame_stats.h"
#include "ui/help_window.h"
#include "ui/object_pane.h"
#include "ui/object_table_window.h"
#include "ui/resource_tree_window.h"
#include "ui/status_bar.h"
#include "ui/style.h"
#include "ui/watch_window.h"

namespace console::ui {

namespace {

namespace fs = std::filesystem;

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The frame just drawn, read from the back buffer before the swap, as a PNG: the error, or
// nullopt once written.
std::optional<std::string> save_screenshot(GLFWwindow* window, const std::string& path) {
  int width = 0;
  int height = 0;
  glfwGetFramebufferSize(window, &width, &height);
  if (width <= 0 || height <= 0) {
    return std::string("the window has no pixels to save");
  }
  const size_t stride = static_cast<size_t>(width) * 3;
  std::vector<unsigned char> pixels(stride * static_cast<size_t>(height));
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  // GL's rows run bottom-up; PNG's top-down.
  std::vector<unsigned char> flipped(pixels.size());
  for (int y = 0; y < height; ++y) {
    std::copy_n(pixels.begin() + static_cast<std::ptrdiff_t>(stride * static_cast<size_t>(y)),
                stride,
                flipped.begin() +
                    static_cast<std::ptrdiff_t>(stride * static_cast<size_t>(height - 1 - y)));
  }
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (stbi_write_png(path.c_str(), width, height, 3, flipped.data(), static_cast<int>(stride)) ==
      0) {
    return "cannot write " + path;
  }
  return std::nullopt;
}

// The places of the windows in a main window of `size`, below a menu bar of `menu` height.
struct Layout {
  Frame tree;
  Frame table;
  Frame watch;
  Frame object;
  Frame status;
};

// A size the user set (`wanted` > 0) or the default, kept within [low, high].
float pane_size(float wanted, float fallback, float low, float high) {
  return std::clamp(wanted > 0 ? wanted : fallback, low, std::max(low, high));
}

Layout layout(ImVec2 size, float menu, float font, const app::PaneSizes& panes) {
  const float status_height = font + ImGui::GetStyle().FramePadding.y * 2.0f + 2.0f;
  const float top = menu;
  const float body = std::max(100.0f, size.y - top - status_height);
  const float tree_width = pane_size(panes.tree_width,
                                     std::clamp(size.x * 0.17f, font * 13.0f, font * 20.0f),
                                     font * 8.0f, size.x * 0.4f);
  const float object_width = pane_size(
      panes.object_width, std::clamp(size.x * 0.31f, font * 20.0f, font * 44.0f), font * 12.0f,
      size.x - tree_width - font * 16.0f);
  const float middle = std::max(100.0f, size.x - tree_width - object_width);
  const float table_height =
      body - pane_size(panes.watch_height, body - std::floor(body * 0.66f), font * 5.0f,
                       body - font * 6.0f);
  Layout l;
  l.tree = {ImVec2(0, top), ImVec2(tree_width, body)};
  l.table = {ImVec2(tree_width, top), ImVec2(middle, table_height)};
  l.watch = {ImVec2(tree_width, top + table_height), ImVec2(middle, body - table_height)};
  l.object = {ImVec2(tree_width + middle, top), ImVec2(size.x - tree_width - middle, body)};
  l.status = {ImVec2(0, top + body), ImVec2(size.x, status_height)};
  return l;
}

// A bar between two panes that the mouse drags (`vertical`: a bar dragged left and right).
// Returns how far it moved this frame; a double click returns `reset` = true (the default size).
float splitter(const char* id, ImVec2 pos, ImVec2 size, bool vertical, bool& reset) {
  ImGui::SetNextWindowPos(pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(size, ImGuiCond_Always);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
  ImGui::Begin(id, nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove);
  ImGui::InvisibleButton("##bar", size);
  const bool active = ImGui::IsItemActive();
  const bool hovered = ImGui::IsItemHovered();
  reset = hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left);
  if (active || hovered) {
    ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
    const ImVec4 colour = ImGui::GetStyle().Colors[active ? ImGuiCol_SeparatorActive
                                                          : ImGuiCol_SeparatorHovered];
    const ImVec2 centre(pos.x + size.x * 0.5f, pos.y + size.y * 0.5f);
    ImGui::GetWindowDrawList()->AddLine(
        vertical ? ImVec2(centre.x, pos.y) : ImVec2(pos.x, centre.y),
        vertical ? ImVec2(centre.x, pos.y + size.y) : ImVec2(pos.x + size.x, centre.y),
        ImGui::ColorConvertFloat4ToU32(colour), 2.0f);
  }
  const float moved = active ? (vertical ? ImGui::GetIO().MouseDelta.x : ImGui::GetIO().MouseDelta.y)
                             : 0.0f;
  ImGui::End();
  ImGui::PopStyleVar(3);
  return moved;
}

// The splitters between tree | table and watch | object, and between table and watch; dragging
// one sets that pane's size in `panes` (what console.ini keeps).
void draw_splitters(const Layout& l, app::PaneSizes& panes) {
  constexpr float kGrip = 6.0f;
  bool reset = false;
  const float tree = splitter("##split-tree", ImVec2(l.table.pos.x - kGrip * 0.5f, l.tree.pos.y),
                              ImVec2(kGrip, l.tree.size.y), true, reset);
  if (reset) {
    panes.tree_width = 0;
  } else if (tree != 0.0f) {
    panes.tree_width = l.tree.size.x + tree;
  }
  const float object =
      splitter("##split-object", ImVec2(l.object.pos.x - kGrip * 0.5f, l.object.pos.y),
               ImVec2(kGrip, l.object.size.y), true, reset);
  if (reset) {
    panes.object_width = 0;
  } else if (object != 0.0f) {
    panes.object_width = l.object.size.x - object;
  }
  const float watch =
      splitter("##split-watch", ImVec2(l.watch.pos.x, l.watch.pos.y - kGrip * 0.5f),
               ImVec2(l.watch.size.x, kGrip), false, reset);
  if (reset) {
    panes.watch_height = 0;
  } else if (watch != 0.0f) {
    panes.watch_height = l.watch.size.y - watch;
  }
}

// Keys that act wherever the focus is (the table's own keys are in ObjectTableWindow).
void global_keys(app::ConsoleState& state, bool& quit) {
  ImGuiIO& io = ImGui::GetIO();
  if (ctrl_pressed(GLFW_KEY_F)) {
    state.view_options().focus_filter = true;
  }
  if (ctrl_pressed(GLFW_KEY_S) && state.editing()) {
    state.submit_editor();
  }
  if (ctrl_pressed(GLFW_KEY_N) && !state.editing()) {
    state.begin_create();
  }
  if (ctrl_pressed(GLFW_KEY_Q)) {
    quit = true;
  }
  if (key_pressed(GLFW_KEY_F1)) {
    state.view_options().show_help = !state.view_options().show_help;
  }
  if (key_pressed(GLFW_KEY_F5)) {
    state.refresh_discovery();
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Delete), false) && !io.WantTextInput &&
      !state.editing()) {
    state.request_delete();
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    if (state.view_options().show_help) {
      state.view_options().show_help = false;
    } else if (state.delete_pending_confirmation()) {
      state.cancel_delete();
    } else if (state.editing()) {
      state.cancel_edit();
    } else if (state.event_history()) {
      state.close_event();
    } else if (io.WantTextInput) {
      ImGui::SetWindowFocus(nullptr);
    }
  }
}

void draw_menu(app::ConsoleState& state, bool& quit, const Fonts& fonts) {
  if (!ImGui::BeginMainMenuBar()) {
    return;
  }
  ImGui::PushFont(fonts.bold);
  ImGui::TextColored(palette().accent, "kube-sandbox console");
  ImGui::PopFont();
  ImGui::Spacing();
  if (ImGui::BeginMenu("Cluster")) {
    if (ImGui::MenuItem("Refresh kinds", "F5")) {
      state.refresh_discovery();
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) {
      quit = true;
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Light theme", nullptr, &state.view_options().light_theme);
    ImGui::MenuItem("Help", "F1", &state.view_options().show_help);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::MenuItem("Keyboard shortcuts", "F1", &state.view_options().show_help);
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

// Terminates GLFW on every return; a close request may no longer wake it from then on.
struct GlfwGuard {
  explicit GlfwGuard(CloseRequest* close) : close_(close) {
    if (close_ != nullptr) {
      close_->set_loop_running(true);
    }
  }
  ~GlfwGuard() {
    if (close_ != nullptr) {
      close_->set_loop_running(false);
    }
    glfwTerminate();
  }
  GlfwGuard(const GlfwGuard&) = delete;
  GlfwGuard& operator=(const GlfwGuard&) = delete;
  CloseRequest* close_;
};

std::string g_glfw_error;  // the last GLFW error text, for messages; main thread only

// Input. GLFW calls these on the main thread, inside glfwPollEvents/glfwWaitEvents*.
// ImGui 1.86 reads key state once per frame, so a key pressed and released between two frames
// (a quick tap, or xdotool) would be missed: key events are queued here and fed to ImGui at most
// one change per key per frame. Anything that arrives also marks the UI active so it redraws.
struct KeyEvent {
  int key;
  int scancode;
  int action;
  int mods;
};
std::vector<KeyEvent> g_keys;  // main thread only
bool g_input = false;          // input arrived since the last frame; main thread only

void on_key(GLFWwindow*, int key, int scancode, int action, int mods) {
  g_keys.push_back(KeyEvent{key, scancode, action, mods});
  g_input = true;
}
void on_char(GLFWwindow* window, unsigned int c) {
  ImGui_ImplGlfw_CharCallback(window, c);
  g_input = true;
}
void on_mouse_button(GLFWwindow* window, int button, int action, int mods) {
  ImGui_ImplGlfw_MouseButtonCallback(window, button, action, mods);
  g_input = true;
}
void on_scroll(GLFWwindow* window, double x, double y) {
  ImGui_ImplGlfw_ScrollCallback(window, x, y);
  g_input = true;
}
void on_cursor_pos(GLFWwindow*, double, double) {
  g_input = true;
}
void on_cursor_enter(GLFWwindow* window, int entered) {
  ImGui_ImplGlfw_CursorEnterCallback(window, entered);
  g_input = true;
}
void on_focus(GLFWwindow* window, int focused) {
  ImGui_ImplGlfw_WindowFocusCallback(window, focused);
  g_input = true;
}

void install_input_callbacks(GLFWwindow* window) {
  glfwSetKeyCallback(window, on_key);
  glfwSetCharCallback(window, on_char);
  glfwSetMouseButtonCallback(window, on_mouse_button);
  glfwSetScrollCallback(window, on_scroll);
  glfwSetCursorPosCallback(window, on_cursor_pos);
  glfwSetCursorEnterCallback(window, on_cursor_enter);
  glfwSetWindowFocusCallback(window, on_focus);
}

// Presses batch into one frame; a release waits for a frame of its own, so that ctrl (pressed,
// then released right after Q) is still down in the frame that sees Q.
void feed_keys(GLFWwindow* window) {
  std::vector<int> changed;
  size_t fed = 0;
  for (; fed < g_keys.size(); ++fed) {
    const KeyEvent& e = g_keys[fed];
    const bool repeated = std::find(changed.begin(), changed.end(), e.key) != changed.end();
    if (repeated || (e.action == GLFW_RELEASE && fed > 0)) {
      break;  // the rest waits for the next frame
    }
    changed.push_back(e.key);
    ImGui_ImplGlfw_KeyCallback(window, e.key, e.scancode, e.action, e.mods);
  }
  g_keys.erase(g_keys.begin(), g_keys.begin() + static_cast<std::ptrdiff_t>(fed));
}

void remember_glfw_error(int, const char* description) {
  g_glfw_error = description != nullptr ? description : "";
}

}  // namespace

void CloseRequest::request() {
  requested_.store(true);
  std::lock_guard lock(mutex_);
  if (loop_running_) {
    glfwPostEmptyEvent();  // thread-safe while GLFW is initialised
  }
}

void CloseRequest::set_loop_running(bool running) {
  std::lock_guard lock(mutex_);
  loop_running_ = running;
}

int run_console(const client::ClusterAccess& access, const RunOptions& options, std::ostream& err) {
  std::unique_ptr<app::ScriptRunner> runner;
  const bool scripted = !options.script_path.empty();
  if (scripted) {
    std::ifstream in(options.script_path, std::ios::binary);
    if (!in) {
      err << "kube-sandbox console: script " << options.script_path << ": cannot be read\n";
      return 1;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    auto commands = app::parse_script(text);
    if (!commands.ok()) {
      err << "kube-sandbox console: script " << options.script_path << ": " << commands.error()
          << "\n";
      return 1;
    }
    app::ScriptOptions script_options;
    script_options.script_dir = fs::path(options.script_path).parent_path().string();
    script_options.screenshot_dir = options.screenshot_dir;
    script_options.state_dump_path = options.state_dump_path;
    runner = std::make_unique<app::ScriptRunner>(std::move(*commands), script_options);
  }

  FrameStats frame_stats;
  if (!options.frame_stats_path.empty()) {
    if (auto error = frame_stats.open(options.frame_stats_path)) {
      err << "kube-sandbox console: --frame-stats: " << *error << "\n";
      return 1;
    }
  }

  app::ConsoleSettings settings;
  if (!options.settings_path.empty()) {
    std::vector<std::string> warnings;
    if (auto loaded = app::load_settings(options.settings_path, &warnings); loaded.ok()) {
      settings = std::move(*loaded);
    } else {
      err << "kube-sandbox console: " << loaded.error() << " (the defaults are used)\n";
    }
    for (const std::string& warning : warnings) {
      err << "kube-sandbox console: " << options.settings_path << ": " << warning << "\n";
    }
  }
  int window_width = options.width;
  int window_height = options.height;
  if (!options.size_given && settings.window_size) {
    window_width = std::max(320, settings.window_size->first);
    window_height = std::max(240, settings.window_size->second);
  }

  glfwSetErrorCallback(remember_glfw_error);
  if (glfwInit() == GLFW_FALSE) {
    err << "kube-sandbox console: cannot open a window: " << g_glfw_error
        << " (a desktop session or a virtual display such as xvfb-run is needed)\n";
    return kCannotOpenWindow;
  }
  GlfwGuard glfw_guard{options.close_request};
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  const std::string title = "kube-sandbox console — " + access.context + " (" + access.server + ")";
  GLFWwindow* window =
      glfwCreateWindow(window_width, window_height, title.c_str(), nullptr, nullptr);
  if (window == nullptr) {
    err << "kube-sandbox console: cannot create an OpenGL 3.3 window: " << g_glfw_error << "\n";
    return kCannotOpenWindow;
  }
  if (settings.window_pos) {
    glfwSetWindowPos(window, settings.window_pos->first, settings.window_pos->second);
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // ImGui's settings go to console.ini with the console's own
  if (!settings.imgui.empty()) {
    ImGui::LoadIniSettingsFromMemory(settings.imgui.c_str(), settings.imgui.size());
  }
  if (scripted) {
    // The script does what the mouse would; a pointer parked over a row would show as hover.
    io.ConfigFlags |= ImGuiConfigFlags_NoMouse;
  }
  float scale_x = 1.0f;
  float scale_y = 1.0f;
  glfwGetWindowContentScale(window, &scale_x, &scale_y);
  const float scale = std::max(1.0f, scale_x);
  const Fonts fonts = load_fonts(scale);
  bool light = false;
  apply_theme(light, scale);
  ImGui_ImplGlfw_InitForOpenGL(window, false);
  install_input_callbacks(window);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  int exit_code = 0;
  {
    client::SessionOptions session_options;
    session_options.wake = [] { glfwPostEmptyEvent(); };  // thread-safe in GLFW
    client::ClusterSession session(access, session_options);
    app::ConsoleState state(session);
    state.apply_settings(settings);
    state.start(unix_ms());
    // console.ini as it is now: the state's part, the window's geometry, ImGui's settings.
    const auto current_settings = [&state, window] {
      app::ConsoleSettings now;
      state.fill_settings(now);
      int x = 0;
      int y = 0;
      glfwGetWindowSize(window, &x, &y);
      if (x > 0 && y > 0) {
        now.window_size = std::make_pair(x, y);
      }
      glfwGetWindowPos(window, &x, &y);
      now.window_pos = std::make_pair(x, y);
      now.imgui = ImGui::SaveIniSettingsToMemory();
      return now;
    };
    app::ConsoleSettings saved = settings;
    int64_t settings_checked_ms = 0;
    const auto save_settings = [&](bool finally) {
      if (options.settings_path.empty()) {
        return;
      }
      app::ConsoleSettings now = current_settings();
      if (now == saved && !finally) {
        return;
      }
      if (auto error = app::save_settings(options.settings_path, now)) {
        err << "kube-sandbox console: " << *error << "\n";
      }
      saved = std::move(now);
    };
    ResourceTreeWindow tree_window;
    ObjectTableWindow table_window;
    WatchWindow watch_window;
    ObjectPane object_pane;
    StatusBar status_bar;
    HelpWindow help_window;

    bool quit = false;
    int active_frames = 3;  // frames still to draw after the last input or update
    const auto close_requested = [&options] {
      return options.close_request != nullptr && options.close_request->requested();
    };
    while (!quit && glfwWindowShouldClose(window) == GLFW_FALSE && !close_requested()) {
      if (scripted) {
        glfwPollEvents();
      } else {
        // Draw at 60 Hz while something moves (input, updates, highlighted rows); otherwise
        // sleep until input or the network wakes the loop, or a second passes (ages tick).
        const bool highlighting = unix_ms() - state.last_change_ms() < state.options().highlight_ms;
        const bool busy = active_frames > 0 || highlighting || !g_keys.empty();
        glfwWaitEventsTimeout(busy ? 1.0 / 60.0 : 1.0);
      }
      frame_stats.begin_frame();
      const int64_t now = unix_ms();
      const size_t arrived = state.update(now);
      if (arrived > 0 || g_input) {
        active_frames = 3;
      } else if (active_frames > 0) {
        --active_frames;
      }
      g_input = false;
      feed_keys(window);
      app::ScriptStep step;
      if (runner) {
        step = runner->step(state, now);
        if (step.kind == app::ScriptStep::Kind::Failed) {
          err << "kube-sandbox console: " << step.message << "\n";
          exit_code = 1;
          if (!options.screenshot_dir.empty()) {
            step.kind = app::ScriptStep::Kind::Screenshot;  // what the screen showed, for triage
            step.path = (fs::path(options.screenshot_dir) / "failure.png").string();
          }
          quit = true;
        } else if (step.kind == app::ScriptStep::Kind::Done) {
          quit = true;
        }
      }
      if (state.view_options().light_theme != light) {
        light = state.view_options().light_theme;
        apply_theme(light, scale);
      }

      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      global_keys(state, quit);
      draw_menu(state, quit, fonts);
      const float menu_height = ImGui::GetFrameHeight();
      const Layout l = layout(io.DisplaySize, menu_height, ImGui::GetFontSize(),
                              state.view_options().panes);
      tree_window.draw(state, l.tree);
      table_window.draw(state, l.table);
      watch_window.draw(state, l.watch);
      object_pane.draw(state, l.object, fonts);
      status_bar.draw(state, l.status);
      draw_splitters(l, state.view_options().panes);
      help_window.draw(state, fonts);
      ImGui::Render();

      int width = 0;
      int height = 0;
      glfwGetFramebufferSize(window, &width, &height);
      glViewport(0, 0, width, height);
      const ImVec4 clear = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
      glClearColor(clear.x, clear.y, clear.z, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      if (step.kind == app::ScriptStep::Kind::Screenshot) {
        if (auto error = save_screenshot(window, step.path)) {
          err << "kube-sandbox console: screenshot: " << *error << "\n";
          exit_code = 1;
          quit = true;
        }
      }
      glfwSwapBuffers(window);
      frame_stats.end_frame(arrived);
      if (scripted) {
        // Xvfb does not pace swaps; a script needs no more than ~60 frames a second.
        std::this_thread::sleep_for(std::chrono::milliseconds(15));
      }
      if (now - settings_checked_ms >= 2000) {
        settings_checked_ms = now;
        save_settings(false);
      }
    }
    if (auto error = frame_stats.close()) {
      err << "kube-sandbox console: --frame-stats: " << *error << "\n";
      exit_code = 1;
    }
    save_settings(true);
    if (!options.state_dump_path.empty()) {
      std::ofstream out(options.state_dump_path, std::ios::trunc);
      out << state.dump().dump(2) << "\n";
      if (!out) {
        err << "kube-sandbox console: cannot write " << options.state_dump_path << "\n";
        exit_code = 1;
      }
    }
  }  // the session's threads stop here

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  return exit_code;
}

}  // namespace console::ui
