// A thin C layer between Courier and libcurl.
//
// libcurl's option setters are C-variadic, which Swift cannot call; these typed wrappers can be.
// libcurl is loaded at run time (dlopen) rather than linked, so that building Courier needs no
// libcurl development package: the library itself is on every Linux machine that runs Swift's
// FoundationNetworking, and in macOS. The numeric values below are libcurl's stable ABI; shim.c
// checks each against <curl/curl.h> whenever that header is present at build time.
#ifndef CCOURIER_CURL_H
#define CCOURIER_CURL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ccurl_easy ccurl_easy;
typedef struct ccurl_multi ccurl_multi;
typedef struct ccurl_slist ccurl_slist;

/// Body and header callbacks: `size * count` bytes at `buffer`.
typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t count, void *context);
/// Rewinds a request body: returns 0 on success, 1 on failure, 2 when it cannot seek.
typedef int (*ccurl_seek_callback)(void *context, int64_t offset, int origin);

enum {
    CCURLOPT_WRITEDATA = 10001,
    CCURLOPT_URL = 10002,
    CCURLOPT_PROXY = 10004,
    CCURLOPT_READDATA = 10009,
    CCURLOPT_ERRORBUFFER = 10010,
    CCURLOPT_WRITEFUNCTION = 20011,
    CCURLOPT_READFUNCTION = 20012,
    CCURLOPT_HTTPHEADER = 10023,
    CCURLOPT_HEADERDATA = 10029,
    CCURLOPT_CUSTOMREQUEST = 10036,
    CCURLOPT_NOBODY = 44,
    CCURLOPT_UPLOAD = 46,
    CCURLOPT_FOLLOWLOCATION = 52,
    CCURLOPT_SSL_VERIFYPEER = 64,
    CCURLOPT_CAINFO = 10065,
    CCURLOPT_HEADERFUNCTION = 20079,
    CCURLOPT_HTTPGET = 80,
    CCURLOPT_SSL_VERIFYHOST = 81,
    CCURLOPT_HTTP_VERSION = 84,
    CCURLOPT_NOSIGNAL = 99,
    CCURLOPT_ACCEPT_ENCODING = 10102,
    CCURLOPT_HTTP_CONTENT_DECODING = 158,
    CCURLOPT_INFILESIZE_LARGE = 30115,
    CCURLOPT_TIMEOUT_MS = 155,
    CCURLOPT_CONNECTTIMEOUT_MS = 156,
    CCURLOPT_SEEKFUNCTION = 20167,
    CCURLOPT_SEEKDATA = 10168,
    CCURLOPT_TCP_KEEPALIVE = 213,
    CCURLOPT_PINNEDPUBLICKEY = 10230,
    CCURLOPT_PIPEWAIT = 237,
    CCURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    CCURLOPT_PROTOCOLS = 181,
    CCURLOPT_REDIR_PROTOCOLS = 182,
    CCURLOPT_PROTOCOLS_STR = 10318,
    CCURLOPT_REDIR_PROTOCOLS_STR = 10319,
    // Client certificates, TLS versions (ours and the proxy's).
    CCURLOPT_SSLCERT = 10025,
    CCURLOPT_KEYPASSWD = 10026,
    CCURLOPT_SSLVERSION = 32,
    CCURLOPT_SSLCERTTYPE = 10086,
    CCURLOPT_SSLKEY = 10087,
    CCURLOPT_SSLKEYTYPE = 10088,
    // Proxies: credentials, exceptions, TLS to an HTTPS proxy.
    CCURLOPT_PROXYAUTH = 111,
    CCURLOPT_PROXYUSERNAME = 10175,
    CCURLOPT_PROXYPASSWORD = 10176,
    CCURLOPT_NOPROXY = 10177,
    CCURLOPT_PROXY_CAINFO = 10246,
    CCURLOPT_PROXY_SSL_VERIFYPEER = 248,
    CCURLOPT_PROXY_SSL_VERIFYHOST = 249,
    CCURLOPT_PROXY_SSLVERSION = 250,
    CCURLOPT_PROXY_SSLCERT = 10254,
    CCURLOPT_PROXY_SSLCERTTYPE = 10255,
    CCURLOPT_PROXY_SSLKEY = 10256,
    CCURLOPT_PROXY_SSLKEYTYPE = 10257,
    CCURLOPT_PROXY_KEYPASSWD = 10258,
    CCURLOPT_PROXY_PINNEDPUBLICKEY = 10263,
    // Connections: fixed addresses, idle age and lifetime.
    CCURLOPT_RESOLVE = 10203,
    CCURLOPT_MAXAGE_CONN = 288,
    CCURLOPT_MAXLIFETIME_CONN = 314,
    CCURLOPT_FRESH_CONNECT = 74,
    CCURLOPT_FORBID_REUSE = 75,
    // TLS session resumption (off when a client certificate may be renewed on disk).
    CCURLOPT_SSL_SESSIONID_CACHE = 150,
    // Headers for the proxy only (Proxy-*), apart from the origin's.
    CCURLOPT_PROXYHEADER = 10228,
    CCURLOPT_HEADEROPT = 229,
    CCURLHEADER_SEPARATE = 1,
    CCURLHEADER_UNIFIED = 0,
};

