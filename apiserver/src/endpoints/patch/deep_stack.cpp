#include "endpoints/patch/deep_stack.h"

#include <pthread.h>

#include <algorithm>

#include <exception>
#include <system_error>
#include <vector>

namespace apiserver::endpoints::patch {

std::size_t json_depth(const nlohmann::json& value) {
  std::size_t deepest = 0;
  std::vector<std::pair<const nlohmann::json*, std::size_t>> pending{{&value, 0}};
  while (!pending.empty()) {
    auto [node, above] = pending.back();
    pending.pop_back();
    if (!node->is_structured()) {
      deepest = std::max(deepest, above);
      continue;
    }
    deepest = std::max(deepest, above + 1);
    for (const auto& child : *node) {
      if (child.is_structured()) {
        pending.emplace_back(&child, above + 1);
      }
    }
  }
  return deepest;
}

namespace {

struct Job {
  const std::function<void()>* fn;
  std::exception_ptr error;
};

void* run_job(void* arg) {
  auto* job = static_cast<Job*>(arg);
  try {
    (*job->fn)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

void run_on_deep_stack(const std::function<void()>& fn) {
  pthread_attr_t attr;
  if (int e = pthread_attr_init(&attr); e != 0) {
    throw std::system_error(e, std::generic_category(), "pthread_attr_init");
  }
  int e = pthread_attr_setstacksize(&attr, kDeepStackBytes);
  Job job{&fn, nullptr};
  pthread_t thread;
  if (e == 0) {
    e = pthread_create(&thread, &attr, run_job, &job);
  }
  pthread_attr_destroy(&attr);
  if (e != 0) {
    throw std::system_error(e, std::generic_category(), "starting a deep-stack thread");
  }
  pthread_join(thread, nullptr);
  if (job.error) {
    std::rethrow_exception(job.error);
  }
}

}  // namespace apiserver::endpoints::patch
