// What a delete makes of an object before the store writes anything, as pure functions over its
// JSON: graceful deletion (upstream's rest.BeforeDelete with the kind's CheckGracefulDelete), the
// garbage collector's finalizers (the generic store's deletionFinalizersForGarbageCollection) and
// the mark an object held by finalizers gets (markAsDeleting). delete.cpp strings them together.
//
// Worked example: a pod on node "n1" with terminationGracePeriodSeconds 30, deleted at 10:00:00
// with no options, gets deletionTimestamp 10:00:30 and deletionGracePeriodSeconds 30 (graceful,
// period 30). A second delete with gracePeriodSeconds=5 at 10:00:02 moves it to 10:00:05 (period
// 5); one with gracePeriodSeconds=60 changes nothing (pending). A Deployment deleted with
// propagationPolicy=Foreground gets the finalizer "foregroundDeletion" and, held by it,
// deletionTimestamp now and deletionGracePeriodSeconds 0.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "registry/kind_strategy.h"

namespace apiserver::registry {

// A delete's first step for kinds with graceful deletion.
struct GracefulStep {
  // This delete set (or moved) the object's deletionTimestamp and deletionGracePeriodSeconds.
  bool graceful = false;
  // A graceful deletion is under way and this delete would not end it sooner: nothing changes.
  bool pending = false;
  // With `graceful`: the grace period now in force (0: the object may go at once).
  int64_t period = 0;
};

// Applies graceful deletion to `object` for a delete at `now` asking `requested` seconds (nullopt:
// not said). A negative request, or a negative deletionGracePeriodSeconds already stored, counts
// as 1. Nothing happens for a kind without graceful deletion (`strategy` null or without
// grace_period), or for an object marked without a grace period (or with 0), which goes on to the
// finalizer rules. A first graceful delete also counts a tracked generation up.
GracefulStep begin_graceful_delete(const KindStrategy* strategy, nlohmann::json& object,
                                   std::optional<int64_t> requested,
                                   std::chrono::system_clock::time_point now);

// The finalizers the object should carry for the garbage collector after this delete, or nullopt
// when they stay as they are. "orphan" and "foregroundDeletion" are taken out and put back as
// the request (orphanDependents, else propagationPolicy), else the one already there, else the
// kind's default policy says; other finalizers keep their order.
std::optional<nlohmann::json> gc_finalizers(GcPolicy policy, const nlohmann::json& metadata,
                                            std::optional<bool> orphan_dependents,
                                            const std::optional<std::string>& propagation_policy);

// Marks an object that finalizers hold: deletionTimestamp `now` unless an earlier one is set,
// deletionGracePeriodSeconds 0, and a tracked generation counted up the first time.
void mark_as_deleting(nlohmann::json& metadata, std::chrono::system_clock::time_point now);

// Whether metadata.finalizers names any finalizer.
bool has_finalizers(const nlohmann::json& metadata);

}  // namespace apiserver::registry
