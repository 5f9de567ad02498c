#include "store/types.h"

namespace store {

std::string prefix_range_end(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    auto last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  // Every byte was 0xff (or the prefix was empty): the range runs to the end of the key space.
  return std::string(1, '\0');
}

RequestOp RequestOp::of(RangeRequest r) {
  RequestOp op;
  op.kind = Kind::Range;
  op.range = std::move(r);
  return op;
}

RequestOp RequestOp::of(PutRequest r) {
  RequestOp op;
  op.kind = Kind::Put;
  op.put = std::move(r);
  return op;
}

RequestOp RequestOp::of(DeleteRangeRequest r) {
  RequestOp op;
  op.kind = Kind::DeleteRange;
  op.delete_range = std::move(r);
  return op;
}

RequestOp RequestOp::of(TxnRequest r) {
  RequestOp op;
  op.kind = Kind::Txn;
  op.txn = std::make_shared<TxnRequest>(std::move(r));
  return op;
}

}  // namespace store
