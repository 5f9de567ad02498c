#include "maintenance_service.h"

#include <openssl/evp.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <memory>

#include "common/scratch_dir.h"
#include "convert.h"
#include "wire_status.h"

namespace etcdwire {

namespace pb = etcdserverpb;

namespace {

constexpr size_t kSnapshotChunk = 32 * 1024;  // etcd's snapshot send buffer
constexpr int64_t kHashPage = 1000;           // keys read per range while hashing

// CRC-32C (Castagnoli), the checksum etcd's hashes use.
class Crc32c {
 public:
  void update(const std::string& bytes) {
    static const std::array<uint32_t, 256> table = [] {
      std::array<uint32_t, 256> t{};
      for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) {
          c = (c & 1) != 0 ? 0x82F63B78u ^ (c >> 1) : c >> 1;
        }
        t[i] = c;
      }
      return t;
    }();
    for (unsigned char b : bytes) {
      crc_ = table[(crc_ ^ b) & 0xFF] ^ (crc_ >> 8);
    }
  }
  uint32_t value() const { return ~crc_; }

 private:
  uint32_t crc_ = 0xFFFFFFFFu;
};

// The checksum of every live key and its record (mvccpb.KeyValue) at `revision`, read in pages
// at that one revision. Equal stores give equal hashes; any difference in a key, value,
// revision or lease changes it.
store::Result<uint32_t> hash_at(store::Store& db, store::Revision revision) {
  Crc32c crc;
  store::RangeRequest page;
  page.key = std::string(1, '\0');
  page.range_end = std::string(1, '\0');
  page.revision = revision;
  page.limit = kHashPage;
  for (;;) {
    auto result = db.range(page);
    if (!result.is_ok()) {
      return result.status();
    }
    for (const auto& kv : result->kvs) {
      mvccpb::KeyValue record;
      to_wire(kv, record);
      crc.update(kv.key);
      crc.update(record.SerializeAsString());
    }
    if (!result->more || result->kvs.empty()) {
      break;
    }
    page.key = result->kvs.back().key + std::string(1, '\0');
  }
  return crc.value();
}

}  // namespace

grpc::Status MaintenanceService::Alarm(grpc::ServerContext*, const pb::AlarmRequest* request,
                                       pb::AlarmResponse* response) {
  return guarded([&] {
    std::vector<std::pair<uint64_t, pb::AlarmType>> listed;
    switch (request->action()) {
      case pb::AlarmRequest::GET:
        listed = member_.alarms();
        break;
      case pb::AlarmRequest::ACTIVATE:
        if (request->alarm() == pb::NONE) {
          break;
        }
        listed = member_.set_alarm(request->memberid(), request->alarm(), true);
        break;
      case pb::AlarmRequest::DEACTIVATE:
        listed = member_.set_alarm(request->memberid(), request->alarm(), false);
        break;
      default:
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "etcdserver: unknown alarm action");
    }
    member_.fill(*response->mutable_header());
    for (const auto& [member, type] : listed) {
      auto* alarm = response->add_alarms();
      alarm->set_memberid(member);
      alarm->set_alarm(type);
    }
    return grpc::Status::OK;
  });
}

grpc::Status MaintenanceService::Status(grpc::ServerContext*, const pb::StatusRequest*,
                                        pb::StatusResponse* response) {
  return guarded([&] {
    auto result = member_.store().status();
    if (!result.is_ok()) {
      return to_grpc(result.status());
    }
    member_.fill(*response->mutable_header(), result->header.revision);
    response->set_version(kEtcdVersion);
    response->set_dbsize(result->db_size);
    response->set_dbsizeinuse(result->db_size_in_use);
    response->set_leader(member_.member_id());
    // No Raft log: the store's revision counts its writes, the nearest thing to an index.
    response->set_raftindex(static_cast<uint64_t>(result->header.revision));
    response->set_raftappliedindex(static_cast<uint64_t>(result->header.revision));
    response->set_raftterm(kRaftTerm);
    for (const auto& [member, type] : member_.alarms()) {
      response->add_errors("memberID:" + std::to_string(member) +
                           " alarm:" + pb::AlarmType_Name(type) + " ");
    }
    return grpc::Status::OK;
  });
}

