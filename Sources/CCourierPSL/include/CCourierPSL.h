// A thin C layer between Courier and libpsl, the Public Suffix List library, for the cookie jar.
//
// libpsl is loaded at run time (dlopen) rather than linked, as libcurl and zlib are, so that
// building Courier needs no libpsl development package: `libpsl.so.5` is on every Debian or
// Ubuntu machine that has libcurl, and reads the system's list (`/usr/share/publicsuffix`), kept
// up to date by the distribution. Where it is missing (Apple platforms), Courier falls back to
// the snapshot of the list it carries.
#ifndef CCOURIER_PSL_H
#define CCOURIER_PSL_H

#include <stddef.h>

/// Loads libpsl and its newest list once; 0 when available, else -1 with the reason in `error`.
int ccourier_psl_load(char *error, size_t capacity);

/// 1 when `domain` (lowercase ASCII, punycode for IDNs) is a public suffix, by the ICANN and
/// private sections and the implicit `*` rule (an unlisted top-level label is a suffix); 0 when
/// not; -1 when libpsl is unavailable.
int ccourier_psl_is_public_suffix(const char *domain);

/// The registrable domain of `domain` (public suffix + one label), written to `output` (room for
/// `capacity` bytes, NUL included): 1 when there is one, 0 when there is none (the domain is a
/// suffix itself), -1 when libpsl is unavailable or the output is too small.
int ccourier_psl_registrable_domain(const char *domain, char *output, size_t capacity);

#endif