/// A request to a service on a Unix domain socket (`http+unix://` URLs).
enum {
    CCURLOPT_UNIX_SOCKET_PATH = 10231,
};

/// A connection of its own for a WebSocket: libcurl connects (TCP, proxy, TLS) and stops; the
/// bytes then move with `ccurl_easy_send` and `ccurl_easy_recv`.
enum {
    CCURLOPT_CONNECT_ONLY = 141,
    /// CONNECT through an HTTP proxy for http:// URLs too (a WebSocket is never forwarded).
    CCURLOPT_HTTPPROXYTUNNEL = 61,
};

/// A socket for `ccurl_multi_poll_with` to watch besides the multi handle's own (libcurl's
/// `struct curl_waitfd`, whose socket is an `int` on POSIX systems).
typedef struct ccurl_waitfd {
    int fd;
    short events;
    short revents;
} ccurl_waitfd;

/// The events of a `ccurl_waitfd` (libcurl's CURL_WAIT_POLLIN, CURL_WAIT_POLLOUT).
enum {
    CCURL_WAIT_POLLIN = 1,
    CCURL_WAIT_POLLOUT = 4,
};


enum {
    CCURLMOPT_PIPELINING = 3,
    CCURLMOPT_MAXCONNECTS = 6,
    CCURLMOPT_MAX_HOST_CONNECTIONS = 7,
};

/// Pausing a request body's reading (libcurl's CURL_READFUNC_PAUSE, CURLPAUSE_RECV, CURLPAUSE_SEND).
enum {
    CCURL_READFUNC_PAUSE = 0x10000001,
    CCURLPAUSE_RECV = 1,
    CCURLPAUSE_SEND = 4,
};

enum {
    CCURL_HTTP_VERSION_1_1 = 2,
    CCURL_HTTP_VERSION_2TLS = 4,
    CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = 5,
    CCURL_SSLVERSION_TLSv1_2 = 6,
    CCURL_SSLVERSION_TLSv1_3 = 7,
    /// CURLAUTH_ANY: every method libcurl knows but Digest-IE (all bits but bit 4, as a long).
    CCURLAUTH_ANY = ~(1 << 4),
    /// The SOCKS5 server refused the user name and password (CURLINFO_PROXY_ERROR).
    CCURLPX_NO_AUTH = 12,
    CCURLPX_USER_REJECTED = 33,
    CCURLPIPE_MULTIPLEX = 2,
    CCURL_READFUNC_ABORT = 0x10000000,
    CCURL_WRITEFUNC_PAUSE = 0x10000001,
    CCURLPAUSE_CONT = 0,
    CCURL_SEEKFUNC_OK = 0,
    CCURL_SEEKFUNC_FAIL = 1,
    CCURL_ERROR_SIZE = 256,
    CCURLPROTO_HTTP = 1,
    CCURLPROTO_HTTPS = 2,
};

/// What `ccurl_easy_getinfo_long` reads (CURLINFO_LONG + n).
enum {
    /// The status of the proxy's answer to `CONNECT` (0 when no tunnel was asked for).
    CCURLINFO_HTTP_CONNECTCODE = 0x200000 + 22,
    /// The `errno` of the last failed connect (why a Unix socket could not be reached).
    CCURLINFO_OS_ERRNO = 0x200000 + 25,
    CCURLINFO_NUM_CONNECTS = 0x200000 + 26,
    /// What went wrong with a SOCKS proxy, after CURLE_PROXY (a CURLPX_ code).
    CCURLINFO_PROXY_ERROR = 0x200000 + 59,
};

