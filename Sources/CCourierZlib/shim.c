#include "CCourierZlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// zlib's z_stream, as its ABI has been since 1.0 (the fields Courier uses, in zlib's order and
// with zlib's types; inflateInit2_ checks the size).
typedef struct {
    const unsigned char *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} zstream;

#if __has_include(<zlib.h>)
#include <zlib.h>
_Static_assert(sizeof(zstream) == sizeof(z_stream), "zstream differs from zlib's z_stream");
#endif

struct ccourier_inflater {
    zstream stream;
    int window_bits;
};

struct ccourier_deflater {
    zstream stream;
};

static struct {
    const char *(*version)(void);
    int (*init)(zstream *, int, const char *, int);
    int (*inflate)(zstream *, int);
    int (*reset)(zstream *);
    int (*end)(zstream *);
    int (*deflate_init)(zstream *, int, int, int, int, int, const char *, int);
    int (*deflate)(zstream *, int);
    int (*deflate_reset)(zstream *);
    int (*deflate_end)(zstream *);
} zlib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[256];

static void load(void) {
    static const char *const names[] = {
#if defined(__APPLE__)
        "/usr/lib/libz.1.dylib",
        "libz.1.dylib",
        "libz.dylib",
#else
        "libz.so.1",
        "libz.so",
#endif
    };
    void *library = NULL;
    for (size_t index = 0; index < sizeof(names) / sizeof(names[0]) && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof(load_error), "zlib could not be loaded: %s", reason ? reason : "not found");
        return;
    }
#define RESOLVE(field, symbol)                                                                  \
    do {                                                                                        \
        *(void **)(&zlib.field) = dlsym(library, symbol);                                       \
        if (zlib.field == NULL) {                                                               \
            snprintf(load_error, sizeof(load_error), "zlib has no %s", symbol);                 \
            return;                                                                             \
        }                                                                                       \
    } while (0)
    RESOLVE(version, "zlibVersion");
    RESOLVE(init, "inflateInit2_");
    RESOLVE(inflate, "inflate");
    RESOLVE(reset, "inflateReset");
    RESOLVE(end, "inflateEnd");
    RESOLVE(deflate_init, "deflateInit2_");
    RESOLVE(deflate, "deflate");
    RESOLVE(deflate_reset, "deflateReset");
    RESOLVE(deflate_end, "deflateEnd");
#undef RESOLVE
    load_status = 0;
}

int ccourier_zlib_load(char *error, size_t capacity) {
    pthread_once(&load_once, load);
    if (load_status != 0 && error != NULL && capacity > 0) {
        snprintf(error, capacity, "%s", load_error);
    }
    return load_status;
}

ccourier_inflater *ccourier_inflater_make(int window_bits) {
    if (ccourier_zlib_load(NULL, 0) != 0) return NULL;
    ccourier_inflater *inflater = calloc(1, sizeof(ccourier_inflater));
    if (inflater == NULL) return NULL;
    inflater->window_bits = window_bits;
    if (zlib.init(&inflater->stream, window_bits, zlib.version(), (int)sizeof(zstream)) != 0) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

int ccourier_inflater_reset(ccourier_inflater *inflater) {
    return zlib.reset(&inflater->stream) == 0 ? 0 : -1;
}

int ccourier_inflate(ccourier_inflater *inflater, const uint8_t *input, size_t input_count, size_t *consumed,
                     uint8_t *output, size_t output_capacity, size_t *produced, char *error, size_t capacity) {
    zstream *stream = &inflater->stream;
    // zlib counts in unsigned int: hand it at most 1 GiB at a time.
    unsigned int in = input_count > (1u << 30) ? (1u << 30) : (unsigned int)input_count;
    unsigned int out = output_capacity > (1u << 30) ? (1u << 30) : (unsigned int)output_capacity;
    stream->next_in = input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    int code = zlib.inflate(stream, 0 /* Z_NO_FLUSH */);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    switch (code) {
    case 0: // Z_OK
    case -5: // Z_BUF_ERROR: no progress possible now (needs input or room), not an error
        return CCOURIER_INFLATE_OK;
    case 1: // Z_STREAM_END
        return CCOURIER_INFLATE_END;
    default:
        if (error != NULL && capacity > 0) {
            const char *reason = stream->msg;
            if (reason == NULL) {
                reason = code == 2 ? "a preset dictionary is needed" : code == -4 ? "out of memory" : "invalid data";
            }
            snprintf(error, capacity, "%s", reason);
        }
        return CCOURIER_INFLATE_ERROR;
    }
}

void ccourier_inflater_free(ccourier_inflater *inflater) {
    if (inflater == NULL) return;
    zlib.end(&inflater->stream);
    free(inflater);
}

ccourier_deflater *ccourier_deflater_make(int level, int window_bits, int memory_level) {
    if (ccourier_zlib_load(NULL, 0) != 0) return NULL;
    ccourier_deflater *deflater = calloc(1, sizeof(ccourier_deflater));
    if (deflater == NULL) return NULL;
    // 8: Z_DEFLATED; 0: Z_DEFAULT_STRATEGY.
    if (zlib.deflate_init(&deflater->stream, level, 8, window_bits, memory_level, 0, zlib.version(),
                          (int)sizeof(zstream)) != 0) {
        free(deflater);
        return NULL;
    }
    return deflater;
}

int ccourier_deflater_reset(ccourier_deflater *deflater) {
    return zlib.deflate_reset(&deflater->stream) == 0 ? 0 : -1;
}

int ccourier_deflate(ccourier_deflater *deflater, const uint8_t *input, size_t input_count, size_t *consumed,
                     uint8_t *output, size_t output_capacity, size_t *produced, int is_flush, char *error,
                     size_t capacity) {
    zstream *stream = &deflater->stream;
    unsigned int in = input_count > (1u << 30) ? (1u << 30) : (unsigned int)input_count;
    unsigned int out = output_capacity > (1u << 30) ? (1u << 30) : (unsigned int)output_capacity;
    stream->next_in = input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    // A sync flush only once the last of the input is handed over (a cut at 1 GiB is not the end).
    int flush = is_flush && in == input_count ? 2 /* Z_SYNC_FLUSH */ : 0 /* Z_NO_FLUSH */;
    int code = zlib.deflate(stream, flush);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    switch (code) {
    case 0: // Z_OK
    case -5: // Z_BUF_ERROR: no progress possible now, not an error
        return CCOURIER_DEFLATE_OK;
    default:
        if (error != NULL && capacity > 0) {
            const char *reason = stream->msg;
            snprintf(error, capacity, "%s", reason != NULL ? reason : code == -4 ? "out of memory" : "deflate failed");
        }
        return CCOURIER_DEFLATE_ERROR;
    }
}

void ccourier_deflater_free(ccourier_deflater *deflater) {
    if (deflater == NULL) return;
    zlib.deflate_end(&deflater->stream);
    free(deflater);
}
