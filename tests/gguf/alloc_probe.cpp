// Replaces the global operator new/delete of the test binary to record the largest request
// made while an AllocationProbe is alive: the proof that a hostile count in a file is
// rejected before it turns into a huge allocation.
#include <cstdlib>
#include <new>

#include "tests/gguf/gguf_test_util.h"

namespace {
thread_local bool armed = false;
thread_local size_t largest_request = 0;
}  // namespace

namespace {
void* allocate(size_t n) noexcept {
  if (armed && n > largest_request) largest_request = n;
  return std::malloc(n ? n : 1);
}
void* allocate_or_throw(size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
}  // namespace

// Every unaligned form is replaced, so that each allocation and its release pair up (the
// sanitizers check that); the aligned forms keep their defaults, which pair among themselves.
void* operator new(size_t n) { return allocate_or_throw(n); }
void* operator new[](size_t n) { return allocate_or_throw(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace pb::gguf::test {

AllocationProbe::AllocationProbe() {
  largest_request = 0;
  armed = true;
}
AllocationProbe::~AllocationProbe() { armed = false; }
size_t AllocationProbe::largest() const { return largest_request; }

}  // namespace pb::gguf::test
