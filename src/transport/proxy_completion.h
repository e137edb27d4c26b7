// Which tickets of the proxy's ring have completed (see proxy.h). Its two kinds of request complete in
// different ways: a copy when the copy stream's count passes it (the stream writes, after its copies, the
// ticket below which every copy it was given is done), a network request when a network quiet issued after
// it returns. The ring's one counter, `completed`, is the first ticket not known complete.
//
// Contracts (one thread, the proxy's, calls everything):
//  - took() is called for every ticket, in ticket order.
//  - copies_done(c): every copy with a ticket below c has completed; requests_done(): every network request
//    taken so far has completed.
//  - completed() never decreases, and every ticket below it was taken and has completed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>

namespace gshmem {

class ProxyCompletion {
 public:
  void took(uint64_t ticket, bool copy) {
    if (copy) {
      copies_.push_back(ticket);
    } else if (!requests_pending_) {
      requests_pending_ = true;
      first_request_ = ticket;
    }
    taken_ = ticket + 1;
  }
  void copies_done(uint64_t below) {
    while (!copies_.empty() && copies_.front() < below) copies_.pop_front();
  }
  void requests_done() { requests_pending_ = false; }

  uint64_t completed() const {
    const uint64_t copies = copies_.empty() ? taken_ : copies_.front();
    return std::min(copies, requests_complete_below());
  }
  // Every network request below it has completed (the tickets taken so far when none is pending).
  uint64_t requests_complete_below() const { return requests_pending_ ? first_request_ : taken_; }
  bool copies_pending() const { return !copies_.empty(); }
  bool requests_pending() const { return requests_pending_; }
  uint64_t taken() const { return taken_; }

 private:
  std::deque<uint64_t> copies_;  // tickets of the copies not known complete, in order
  bool requests_pending_ = false;
  uint64_t first_request_ = 0;  // while requests_pending_: the first network request not known complete
  uint64_t taken_ = 0;
};

}  // namespace gshmem
