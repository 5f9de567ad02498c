// client-go's controller "expectations": after a sync creates or deletes pods, the controller
// does not count its pods again until the informer shows what it did (or five minutes pass), so
// a stale cache never makes it create or delete twice.
//
// Threads: any; one mutex protects the map.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "client/informer.h"

namespace cluster {

class PodExpectations {
 public:
  explicit PodExpectations(const Informer& pods) : pods_(pods) {}

  // The pods `key`'s last sync created and deleted (names, in the key's namespace).
  void expect(const std::string& key, std::set<std::string> creating,
              std::set<std::string> deleting);
  // True when every pod expected for `key` shows in the informer (created) or is gone or being
  // deleted (deleted), or the expectations are five minutes old.
  bool satisfied(const std::string& key);
  void forget(const std::string& key);

 private:
  struct Pending {
    std::set<std::string> creating;
    std::set<std::string> deleting;
    std::chrono::steady_clock::time_point since;
  };
  const Informer& pods_;
  std::mutex mu_;  // protects pending_
  std::map<std::string, Pending> pending_;
};

}  // namespace cluster
