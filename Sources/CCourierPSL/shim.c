#include "CCourierPSL.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// libpsl's public types and constants (libpsl.h, stable since 0.x).
typedef struct psl_ctx_st psl_ctx_t;
enum { PSL_TYPE_ICANN = 1, PSL_TYPE_PRIVATE = 2, PSL_TYPE_ANY = PSL_TYPE_ICANN | PSL_TYPE_PRIVATE };

static struct {
    const psl_ctx_t *(*builtin)(void);
    psl_ctx_t *(*latest)(const char *);
    int (*is_public_suffix2)(const psl_ctx_t *, const char *, int);
    const char *(*registrable_domain)(const psl_ctx_t *, const char *);
    const psl_ctx_t *context;
} psl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[256];

static void load(void) {
    static const char *const names[] = {
#if defined(__APPLE__)
        "libpsl.5.dylib",
        "/opt/homebrew/lib/libpsl.5.dylib",
        "/usr/local/lib/libpsl.5.dylib",
#else
        "libpsl.so.5",
#endif
    };
    void *library = NULL;
    for (size_t index = 0; index < sizeof(names) / sizeof(names[0]) && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof(load_error), "libpsl could not be loaded: %s", reason ? reason : "not found");
        return;
    }
#define RESOLVE(field, symbol)                                                                  \
    do {                                                                                        \
        *(void **)(&psl.field) = dlsym(library, symbol);                                        \
        if (psl.field == NULL) {                                                                \
            snprintf(load_error, sizeof(load_error), "libpsl has no %s", symbol);               \
            return;                                                                             \
        }                                                                                       \
    } while (0)
    RESOLVE(builtin, "psl_builtin");
    RESOLVE(latest, "psl_latest");
    RESOLVE(is_public_suffix2, "psl_is_public_suffix2");
    RESOLVE(registrable_domain, "psl_registrable_domain");
#undef RESOLVE
    // The newer of the system's list and the one compiled into libpsl; kept for the process's life.
    psl.context = psl.latest(NULL);
    if (psl.context == NULL) psl.context = psl.builtin();
    if (psl.context == NULL) {
        snprintf(load_error, sizeof(load_error), "libpsl has no list (neither the system's nor a built-in one)");
        return;
    }
    load_status = 0;
}

int ccourier_psl_load(char *error, size_t capacity) {
    pthread_once(&load_once, load);
    if (load_status != 0 && error != NULL && capacity > 0) {
        snprintf(error, capacity, "%s", load_error);
    }
    return load_status;
}

int ccourier_psl_is_public_suffix(const char *domain) {
    if (ccourier_psl_load(NULL, 0) != 0) return -1;
    return psl.is_public_suffix2(psl.context, domain, PSL_TYPE_ANY) ? 1 : 0;
}

int ccourier_psl_registrable_domain(const char *domain, char *output, size_t capacity) {
    if (ccourier_psl_load(NULL, 0) != 0) return -1;
    const char *found = psl.registrable_domain(psl.context, domain);
    if (found == NULL) return 0;
    size_t length = strlen(found);
    if (length + 1 > capacity) return -1;
    memcpy(output, found, length + 1);
    return 1;
}
