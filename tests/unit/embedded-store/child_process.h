// Runs the store_helper executable as a child process (fork + exec) and reads its stdout by lines
// with deadlines. Only async-signal-safe calls happen between fork and exec.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace store_test {

#ifndef KS_STORE_HELPER
#error "KS_STORE_HELPER must name the store_helper executable"
#endif
inline const char* const kHelperPath = KS_STORE_HELPER;

class ChildProcess {
 public:
  explicit ChildProcess(std::vector<std::string> args) {
    args.insert(args.begin(), kHelperPath);
    std::vector<char*> argv;
    for (auto& arg : args) {
      argv.push_back(arg.data());
    }
    argv.push_back(nullptr);

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], STDOUT_FILENO);  // dup2 clears O_CLOEXEC on the copy
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    if (pid_ < 0) {
      ::close(fds[0]);
      return;
    }
    out_ = fds[0];
  }

  ~ChildProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
    if (out_ >= 0) {
      ::close(out_);
    }
  }

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0 && out_ >= 0; }

  // The next complete line of the child's stdout, or nullopt at end of file or after `timeout`.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      if (eof_) {
        return std::nullopt;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() < 0) {
        return std::nullopt;
      }
      pollfd pfd{out_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) {
        continue;
      }
      if (ready <= 0) {
        return std::nullopt;
      }
      char chunk[4096];
      ssize_t n = ::read(out_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        eof_ = true;  // a partial last line (the child died mid-write) is dropped
        continue;
      }
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  void kill(int signal) {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, signal);
    }
  }

  // Waits for the child to end; returns its exit code, or 128 + the signal that ended it.
  int wait() {
    if (pid_ <= 0) {
      return -1;
    }
    if (!exited_) {
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      exited_ = true;
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool eof_ = false;
  bool exited_ = false;
  int status_ = -1;
  std::string buffer_;
};

}  // namespace store_test
