#ifndef COUNTING_ALLOCATOR_H
#define COUNTING_ALLOCATOR_H

#include <stdbool.h>
#include <stdint.h>

/// Whether this platform lets the process count its own allocations and mutex acquisitions (glibc:
/// the executable's `malloc`, `free` and `pthread_mutex_lock` stand in for the C library's).
bool counting_available(void);

/// Sets both counts to zero and starts counting, on every thread.
void counting_start(void);

/// Stops counting; the counts keep their values.
void counting_stop(void);

/// Calls to `malloc`, `calloc` and `realloc` while counting was on.
uint64_t counting_allocations(void);

/// Calls to `pthread_mutex_lock` while counting was on.
uint64_t counting_mutex_locks(void);

/// A flag that one thread sets and another spins on, without allocating or locking, so that waiting
/// adds nothing to the counts.
void counting_flag_store(int64_t value);

/// The value last stored with `counting_flag_store`.
int64_t counting_flag_load(void);

/// Gives the processor to another thread while spinning on the flag.
void counting_yield(void);

#endif
