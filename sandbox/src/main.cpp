// kube-sandbox: the composition root. Everything it runs lives in the libraries; this file only
// turns argv into a call.
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "apiserver/thread_stacks.h"
#include "cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Installed (linked) under etcd's or kube-apiserver's name, the binary is that command: test
  // harnesses that start them from a directory of binaries (envtest's KUBEBUILDER_ASSETS) run it.
  if (argc > 0) {
    const std::string name = std::filesystem::path(argv[0]).filename().string();
    if (name == "etcd" || name == "kube-apiserver") {
      args.insert(args.begin(), name);
    }
  }
  // Before any thread starts: threads that run request code need room for deep client JSON.
  apiserver::set_default_thread_stack(apiserver::kRequestThreadStackBytes);
  try {
    return sandbox::run_cli(args, std::cout, std::cerr);
  } catch (const std::exception& e) {
    // Start-up failures may throw; they end here with a message, never a crash.
    std::cerr << "kube-sandbox: " << e.what() << "\n";
    return sandbox::kExitFailure;
  }
}
