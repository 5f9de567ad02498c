#include "admission/plugins.h"

namespace apiserver::admission {

const std::vector<PluginEntry>& ordered_plugins() {
  // kube-apiserver v1.32's AllOrderedPlugins, and the default-on set of its
  // DefaultOffAdmissionPlugins complement. Null factories: plugins kube-sandbox does not have.
  static const std::vector<PluginEntry> kPlugins = {
      {"AlwaysAdmit", false, &make_always_admit},
      {"NamespaceAutoProvision", false, nullptr},
      {"NamespaceLifecycle", true, &make_namespace_lifecycle},
      {"NamespaceExists", false, nullptr},
      {"LimitPodHardAntiAffinityTopology", false, nullptr},
      {"LimitRanger", true, &make_limit_ranger},
      {"ServiceAccount", true, &make_service_account},
      {"NodeRestriction", false, nullptr},
      {"TaintNodesByCondition", true, &make_taint_nodes_by_condition},
      {"AlwaysPullImages", false, nullptr},
      {"ImagePolicyWebhook", false, nullptr},
      {"PodSecurity", true, &make_pod_security},
      {"PodNodeSelector", false, nullptr},
      {"Priority", true, &make_priority},
      {"DefaultTolerationSeconds", true, &make_default_toleration_seconds},
      {"PodTolerationRestriction", false, nullptr},
      {"EventRateLimit", false, nullptr},
      {"ExtendedResourceToleration", false, nullptr},
      {"DefaultStorageClass", true, &make_default_storage_class},
      {"StorageObjectInUseProtection", true, &make_storage_object_in_use_protection},
      {"OwnerReferencesPermissionEnforcement", false, nullptr},
      {"PersistentVolumeClaimResize", true, &make_persistent_volume_claim_resize},
      {"RuntimeClass", true, &make_runtime_class},
      {"CertificateApproval", true, &make_certificate_approval},
      {"CertificateSigning", true, &make_certificate_signing},
      {"ClusterTrustBundleAttest", true, &make_cluster_trust_bundle_attest},
      {"CertificateSubjectRestriction", true, &make_certificate_subject_restriction},
      {"DefaultIngressClass", true, &make_default_ingress_class},
      {"DenyServiceExternalIPs", false, nullptr},
      {"MutatingAdmissionPolicy", false, nullptr},
      {"MutatingAdmissionWebhook", true, &make_mutating_admission_webhook},
      {"ValidatingAdmissionPolicy", true, &make_validating_admission_policy},
      {"ValidatingAdmissionWebhook", true, &make_validating_admission_webhook},
      {"ResourceQuota", true, &make_resource_quota},
      {"AlwaysDeny", false, &make_always_deny},
  };
  return kPlugins;
}

}  // namespace apiserver::admission
