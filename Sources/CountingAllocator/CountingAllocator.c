#include "CountingAllocator.h"

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>

static atomic_bool counting;
static atomic_uint_fast64_t allocations;
static atomic_uint_fast64_t mutexLocks;
static atomic_int_fast64_t flag;

void counting_start(void) {
    atomic_store_explicit(&allocations, 0, memory_order_relaxed);
    atomic_store_explicit(&mutexLocks, 0, memory_order_relaxed);
    atomic_store_explicit(&counting, true, memory_order_seq_cst);
}

void counting_stop(void) { atomic_store_explicit(&counting, false, memory_order_seq_cst); }

uint64_t counting_allocations(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }

uint64_t counting_mutex_locks(void) { return atomic_load_explicit(&mutexLocks, memory_order_relaxed); }

void counting_flag_store(int64_t value) { atomic_store_explicit(&flag, value, memory_order_release); }

int64_t counting_flag_load(void) { return atomic_load_explicit(&flag, memory_order_acquire); }

void counting_yield(void) { sched_yield(); }

#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))

#include <pthread.h>

// glibc's own entry points, which the definitions below call after counting. The real
// `pthread_mutex_lock` is reached through its old versioned alias, the only name glibc 2.34 and
// later export besides the one defined here.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern int counting_real_pthread_mutex_lock(pthread_mutex_t *mutex);
#if defined(__x86_64__)
__asm__(".symver counting_real_pthread_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
#else
__asm__(".symver counting_real_pthread_mutex_lock, __pthread_mutex_lock@GLIBC_2.17");
#endif

static inline void count(atomic_uint_fast64_t *counter) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
    }
}

bool counting_available(void) { return true; }

void *malloc(size_t size) {
    count(&allocations);
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count(&allocations);
    return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
    count(&allocations);
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

int pthread_mutex_lock(pthread_mutex_t *mutex) {
    count(&mutexLocks);
    return counting_real_pthread_mutex_lock(mutex);
}

#else

bool counting_available(void) { return false; }

#endif
