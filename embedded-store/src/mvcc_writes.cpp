// MvccStore's write path: requests queue for the commit loop, which runs them in batches (one
// LMDB transaction, one revision per write) or alone (maintenance), then publishes the batch to
// the index, the lessor and the watchers; and the KV writes that go through it.
#include "mvcc_store.h"

#include <algorithm>
#include <future>

#include "guard.h"

namespace store {

void MvccStore::enqueue(std::unique_ptr<PendingWrite> write) {
  {
    std::unique_lock lock(queue_mu_);
    space_cv_.wait(lock, [&] { return closing_ || queue_.size() < options_.max_queued_writes; });
    if (!closing_) {
      queue_.push_back(std::move(write));
    }
  }
  if (write) {  // the store is closing: the write was not queued
    write->complete(Status(Code::Closed));
    return;
  }
  queue_cv_.notify_one();
}

Status MvccStore::submit(std::unique_ptr<PendingWrite> write) {
  // The callback owns the promise: the waiter may return while set_value is still running.
  auto promise = std::make_shared<std::promise<Status>>();
  auto done = promise->get_future();
  write->complete = [promise](const Status& s) { promise->set_value(s); };
  enqueue(std::move(write));
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
    write.complete(ok ? result : Status(Code::Internal, detail));
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
      w->complete(s);
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
      writes[*threw]->complete(Status(Code::Internal, detail));
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
      writes[i]->complete(results[i]);
    }
    return;
  }
}

template <typename Response, typename Apply>
void MvccStore::enqueue_apply(Apply apply, Callback<Response> done) {
  auto write = std::make_unique<PendingWrite>();
  auto response = std::make_shared<Response>();
  write->apply = [apply = std::move(apply), response](Batch& batch) {
    *response = Response{};  // a batch that runs again starts the answer afresh
    return apply(batch, *response);
  };
  write->complete = [response, done = std::move(done)](const Status& s) {
    run_guarded("commit loop: a write's completion", [&] {
      if (s.is_ok()) {
        done(std::move(*response));
      } else {
        done(s);
      }
    });
  };
  enqueue(std::move(write));
}

namespace {

// The blocking calls wait for their asynchronous form.
template <typename Response, typename Start>
Result<Response> wait_for(Start start) {
  auto promise = std::make_shared<std::promise<Result<Response>>>();  // see submit()
  auto answer = promise->get_future();
  start([promise](Result<Response> result) { promise->set_value(std::move(result)); });
  return answer.get();
}

}  // namespace

void MvccStore::put_async(PutRequest request, Callback<PutResponse> done) {
  enqueue_apply<PutResponse>(
      [request = std::move(request)](Batch& batch, PutResponse& response) {
        return batch.put(request, response);
      },
      std::move(done));
}

void MvccStore::delete_range_async(DeleteRangeRequest request, Callback<DeleteRangeResponse> done) {
  enqueue_apply<DeleteRangeResponse>(
      [request = std::move(request)](Batch& batch, DeleteRangeResponse& response) {
        return batch.delete_range(request, response);
      },
      std::move(done));
}

void MvccStore::txn_async(TxnRequest request, Callback<TxnResponse> done) {
  if (auto s = validate_txn(request, options_); !s.is_ok()) {
    done(s);
    return;
  }
  if (request_bytes(request) > options_.max_request_bytes) {
    done(Status(Code::RequestTooLarge));
    return;
  }
  enqueue_apply<TxnResponse>(
      [request = std::move(request)](Batch& batch, TxnResponse& response) {
        return batch.txn(request, response);
      },
      std::move(done));
}

Result<PutResponse> MvccStore::put(const PutRequest& request) {
  return wait_for<PutResponse>([&](auto done) { put_async(request, std::move(done)); });
}

Result<DeleteRangeResponse> MvccStore::delete_range(const DeleteRangeRequest& request) {
  return wait_for<DeleteRangeResponse>(
      [&](auto done) { delete_range_async(request, std::move(done)); });
}

Result<TxnResponse> MvccStore::txn(const TxnRequest& request) {
  return wait_for<TxnResponse>([&](auto done) { txn_async(request, std::move(done)); });
}

}  // namespace store
