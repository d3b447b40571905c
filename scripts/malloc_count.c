// Counts the heap allocations of a process, for scripts/bench_allocations: loaded with LD_PRELOAD,
// it forwards malloc, calloc, realloc, the aligned allocations and free to glibc's own and, when
// the process is courier-bench or the C ceiling and MALLOC_COUNT_OUT names a file, appends one line
// of totals to that file at exit:
//
//   EXECUTABLE malloc=N calloc=N realloc=N aligned=N free=N bytes=N
//
// glibc only (it calls the __libc_ entry points). Counting costs an atomic add per call, so the
// rates of a counted run are not the benchmark's.
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_long mallocs, callocs, reallocs, aligned, frees, bytes;

static void count(atomic_long *counter, size_t size) {
    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, (long)size, memory_order_relaxed);
}

void *malloc(size_t size) {
    count(&mallocs, size);
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count(&callocs, count_ * size);
    return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
    count(&reallocs, size);
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count(&aligned, size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    void *pointer = memalign(alignment, size);
    if (pointer == NULL) return 12;  // ENOMEM
    *out = pointer;
    return 0;
}

void free(void *pointer) {
    if (pointer != NULL) atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    __libc_free(pointer);
}

__attribute__((destructor)) static void report(void) {
    char executable[4096] = {0};
    if (readlink("/proc/self/exe", executable, sizeof executable - 1) < 0) return;
    if (strstr(executable, "courier-bench") == NULL && strstr(executable, "bench_ceiling") == NULL) return;
    const char *path = getenv("MALLOC_COUNT_OUT");
    if (path == NULL) return;
    FILE *file = fopen(path, "a");
    if (file == NULL) return;
    fprintf(file, "%s malloc=%ld calloc=%ld realloc=%ld aligned=%ld free=%ld bytes=%ld\n", executable,
        atomic_load(&mallocs), atomic_load(&callocs), atomic_load(&reallocs), atomic_load(&aligned),
        atomic_load(&frees), atomic_load(&bytes));
    fclose(file);
}