grpc::Status MaintenanceService::Defragment(grpc::ServerContext*, const pb::DefragmentRequest*,
                                            pb::DefragmentResponse* response) {
  return guarded([&] {
    if (auto s = member_.store().defragment(); !s.is_ok()) {
      return to_grpc(s);
    }
    member_.fill(*response->mutable_header());
    return grpc::Status::OK;
  });
}

grpc::Status MaintenanceService::Hash(grpc::ServerContext*, const pb::HashRequest*,
                                      pb::HashResponse* response) {
  return guarded([&] {
    store::Revision revision = member_.store().current_revision();
    auto hash = hash_at(member_.store(), revision);
    if (!hash.is_ok()) {
      return to_grpc(hash.status());
    }
    member_.fill(*response->mutable_header(), revision);
    response->set_hash(hash.value());
    return grpc::Status::OK;
  });
}

grpc::Status MaintenanceService::HashKV(grpc::ServerContext*, const pb::HashKVRequest* request,
                                        pb::HashKVResponse* response) {
  return guarded([&] {
    store::Revision current = member_.store().current_revision();
    store::Revision revision = request->revision() > 0 ? request->revision() : current;
    auto hash = hash_at(member_.store(), revision);
    if (!hash.is_ok()) {
      return to_grpc(hash.status());
    }
    member_.fill(*response->mutable_header(), current);
    response->set_hash(hash.value());
    response->set_compact_revision(member_.store().compacted_revision());
    return grpc::Status::OK;
  });
}

grpc::Status MaintenanceService::Snapshot(grpc::ServerContext* context, const pb::SnapshotRequest*,
                                          grpc::ServerWriter<pb::SnapshotResponse>* writer) {
  return guarded([&] {
    auto scratch = common::ScratchDir::make("etcd-snapshot");
    if (!scratch) {
      return grpc::Status(grpc::StatusCode::UNKNOWN, "cannot create a temporary directory");
    }
    const auto file = scratch->path() / "snapshot.db";
    if (auto s = member_.store().snapshot(file); !s.is_ok()) {
      return to_grpc(s);
    }
    std::error_code ec;
    const auto total = static_cast<uint64_t>(std::filesystem::file_size(file, ec));
    std::ifstream in(file, std::ios::binary);
    if (ec || !in) {
      return grpc::Status(grpc::StatusCode::UNKNOWN, "cannot read the snapshot");
    }
    // The stream ends with the SHA-256 of the data, as etcd's does; etcdctl checks it is there.
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> sha(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!sha || EVP_DigestInit_ex(sha.get(), EVP_sha256(), nullptr) != 1) {
      return grpc::Status(grpc::StatusCode::UNKNOWN, "cannot compute the snapshot's checksum");
    }
    std::string chunk(kSnapshotChunk, '\0');
    uint64_t sent = 0;
    while (sent < total) {
      if (context->IsCancelled()) {
        return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
      }
      size_t want = static_cast<size_t>(std::min<uint64_t>(kSnapshotChunk, total - sent));
      in.read(chunk.data(), static_cast<std::streamsize>(want));
      if (static_cast<size_t>(in.gcount()) != want) {
        return grpc::Status(grpc::StatusCode::UNKNOWN, "the snapshot file was cut short");
      }
      sent += want;
      EVP_DigestUpdate(sha.get(), chunk.data(), want);
      pb::SnapshotResponse response;
      member_.fill(*response.mutable_header());
      response.set_remaining_bytes(total - sent);
      response.set_blob(chunk.data(), want);
      if (!writer->Write(response)) {
        return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
      }
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(sha.get(), digest, &length);
    pb::SnapshotResponse checksum;
    member_.fill(*checksum.mutable_header());
    checksum.set_remaining_bytes(0);
    checksum.set_blob(digest, length);
    writer->Write(checksum);
    return grpc::Status::OK;
  });
}

grpc::Status ClusterService::MemberList(grpc::ServerContext*, const pb::MemberListRequest*,
                                        pb::MemberListResponse* response) {
  return guarded([&] {
    member_.fill(*response->mutable_header());
    auto* member = response->add_members();
    member->set_id(member_.member_id());
    member->set_name(member_.name());
    for (const auto& url : member_.client_urls()) {
      member->add_clienturls(url);
    }
    return grpc::Status::OK;
  });
}

}  // namespace etcdwire
