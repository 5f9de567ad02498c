#include "apiserver/thread_stacks.h"

#include <pthread.h>

namespace apiserver {

bool set_default_thread_stack(std::size_t bytes) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) {
    return false;
  }
  bool ok = pthread_attr_setstacksize(&attr, bytes) == 0 && pthread_setattr_default_np(&attr) == 0;
  pthread_attr_destroy(&attr);
  return ok;
}

}  // namespace apiserver
