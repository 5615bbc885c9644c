// Reuse of tensor buffers between kernel calls. Running a model allocates
// the same large buffers on every run (and often on every node); from the
// C library each one is a fresh mmap whose pages fault in and are unmapped
// again on free, which cost 10-15% of a CNN's run time. Buffers of at least
// kPoolMinBytes go back to a pool keyed by their exact size when freed and
// are handed out again for the next request of that size. The pool keeps at
// most pool_capacity() bytes (default 1 GiB, or the environment variable
// OXS_BUFFER_POOL_BYTES; 0 turns pooling off) and frees the rest; it is
// shared by all sessions and thread-safe. A run with a memory limit trims
// the cache so that its live and cached bytes stay within the limit.
#pragma once

#include <cstddef>
#include <memory>

namespace oxs::eval {

inline constexpr size_t kPoolMinBytes = size_t{32} << 10;

// A 64-byte-aligned buffer of `bytes` (a multiple of 64), zero-filled, owned
// by the returned pointer (which returns it to the pool). Null if out of
// memory.
std::shared_ptr<void> acquire_zeroed_buffer(size_t bytes);
// The same, zero-filled only when `zeroed` (else its bytes are unspecified).
std::shared_ptr<void> acquire_buffer(size_t bytes, bool zeroed);

size_t pool_capacity();
// 0 disables pooling (buffers are freed at once); cached buffers over the new
// capacity are freed.
void set_pool_capacity(size_t bytes);
// Bytes currently cached (lock-free: read on every charge of a run's budget).
size_t pool_cached_bytes();
// Frees cached buffers until at most `bytes` stay cached (the capacity is
// unchanged): a run with a memory limit counts the cache against it.
void trim_pool(size_t bytes);

}  // namespace oxs::eval
