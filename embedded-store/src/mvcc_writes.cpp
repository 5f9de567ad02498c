// MvccStore's write path: requests queue for the commit loop, which runs them in batches (one
// LMDB transaction, one revision per write) or alone (maintenance), then publishes the batch to
// the index, the lessor and the watchers; and the KV writes that go through it.
#include "mvcc_store.h"

#include <algorithm>

#include "guard.h"

namespace store {

Status MvccStore::submit(std::unique_ptr<PendingWrite> write) {
  auto done = write->done.get_future();
  {
    std::unique_lock lock(queue_mu_);
    space_cv_.wait(lock, [&] { return closing_ || queue_.size() < options_.max_queued_writes; });
    if (closing_) {
      return Status(Code::Closed);
    }
    queue_.push_back(std::move(write));
  }
  queue_cv_.notify_one();
  return done.get();
}

Status MvccStore::submit_apply(std::function<Status(Batch&)> apply) {
  auto write = std::make_unique<PendingWrite>();
  write->apply = std::move(apply);
  return submit(std::move(write));
}

void MvccStore::commit_loop() {
  while (true) {
    std::vector<std::unique_ptr<PendingWrite>> writes;
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) {
        return;  // closing, and every queued write was served
      }
      if (queue_.front()->kind != PendingWrite::Kind::Apply) {
        writes.push_back(std::move(queue_.front()));
        queue_.pop_front();
      } else {
        while (!queue_.empty() && queue_.front()->kind == PendingWrite::Kind::Apply &&
               writes.size() < options_.max_batch) {
          writes.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
    }
    space_cv_.notify_all();
    if (writes.front()->kind == PendingWrite::Kind::Apply) {
      run_batch(writes);
      continue;
    }
    PendingWrite& write = *writes.front();
    Status result;
    std::string detail;
    const bool ok = run_guarded(
        "commit loop: maintenance", [&] { result = run_maintenance(write); }, &detail);
    write.done.set_value(ok ? result : Status(Code::Internal, detail));
  }
}

Status MvccStore::run_maintenance(PendingWrite& write) {
  switch (write.kind) {
    case PendingWrite::Kind::Compact:
      return run_compaction(write.compact_revision);
    case PendingWrite::Kind::Defragment:
      return run_defragment();
    case PendingWrite::Kind::Replace:
      return run_replace(*write.contents, *write.replaced);
    case PendingWrite::Kind::Apply:
      break;
  }
  return Status(Code::Internal, "not a maintenance write");
}

void MvccStore::run_batch(std::vector<std::unique_ptr<PendingWrite>>& writes) {
  auto fail_all = [&](const Status& s) {
    for (auto& w : writes) {
      w->done.set_value(s);
    }
  };
  while (true) {
    std::shared_lock env_lock(env_mu_);
    auto txn = env_->begin_write();
    if (!txn.is_ok()) {
      fail_all(txn.status());
      return;
    }
    Revision before = current_rev_.load();
    Batch batch(txn.value(), index_, lessor_, before, options_, *clock_, rng_);
    std::vector<Status> results;
    Status fatal;
    std::optional<size_t> threw;  // the write whose apply threw: it may have half-written
    std::string detail;
    for (size_t i = 0; i < writes.size(); ++i) {
      Status s;
      if (!run_guarded(
              "commit loop: a write", [&] { s = writes[i]->apply(batch); }, &detail)) {
        threw = i;
        break;
      }
      if (s.code() == Code::Io) {
        fatal = s;
        break;
      }
      results.push_back(s);
    }
    if (threw) {
      // Nothing of the batch is visible yet: drop the transaction, fail that write alone and run
      // the others again from the start.
      txn->abort();
      writes[*threw]->done.set_value(Status(Code::Internal, detail));
      writes.erase(writes.begin() + static_cast<std::ptrdiff_t>(*threw));
      if (writes.empty()) {
        return;
      }
      continue;
    }
    if (fatal.is_ok() && batch.revision() != before) {
      fatal = txn->put(backend::Db::Meta, kMetaRevision, encode_i64(batch.revision()));
    }
    if (fatal.is_ok()) {
      fatal = txn->commit();
    }
    if (backend::is_map_full(fatal)) {
      txn->abort();  // no transaction may be open while the map is resized
      env_lock.unlock();
      std::unique_lock exclusive(env_mu_);
      if (auto s = env_->grow(); !s.is_ok()) {
        fail_all(s);
        return;
      }
      continue;  // the batch changed nothing visible: run it again from the start
    }
    if (!fatal.is_ok()) {
      fail_all(fatal);
      return;
    }
    {
      std::unique_lock index_lock(index_mu_);
      index_.merge(batch.overlay());
      current_rev_ = batch.revision();
    }
    for (const auto& change : batch.lease_changes()) {
      using Kind = Batch::LeaseChange::Kind;
      switch (change.kind) {
        case Kind::Grant:
          lessor_.grant(change.id, change.ttl, change.deadline);
          break;
        case Kind::Revoke:
          lessor_.revoke(change.id);
          break;
        case Kind::Renew:
          lessor_.renew(change.id, change.deadline);
          break;
        case Kind::Attach:
          lessor_.attach(change.key, change.from, change.id);
          break;
      }
    }
    if (!batch.events().empty()) {
      hub_->publish(batch.events(), batch.revision());
    }
    for (size_t i = 0; i < writes.size(); ++i) {
      writes[i]->done.set_value(results[i]);
    }
    return;
  }
}

Result<PutResponse> MvccStore::put(const PutRequest& request) {
  PutResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = PutResponse{};
    return batch.put(request, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<DeleteRangeResponse> MvccStore::delete_range(const DeleteRangeRequest& request) {
  DeleteRangeResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = DeleteRangeResponse{};
    return batch.delete_range(request, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

Result<TxnResponse> MvccStore::txn(const TxnRequest& request) {
  if (auto s = validate_txn(request, options_); !s.is_ok()) {
    return s;
  }
  if (request_bytes(request) > options_.max_request_bytes) {
    return Status(Code::RequestTooLarge);
  }
  TxnResponse response;
  Status s = submit_apply([&](Batch& batch) {
    response = TxnResponse{};
    return batch.txn(request, response);
  });
  if (!s.is_ok()) {
    return s;
  }
  return response;
}

}  // namespace store
