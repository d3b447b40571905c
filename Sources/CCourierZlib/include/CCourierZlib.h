// A thin C layer between Courier and zlib, for the content codings Courier decodes itself (a
// stream's gzip or deflate body, at its reader's pace).
//
// zlib is loaded at run time (dlopen) rather than linked, as libcurl is, so that building Courier
// needs no zlib development package: `libz.so.1` is on every Linux machine that has libcurl, and
// `libz.1.dylib` on Apple systems. The stream structure below is zlib's stable ABI.
#ifndef CCOURIER_ZLIB_H
#define CCOURIER_ZLIB_H

#include <stddef.h>
#include <stdint.h>

typedef struct ccourier_inflater ccourier_inflater;

/// What `ccourier_inflate` reports.
enum {
    /// More input is needed, or more output room.
    CCOURIER_INFLATE_OK = 0,
    /// The compressed stream ended (its trailer checked).
    CCOURIER_INFLATE_END = 1,
    /// The input is not valid compressed data (the message says why).
    CCOURIER_INFLATE_ERROR = -1,
};

/// Loads zlib once; 0 when it is available, else -1 with the reason in `error`.
int ccourier_zlib_load(char *error, size_t capacity);

/// A new inflater: `window_bits` as zlib's `inflateInit2` takes them (15 + 32: zlib or gzip, told
/// apart by their header; -15: raw deflate). NULL when zlib is unavailable or out of memory.
ccourier_inflater *ccourier_inflater_make(int window_bits);

/// Starts a new stream with the same settings (the next member of a multi-member gzip body).
int ccourier_inflater_reset(ccourier_inflater *inflater);

/// Inflates from `input` (`input_count` bytes) into `output` (room for `output_capacity`): sets
/// how many bytes it consumed and produced. CCOURIER_INFLATE_ERROR leaves zlib's message in
/// `error`.
int ccourier_inflate(ccourier_inflater *inflater, const uint8_t *input, size_t input_count, size_t *consumed,
                     uint8_t *output, size_t output_capacity, size_t *produced, char *error, size_t capacity);

/// Frees the inflater.
void ccourier_inflater_free(ccourier_inflater *inflater);

#endif
