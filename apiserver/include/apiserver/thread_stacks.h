#pragma once

#include <cstddef>

namespace apiserver {

// Request code walks client JSON as deep as Go's decoder lets a body nest (10,000 levels), and
// nlohmann::json copies and serialises values recursively. At that depth glibc's default 8 MiB
// thread stack is not always enough (a sanitizer build's frames are several times larger), so
// every thread that can run request code gets this much. It is address space, not memory: pages
// are only committed as a walk actually reaches them.
inline constexpr std::size_t kRequestThreadStackBytes = 64u << 20;

// Makes `bytes` the stack size of every thread the process creates after the call (std::thread,
// Asio's pool, the store's loops). Call it from main before the first thread starts. Returns false,
// and changes nothing, when the system refuses the size.
bool set_default_thread_stack(std::size_t bytes);

}  // namespace apiserver