/// libcurl's result codes that Courier tells apart.
enum {
    CCURLE_UNSUPPORTED_PROTOCOL = 1,
    CCURLE_COULDNT_RESOLVE_PROXY = 5,
    CCURLE_COULDNT_RESOLVE_HOST = 6,
    CCURLE_COULDNT_CONNECT = 7,
    CCURLE_WEIRD_SERVER_REPLY = 8,
    CCURLE_HTTP2 = 16,
    CCURLE_PARTIAL_FILE = 18,
    CCURLE_OUT_OF_MEMORY = 27,
    CCURLE_OPERATION_TIMEDOUT = 28,
    CCURLE_SSL_CONNECT_ERROR = 35,
    CCURLE_GOT_NOTHING = 52,
    CCURLE_SEND_ERROR = 55,
    CCURLE_RECV_ERROR = 56,
    CCURLE_SSL_CERTPROBLEM = 58,
    CCURLE_SSL_CIPHER = 59,
    CCURLE_PEER_FAILED_VERIFICATION = 60,
    CCURLE_BAD_CONTENT_ENCODING = 61,
    CCURLE_FILESIZE_EXCEEDED = 63,
    CCURLE_SSL_ENGINE_INITFAILED = 66,
    CCURLE_SSL_CACERT_BADFILE = 77,
    CCURLE_SSL_SHUTDOWN_FAILED = 80,
    CCURLE_AGAIN = 81,
    CCURLE_SSL_CRL_BADFILE = 82,
    CCURLE_SSL_ISSUER_ERROR = 83,
    CCURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    CCURLE_SSL_INVALIDCERTSTATUS = 91,
    CCURLE_HTTP2_STREAM = 92,
    CCURLE_HTTP3 = 95,
    CCURLE_QUIC_CONNECT_ERROR = 96,
    CCURLE_PROXY = 97,
    CCURLE_SSL_CLIENTCERT = 98,
};

/// Loads libcurl once (later calls return the first outcome): 0 on success; otherwise non-zero,
/// with the reason in `error`.
int ccurl_load(char *error, size_t capacity);
/// libcurl's version text, e.g. "libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 nghttp2/1.52.0".
const char *ccurl_version(void);

ccurl_easy *ccurl_easy_init(void);
void ccurl_easy_cleanup(ccurl_easy *easy);
int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value);
int ccurl_easy_setopt_int64(ccurl_easy *easy, int option, int64_t value);
/// Strings (copied by libcurl), header lists and context pointers.
int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value);
int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback);
int ccurl_easy_setopt_seek_callback(ccurl_easy *easy, ccurl_seek_callback callback);
/// Pauses or (with `CCURLPAUSE_CONT`) resumes a transfer; on the loop thread only. Resuming may
/// call the write callback at once with the data held back when it paused.
int ccurl_easy_pause(ccurl_easy *easy, int bitmask);
const char *ccurl_easy_strerror(int code);
/// Reads a `long` about the handle's last transfer (`CCURLINFO_…`): 0 on success.
int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value);

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *line);
void ccurl_slist_free_all(ccurl_slist *list);

ccurl_multi *ccurl_multi_init(void);
int ccurl_multi_cleanup(ccurl_multi *multi);
int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value);
int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy);
int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy);
int ccurl_multi_perform(ccurl_multi *multi, int *running);
int ccurl_multi_poll(ccurl_multi *multi, int timeout_ms, int *descriptors);
/// `ccurl_multi_poll` that also wakes when one of `extra` (`count` of them) is ready; their
/// `revents` say which.
int ccurl_multi_poll_with(ccurl_multi *multi, ccurl_waitfd *extra, unsigned int count, int timeout_ms,
                          int *descriptors);
/// The sockets a multi handle waits on and how long it may wait (-1: no timer), for a loop that
/// sleeps on another multi handle: at most `capacity` sockets written to `sockets`; returns how
/// many (sockets at or above FD_SETSIZE are left out: the timer still drives them), or -1.
int ccurl_multi_wanted_sockets(ccurl_multi *multi, ccurl_waitfd *sockets, int capacity, long *timeout_ms);

/// Sends bytes on a connect-only connection: 0 with `sent` set, CCURLE_AGAIN when the socket
/// would block, another code when the connection failed. On the loop thread only.
int ccurl_easy_send(ccurl_easy *easy, const void *buffer, size_t length, size_t *sent);
/// Receives bytes on a connect-only connection: 0 with `received` set (0 bytes: the peer closed),
/// CCURLE_AGAIN when nothing is there yet, another code when the connection failed.
int ccurl_easy_recv(ccurl_easy *easy, void *buffer, size_t length, size_t *received);
/// The socket of a connect-only handle's connection (CURLINFO_ACTIVESOCKET): 0 with `socket` set.
int ccurl_easy_active_socket(ccurl_easy *easy, int *socket);
/// Interrupts a `ccurl_multi_poll`; the one call that may come from any thread.
int ccurl_multi_wakeup(ccurl_multi *multi);
/// The next finished transfer, copied out of libcurl's message (which the next removal
/// invalidates): 1 with `easy` and `result` set, 0 when no transfer has finished.
int ccurl_multi_next_done(ccurl_multi *multi, ccurl_easy **easy, int *result);
const char *ccurl_multi_strerror(int code);

/// Marks the calling thread as the thread of an I/O loop (`loop` identifies it), or unmarks it
/// with `NULL`. Thread-local: each loop thread sets its own mark once.
void ccourier_set_current_loop(void *loop);
/// The loop the calling thread runs, or `NULL` when it is not an I/O loop thread.
void *ccourier_current_loop(void);
/// Names the calling thread for debuggers and profilers (the first 15 bytes of `name`).
void ccourier_name_thread(const char *name);

#endif
