// PEM certificate requests (PKCS#10) as the API reads them from a CertificateSigningRequest's
// spec.request: whether one parses, and the groups (O) its subject names. OpenSSL underneath;
// thread-safe; nothing thrown.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace apiserver::registry {

// Why `pem` is no PEM CERTIFICATE REQUEST block holding a request that parses, in the words of
// upstream's ParseCSR ("PEM block type must be CERTIFICATE REQUEST"); "" when it is one.
std::string certificate_request_problem(std::string_view pem);

// The O entries of the subject of the request in `pem`, in order; none when it does not parse.
std::vector<std::string> certificate_request_organizations(std::string_view pem);

}  // namespace apiserver::registry
