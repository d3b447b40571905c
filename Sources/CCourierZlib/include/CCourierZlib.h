// A thin C layer between Courier and zlib, for the content codings Courier decodes itself (a
// stream's gzip or deflate body, at its reader's pace) and WebSocket's permessage-deflate (RFC 7692:
// raw deflate both ways).
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

typedef struct ccourier_deflater ccourier_deflater;

/// What `ccourier_deflate` reports.
enum {
    /// Progress was made, or none was possible (all input taken and flushed, or no output room).
    CCOURIER_DEFLATE_OK = 0,
    /// zlib refused (the message says why).
    CCOURIER_DEFLATE_ERROR = -1,
};

/// A new deflater: `level` 0–9 (-1: zlib's default), `window_bits` as zlib's `deflateInit2` takes
/// them (-9…-15: raw deflate with a window of 2^9…2^15 bytes; zlib refuses -8), `memory_level` 1–9.
/// NULL when zlib is unavailable, a setting is refused, or memory is short.
ccourier_deflater *ccourier_deflater_make(int level, int window_bits, int memory_level);

/// Forgets the window: the next input is compressed as if it were the first.
int ccourier_deflater_reset(ccourier_deflater *deflater);

/// Deflates `input` (`input_count` bytes) into `output` (room for `output_capacity`) with a sync
/// flush (`is_flush` non-zero: everything taken so far is emitted, ending on an empty stored block,
/// 00 00 FF FF) or none: sets how many bytes it consumed and produced. The flush is complete when all
/// the input was consumed and `produced` is less than `output_capacity`.
int ccourier_deflate(ccourier_deflater *deflater, const uint8_t *input, size_t input_count, size_t *consumed,
                     uint8_t *output, size_t output_capacity, size_t *produced, int is_flush, char *error,
                     size_t capacity);

/// Frees the deflater.
void ccourier_deflater_free(ccourier_deflater *deflater);

#endif
