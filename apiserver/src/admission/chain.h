// The admission chain: the plugins --enable-admission-plugins and --disable-admission-plugins
// leave on, in upstream's order, run as kube-apiserver runs them: every mutating plugin in
// order, then (after the object's validation) every validating plugin in order. The first
// refusal ends the pass. The request's trace gets one note per plugin that acted: the fields a
// mutating plugin changed, or what it decided.
//
// Thread-safety: safe from any thread once built.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "admission/plugin.h"
#include "common/result.h"

namespace apiserver::admission {

struct PluginFlags {
  std::vector<std::string> enable;   // --enable-admission-plugins
  std::vector<std::string> disable;  // --disable-admission-plugins
};

// Which plugins are on: the default ones, plus `enable`, minus `disable`, in upstream's order.
// Fails with kube-apiserver's message for a name it does not know, for a name in both lists,
// and (kube-sandbox's own) for a plugin kube-sandbox does not have.
common::Result<std::vector<std::string>> enabled_plugins(const PluginFlags& flags);

class Chain {
 public:
  // Builds the plugins `names` lists (from enabled_plugins). `services` outlive the chain.
  Chain(const Services& services, const std::vector<std::string>& names);
  ~Chain();

  // The mutating pass over `a` (a.object may change), run a second time when a webhook asked
  // for reinvocation (Attributes::webhooks_to_reinvoke).
  Decision admit(Attributes& a) const;
  // The validating pass.
  Decision validate(Attributes& a) const;

  // The plugins on, in the order they run.
  std::vector<std::string> names() const;

 private:
  Decision admit_pass(Attributes& a) const;

  std::vector<std::unique_ptr<Plugin>> plugins_;
};

}  // namespace apiserver::admission
