// The console's script language, for tests and for documentation screenshots: one command per
// line, run one per frame against the same ConsoleState the windows use, so a script exercises
// exactly what a person's clicks do. Waits poll once per frame and fail the run after the
// current timeout with a message naming the line and what was seen instead.
//
//   # comment; blank lines are skipped
//   timeout 20                    seconds for every wait after it (default 30)
//   select-kind configmaps        waits for discovery and the kind's first LIST
//   namespace default             waits until the namespace is listed; "all" for every one
//   filter app=web                the table's filter (the rest of the line; none clears it)
//   sort Name desc                by a column's title; asc (default) or desc
//   wait-rows 3                   until the table shows exactly 3 rows (also >=3, <=3)
//   wait-event ADDED configmaps default/cm1
//   wait-field default/cm1 data.key value
//   open default/cm1              waits for the row, then selects it (the object pane shows it)
//   select-event MODIFIED configmaps default/cm1
//                                 waits for such an event, then opens the latest in the object
//                                 pane: the object as of it and the diff against the version before
//   edit                          fills the editor with the open object
//   edit-set data.key "new value" sets a field in the editor's YAML (the value is a string)
//   edit-text "a: b\nc: d"        replaces the editor's text (\n, \" and \\ escapes)
//   edit-load file.yaml           replaces it with a file's (relative to the script)
//   force on                      the editor's Force checkbox
//   apply                         sends the editor and waits for the answer
//   new                           what Ctrl+N does: the editor on a template of the shown kind
//   duplicate                     the editor on a copy of the open object, renamed
//   create                        sends the new object (POST) and waits for the answer
//   replace                       sends the edited object (PUT, with the resourceVersion the edit
//                                 began from) and waits for the answer
//   expect-apply ok               the last apply, create, replace or delete succeeded (or:
//                                 expect-apply Conflict, the reason it failed with)
//   delete                        asks for confirmation;  confirm  sends it and waits
//   cancel                        what Esc does: closes the confirmation or the editor
//   events pause | events resume  the watch stream window
//   event-types ADDED DELETED     the event types the watch window shows
//   help on | help off            the Help window;  theme dark | theme light
//   favourite deployments on      pins a kind on top of the resource tree (off unpins it)
//   pane tree 300                 a pane's size in pixels as a splitter sets it (tree and object:
//                                 width; watch: height; 0 the default)
//   frames 30                     draws 30 frames (to let a highlight show)
//   scroll 40 600                 moves the selection 40 rows down (negative: up) in each of
//                                 600 frames, as the arrow keys do; the table follows it
//   screenshot NAME               saves the frame as NAME.png in --screenshot-dir
//   dump-state [FILE]             the state as JSON to FILE (default: --state-dump's file)
//   quit                          ends the run (as does the end of the script)
//
// Arguments are separated by spaces; "double quotes" keep spaces. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "console/app/console_state.h"

namespace console::app {

struct ScriptCommand {
  size_t line = 0;
  std::string name;
  std::vector<std::string> args;
  std::string text;  // the line as written
};

// Parses a script: its commands, or the error ("line 4: unknown command \"slect-kind\"") on an
// unknown command, a wrong number of arguments or an unclosed quote.
common::Result<std::vector<ScriptCommand>> parse_script(std::string_view text);

struct ScriptStep {
  enum class Kind {
    Continue,    // draw this frame; call step() again next frame
    Screenshot,  // draw this frame and save it as `path`, then continue
    Done,        // the script ended (quit or its last line)
    Failed,      // stop with `message` and a non-zero exit
  };
  Kind kind = Kind::Continue;
  std::string path;
  std::string message;
};

struct ScriptOptions {
  std::string script_dir;       // edit-load's files are relative to it
  std::string screenshot_dir;   // screenshot's; empty: screenshot fails
  std::string state_dump_path;  // dump-state's default file
  int64_t default_timeout_ms = 30000;
  int settle_frames = 3;  // frames drawn before a screenshot, so layouts settle
};

class ScriptRunner {
 public:
  ScriptRunner(std::vector<ScriptCommand> commands, ScriptOptions options);

  // Runs the current command for this frame (`now_ms` wall-clock Unix time).
  ScriptStep step(ConsoleState& state, int64_t now_ms);
  // The line being run (1-based), for messages; 0 when done.
  size_t current_line() const;

 private:
  enum class Outcome { Next, Pending, Screenshot, Quit, Failed };
  // `first`: the command's first frame.
  Outcome run(const ScriptCommand& command, ConsoleState& state, int64_t now_ms, bool first,
              std::string& detail);
  // Writes the state's dump to `path`: the error, or nullopt once written.
  std::optional<std::string> write_state(const ConsoleState& state, const std::string& path) const;

  std::vector<ScriptCommand> commands_;
  ScriptOptions options_;
  size_t index_ = 0;
  bool started_ = false;  // the current command has run at least once
  int64_t started_ms_ = 0;
  int64_t timeout_ms_;
  int frames_left_ = 0;
  uint64_t answered_before_ = 0;  // actions_answered() when apply/confirm sent
};

}  // namespace console::app
