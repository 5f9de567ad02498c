// Nodes, pods and a scheduler cache holding them, for the scheduler's tests.
#pragma once

#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "scheduler/cache.h"

namespace scheduler_test {

using nlohmann::json;

// A node labelled with its hostname and zone, with room for 110 pods.
inline json node(const std::string& name, const std::string& zone, const std::string& cpu = "4",
                 const std::string& memory = "16Gi") {
  return {{"metadata",
           {{"name", name},
            {"labels", {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}}}}},
          {"status", {{"allocatable", {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}}}}}};
}

// A pod of the default namespace labelled app=<app>, of one container asking for what is given.
inline json pod(const std::string& name, const std::string& app, const std::string& cpu = "",
                const std::string& memory = "") {
  json requests = json::object();
  if (!cpu.empty())
    requests["cpu"] = cpu;
  if (!memory.empty())
    requests["memory"] = memory;
  return {
      {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", app}}}}},
      {"spec",
       {{"containers", json::array({{{"name", "c"}, {"resources", {{"requests", requests}}}}})}}}};
}

// A cache of the given nodes, with pods placed on them.
struct Cluster {
  cluster::SchedulerCache cache;

  explicit Cluster(std::initializer_list<json> nodes) {
    for (const json& n : nodes) {
      cache.set_node(std::make_shared<const json>(n));
    }
  }
  void place(json p, const std::string& on) {
    p["spec"]["nodeName"] = on;
    cache.set_pod(std::make_shared<const json>(std::move(p)));
  }
  const cluster::NodeInfo& at(const std::string& name) const { return *cache.node(name); }
};

}  // namespace scheduler_test
