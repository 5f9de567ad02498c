// The server under test: one `kube-sandbox serve` child process, what its ready file says, and
// its memory and CPU as /proc reports them.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "apiserver_bench.h"

namespace apiserver_bench {

// The whole file; empty when it cannot be read.
std::string read_text(const fs::path& path);

// The last `bytes` of `text`, after "..." when that cuts it.
std::string tail(const std::string& text, size_t bytes);

// A few lines of /proc/<pid>/status and /proc/<pid>/stat.
struct ProcStats {
  int64_t vm_rss_kb = 0;
  int64_t vm_hwm_kb = 0;
  int64_t rss_anon_kb = 0;
  int64_t rss_file_kb = 0;
  int threads = 0;
};

ProcStats proc_stats(pid_t pid);

// User + system CPU seconds the process has used so far.
double cpu_seconds(pid_t pid);

struct Endpoint {
  std::string url;
  std::string host;
  std::string port;
  fs::path ca_file;
  fs::path data_dir;
  std::string token;
};

// One `kube-sandbox serve` child. Killed (SIGKILL) by the destructor if still running.
class ServerProcess {
 public:
  ServerProcess(const fs::path& binary, const std::vector<std::string>& args,
                const fs::path& ready_file, const fs::path& log_file)
      : ready_file_(ready_file), log_file_(log_file) {
    fs::remove(ready_file);
    // Watch the ready file's directory before the child exists, so its creation is not missed.
    inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0 || inotify_add_watch(inotify_fd_, ready_file.parent_path().c_str(),
                                             IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
      throw BenchError("inotify on " + ready_file.parent_path().string() + ": " +
                       std::strerror(errno));
    }
    std::vector<std::string> argv_text = {binary.string()};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv_ptrs;
    for (auto& a : argv_text) {
      argv_ptrs.push_back(a.data());
    }
    argv_ptrs.push_back(nullptr);
    started_ = Clock::now();
    pid_ = fork();
    if (pid_ < 0) {
      throw BenchError(std::string("fork: ") + std::strerror(errno));
    }
    if (pid_ == 0) {
      int log = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
      }
      execv(argv_ptrs[0], argv_ptrs.data());
      _exit(127);
    }
  }

  ~ServerProcess() {
    if (running()) {
      kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    if (inotify_fd_ >= 0) {
      close(inotify_fd_);
    }
  }

  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  pid_t pid() const { return pid_; }
  Clock::time_point started() const { return started_; }

  bool running() {
    if (exited_) {
      return false;
    }
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      exit_status_ = status;
      return false;
    }
    return r == 0;
  }

  // Waits (inotify, no busy polling) for the ready file; returns when it exists.
  Clock::time_point wait_for_ready_file(std::chrono::seconds cap) {
    auto deadline = Clock::now() + cap;
    while (true) {
      if (fs::exists(ready_file_)) {
        return Clock::now();
      }
      if (!running()) {
        throw BenchError("serve exited before it was ready (" + describe_exit() + "); log:\n" +
                         tail(read_text(log_file_), 2000));
      }
      if (Clock::now() > deadline) {
        throw BenchError("no ready file after " + std::to_string(cap.count()) + " s");
      }
      pollfd p{inotify_fd_, POLLIN, 0};
      if (poll(&p, 1, 10) > 0) {
        char events[4096];
        while (read(inotify_fd_, events, sizeof events) > 0) {
        }
      }
    }
  }

  // SIGTERM, then SIGKILL after `grace`. Returns the milliseconds it took to exit; throws unless
  // it exited with status 0.
  double stop(std::chrono::seconds grace) {
    auto t0 = Clock::now();
    if (running()) {
      kill(pid_, SIGTERM);
      auto deadline = t0 + grace;
      while (running() && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      if (running()) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
        exited_ = true;
        exit_status_ = status;
        throw BenchError("serve did not exit within " + std::to_string(grace.count()) +
                         " s of SIGTERM (killed); log:\n" + tail(read_text(log_file_), 2000));
      }
    }
    double ms = ms_since(t0, Clock::now());
    if (!WIFEXITED(exit_status_) || WEXITSTATUS(exit_status_) != 0) {
      throw BenchError("serve " + describe_exit() + " on SIGTERM; log:\n" +
                       tail(read_text(log_file_), 2000));
    }
    return ms;
  }

 private:
  std::string describe_exit() const {
    if (WIFEXITED(exit_status_)) {
      return "exited " + std::to_string(WEXITSTATUS(exit_status_));
    }
    if (WIFSIGNALED(exit_status_)) {
      return std::string("was killed by ") + strsignal(WTERMSIG(exit_status_));
    }
    return "ended";
  }

  fs::path ready_file_;
  fs::path log_file_;
  pid_t pid_ = -1;
  int inotify_fd_ = -1;
  bool exited_ = false;
  int exit_status_ = 0;
  Clock::time_point started_;
};

// Where the ready file says the server listens, its CA and its data directory.
Endpoint read_ready_file(const fs::path& path);

}  // namespace apiserver_bench
