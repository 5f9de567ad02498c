// One admission chain over an ephemeral store, without the rest of the server: objects are put
// straight into storage (with the creationTimestamp a test chooses), and each request's
// attributes are built by hand, so a plugin's cases can be tried one by one, with the chain
// holding the plugin or not. The authorizers are one mode (AlwaysAllow or AlwaysDeny).
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "admission/chain.h"
#include "apiserver/registry.h"
#include "authorization/authorizer.h"
#include "authorization/node_authorizer.h"
#include "authorization/node_graph.h"
#include "authorization/policy_cache.h"
#include "common/clock.h"
#include "storage/storage.h"
#include "store/store.h"

namespace apiserver::testing {

class AdmissionBench {
 public:
  explicit AdmissionBench(authorization::Mode mode = authorization::Mode::AlwaysAllow,
                          const std::string& runtime_config = "")
      : store_(open_store()),
        storage_(*store_),
        registry_(registry::Registry::builtin(served(runtime_config))),
        policy_(storage_),
        graph_(storage_),
        node_(graph_, {}),
        authorizer_({mode}, policy_, node_),
        services_{storage_, [this] { return registry_->snapshot(); }, authorizer_, clock_} {}

  // The served row of `group`/`resource` (its preferred version).
  const registry::Resource& row(const std::string& group, const std::string& resource) {
    for (const auto& r : snapshot_->resources()) {
      if (r.group == group && r.resource == resource) {
        return r;
      }
    }
    FAIL("no resource " << group << "/" << resource);
    throw;  // unreachable: FAIL throws
  }

  // Stores `object` (its metadata.name and namespace say where) as a `resource` of `group`.
  void put(const std::string& group, const std::string& resource, const nlohmann::json& object) {
    const auto& r = row(group, resource);
    const std::string ns = object["metadata"].value("namespace", "");
    int64_t revision = 0;
    REQUIRE_FALSE(
        storage_.create(r.storage_key(ns, object["metadata"]["name"]), object.dump(), revision));
  }

  // A chain of `plugins` (names as --enable-admission-plugins spells them).
  std::unique_ptr<admission::Chain> chain(const std::vector<std::string>& plugins) {
    return std::make_unique<admission::Chain>(services_, plugins);
  }

  // The attributes of a write of `object` (null on delete) replacing `old` (null on create).
  admission::Attributes attributes(admission::Operation operation, const std::string& group,
                                   const std::string& resource, nlohmann::json* object,
                                   const nlohmann::json* old = nullptr,
                                   const std::string& subresource = "") {
    admission::Attributes a;
    a.operation = operation;
    a.resource = &row(group, resource);
    a.subresource = subresource;
    const nlohmann::json& named = object != nullptr ? *object : *old;
    a.namespace_ = named["metadata"].value("namespace", "");
    a.name = named["metadata"].value("name", "");
    a.object = object;
    a.old_object = old;
    a.user = {"alice", "", {"system:authenticated"}, {}};
    return a;
  }

  // `object` as `chain`'s mutating pass leaves a create of it, which it must admit.
  nlohmann::json admitted_create(const admission::Chain& chain, const std::string& group,
                                 const std::string& resource, nlohmann::json object) {
    auto a = attributes(admission::Operation::Create, group, resource, &object);
    REQUIRE_FALSE(chain.admit(a));
    return object;
  }

 private:
  static registry::RuntimeConfig served(const std::string& text) {
    if (text.empty()) {
      return {};
    }
    auto parsed = registry::RuntimeConfig::parse(text);
    REQUIRE(parsed);
    return *parsed;
  }

  static std::unique_ptr<store::Store> open_store() {
    store::Options options;
    options.durability = store::Durability::Ephemeral;
    auto opened = store::Store::open(options);
    REQUIRE(opened.is_ok());
    return std::move(opened).value();
  }

  std::unique_ptr<store::Store> store_;
  storage::Storage storage_;
  std::shared_ptr<registry::Registry> registry_;
  std::shared_ptr<const registry::Snapshot> snapshot_ = registry_->snapshot();
  authorization::PolicyCache policy_;
  authorization::NodeGraph graph_;
  authorization::NodeAuthorizer node_;
  authorization::Authorizer authorizer_;
  common::FakeClock clock_;
  admission::Services services_;
};

}  // namespace apiserver::testing
