#define _GNU_SOURCE
#include "CCourierCurl.h"

#include <dlfcn.h>
#include <stddef.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>

#if __has_include(<curl/curl.h>)
#include <curl/curl.h>
// The header is here: every value the Swift side relies on must be libcurl's own.
#define CHECK(ours, theirs) _Static_assert((long)(ours) == (long)(theirs), #ours " differs from libcurl's")
CHECK(CCURLOPT_WRITEDATA, CURLOPT_WRITEDATA);
CHECK(CCURLOPT_URL, CURLOPT_URL);
CHECK(CCURLOPT_READDATA, CURLOPT_READDATA);
CHECK(CCURLOPT_ERRORBUFFER, CURLOPT_ERRORBUFFER);
CHECK(CCURLOPT_WRITEFUNCTION, CURLOPT_WRITEFUNCTION);
CHECK(CCURLOPT_READFUNCTION, CURLOPT_READFUNCTION);
CHECK(CCURLOPT_HTTPHEADER, CURLOPT_HTTPHEADER);
CHECK(CCURLOPT_HEADERDATA, CURLOPT_HEADERDATA);
CHECK(CCURLOPT_CUSTOMREQUEST, CURLOPT_CUSTOMREQUEST);
CHECK(CCURLOPT_NOBODY, CURLOPT_NOBODY);
CHECK(CCURLOPT_UPLOAD, CURLOPT_UPLOAD);
CHECK(CCURLOPT_FOLLOWLOCATION, CURLOPT_FOLLOWLOCATION);
CHECK(CCURLOPT_SSL_VERIFYPEER, CURLOPT_SSL_VERIFYPEER);
CHECK(CCURLOPT_CAINFO, CURLOPT_CAINFO);
CHECK(CCURLOPT_HEADERFUNCTION, CURLOPT_HEADERFUNCTION);
CHECK(CCURLOPT_HTTPGET, CURLOPT_HTTPGET);
CHECK(CCURLOPT_SSL_VERIFYHOST, CURLOPT_SSL_VERIFYHOST);
CHECK(CCURLOPT_HTTP_VERSION, CURLOPT_HTTP_VERSION);
CHECK(CCURLOPT_NOSIGNAL, CURLOPT_NOSIGNAL);
CHECK(CCURLOPT_ACCEPT_ENCODING, CURLOPT_ACCEPT_ENCODING);
CHECK(CCURLOPT_HTTP_CONTENT_DECODING, CURLOPT_HTTP_CONTENT_DECODING);
CHECK(CCURLOPT_INFILESIZE_LARGE, CURLOPT_INFILESIZE_LARGE);
CHECK(CCURLOPT_TIMEOUT_MS, CURLOPT_TIMEOUT_MS);
CHECK(CCURLOPT_CONNECTTIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS);
CHECK(CCURLOPT_SEEKFUNCTION, CURLOPT_SEEKFUNCTION);
CHECK(CCURLOPT_SEEKDATA, CURLOPT_SEEKDATA);
CHECK(CCURLOPT_TCP_KEEPALIVE, CURLOPT_TCP_KEEPALIVE);
CHECK(CCURLOPT_PINNEDPUBLICKEY, CURLOPT_PINNEDPUBLICKEY);
CHECK(CCURLOPT_PIPEWAIT, CURLOPT_PIPEWAIT);
CHECK(CCURLOPT_PROXY, CURLOPT_PROXY);
CHECK(CCURLOPT_SUPPRESS_CONNECT_HEADERS, CURLOPT_SUPPRESS_CONNECT_HEADERS);
CHECK(CCURLOPT_SSLCERT, CURLOPT_SSLCERT);
CHECK(CCURLOPT_KEYPASSWD, CURLOPT_KEYPASSWD);
CHECK(CCURLOPT_SSLVERSION, CURLOPT_SSLVERSION);
CHECK(CCURLOPT_SSLCERTTYPE, CURLOPT_SSLCERTTYPE);
CHECK(CCURLOPT_SSLKEY, CURLOPT_SSLKEY);
CHECK(CCURLOPT_SSLKEYTYPE, CURLOPT_SSLKEYTYPE);
CHECK(CCURLOPT_PROXYAUTH, CURLOPT_PROXYAUTH);
CHECK(CCURLOPT_PROXYUSERNAME, CURLOPT_PROXYUSERNAME);
CHECK(CCURLOPT_PROXYPASSWORD, CURLOPT_PROXYPASSWORD);
CHECK(CCURLOPT_NOPROXY, CURLOPT_NOPROXY);
CHECK(CCURLOPT_PROXY_CAINFO, CURLOPT_PROXY_CAINFO);
CHECK(CCURLOPT_PROXY_SSL_VERIFYPEER, CURLOPT_PROXY_SSL_VERIFYPEER);
CHECK(CCURLOPT_PROXY_SSL_VERIFYHOST, CURLOPT_PROXY_SSL_VERIFYHOST);
CHECK(CCURLOPT_PROXY_SSLVERSION, CURLOPT_PROXY_SSLVERSION);
CHECK(CCURLOPT_PROXY_SSLCERT, CURLOPT_PROXY_SSLCERT);
CHECK(CCURLOPT_PROXY_SSLCERTTYPE, CURLOPT_PROXY_SSLCERTTYPE);
CHECK(CCURLOPT_PROXY_SSLKEY, CURLOPT_PROXY_SSLKEY);
CHECK(CCURLOPT_PROXY_SSLKEYTYPE, CURLOPT_PROXY_SSLKEYTYPE);
CHECK(CCURLOPT_PROXY_KEYPASSWD, CURLOPT_PROXY_KEYPASSWD);
CHECK(CCURLOPT_PROXY_PINNEDPUBLICKEY, CURLOPT_PROXY_PINNEDPUBLICKEY);
CHECK(CCURLOPT_RESOLVE, CURLOPT_RESOLVE);
CHECK(CCURLOPT_MAXAGE_CONN, CURLOPT_MAXAGE_CONN);
CHECK(CCURLOPT_SSL_SESSIONID_CACHE, CURLOPT_SSL_SESSIONID_CACHE);
CHECK(CCURLINFO_NUM_CONNECTS, CURLINFO_NUM_CONNECTS);
CHECK(CCURLOPT_PROXYHEADER, CURLOPT_PROXYHEADER);
CHECK(CCURLOPT_HEADEROPT, CURLOPT_HEADEROPT);
CHECK(CCURLHEADER_SEPARATE, CURLHEADER_SEPARATE);
CHECK(CCURLHEADER_UNIFIED, CURLHEADER_UNIFIED);
CHECK(CCURLOPT_FRESH_CONNECT, CURLOPT_FRESH_CONNECT);
CHECK(CCURLOPT_FORBID_REUSE, CURLOPT_FORBID_REUSE);
#if LIBCURL_VERSION_NUM >= 0x075000
CHECK(CCURLOPT_MAXLIFETIME_CONN, CURLOPT_MAXLIFETIME_CONN);
#endif
CHECK(CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
CHECK(CCURL_SSLVERSION_TLSv1_2, CURL_SSLVERSION_TLSv1_2);
CHECK(CCURL_SSLVERSION_TLSv1_3, CURL_SSLVERSION_TLSv1_3);
CHECK(CCURLAUTH_ANY, CURLAUTH_ANY);
CHECK(CCURLPX_NO_AUTH, CURLPX_NO_AUTH);
CHECK(CCURLPX_USER_REJECTED, CURLPX_USER_REJECTED);
CHECK(CCURLINFO_PROXY_ERROR, CURLINFO_PROXY_ERROR);
CHECK(CCURLPROTO_HTTP, CURLPROTO_HTTP);
CHECK(CCURLPROTO_HTTPS, CURLPROTO_HTTPS);
#if LIBCURL_VERSION_NUM >= 0x075500
CHECK(CCURLOPT_PROTOCOLS_STR, CURLOPT_PROTOCOLS_STR);
CHECK(CCURLOPT_REDIR_PROTOCOLS_STR, CURLOPT_REDIR_PROTOCOLS_STR);
#endif
CHECK(CCURLMOPT_PIPELINING, CURLMOPT_PIPELINING);
CHECK(CCURLMOPT_MAXCONNECTS, CURLMOPT_MAXCONNECTS);
CHECK(CCURLMOPT_MAX_HOST_CONNECTIONS, CURLMOPT_MAX_HOST_CONNECTIONS);
CHECK(CCURL_HTTP_VERSION_1_1, CURL_HTTP_VERSION_1_1);
CHECK(CCURL_HTTP_VERSION_2TLS, CURL_HTTP_VERSION_2TLS);
CHECK(CCURLPIPE_MULTIPLEX, CURLPIPE_MULTIPLEX);
CHECK(CCURL_READFUNC_ABORT, CURL_READFUNC_ABORT);
CHECK(CCURL_WRITEFUNC_PAUSE, CURL_WRITEFUNC_PAUSE);
CHECK(CCURLPAUSE_CONT, CURLPAUSE_CONT);
CHECK(CCURL_SEEKFUNC_OK, CURL_SEEKFUNC_OK);
CHECK(CCURL_SEEKFUNC_FAIL, CURL_SEEKFUNC_FAIL);
CHECK(CCURL_ERROR_SIZE, CURL_ERROR_SIZE);
CHECK(CCURLE_UNSUPPORTED_PROTOCOL, CURLE_UNSUPPORTED_PROTOCOL);
CHECK(CCURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_PROXY);
CHECK(CCURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_HOST);
CHECK(CCURLE_COULDNT_CONNECT, CURLE_COULDNT_CONNECT);
CHECK(CCURLE_WEIRD_SERVER_REPLY, CURLE_WEIRD_SERVER_REPLY);
CHECK(CCURLE_HTTP2, CURLE_HTTP2);
CHECK(CCURLE_PARTIAL_FILE, CURLE_PARTIAL_FILE);
CHECK(CCURLE_OUT_OF_MEMORY, CURLE_OUT_OF_MEMORY);
CHECK(CCURLE_OPERATION_TIMEDOUT, CURLE_OPERATION_TIMEDOUT);
CHECK(CCURLE_SSL_CONNECT_ERROR, CURLE_SSL_CONNECT_ERROR);
CHECK(CCURLE_GOT_NOTHING, CURLE_GOT_NOTHING);
CHECK(CCURLE_SEND_ERROR, CURLE_SEND_ERROR);
CHECK(CCURLE_RECV_ERROR, CURLE_RECV_ERROR);
CHECK(CCURLE_SSL_CERTPROBLEM, CURLE_SSL_CERTPROBLEM);
CHECK(CCURLE_SSL_CIPHER, CURLE_SSL_CIPHER);
CHECK(CCURLE_PEER_FAILED_VERIFICATION, CURLE_PEER_FAILED_VERIFICATION);
CHECK(CCURLE_BAD_CONTENT_ENCODING, CURLE_BAD_CONTENT_ENCODING);
CHECK(CCURLE_FILESIZE_EXCEEDED, CURLE_FILESIZE_EXCEEDED);
CHECK(CCURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_ENGINE_INITFAILED);
CHECK(CCURLE_SSL_CACERT_BADFILE, CURLE_SSL_CACERT_BADFILE);
CHECK(CCURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_SHUTDOWN_FAILED);
CHECK(CCURLE_AGAIN, CURLE_AGAIN);
CHECK(CCURLE_SSL_CRL_BADFILE, CURLE_SSL_CRL_BADFILE);
CHECK(CCURLE_SSL_ISSUER_ERROR, CURLE_SSL_ISSUER_ERROR);
CHECK(CCURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_PINNEDPUBKEYNOTMATCH);
CHECK(CCURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_INVALIDCERTSTATUS);
CHECK(CCURLE_HTTP2_STREAM, CURLE_HTTP2_STREAM);
CHECK(CCURLE_HTTP3, CURLE_HTTP3);
CHECK(CCURLE_QUIC_CONNECT_ERROR, CURLE_QUIC_CONNECT_ERROR);
CHECK(CCURLE_PROXY, CURLE_PROXY);
CHECK(CCURLE_SSL_CLIENTCERT, CURLE_SSL_CLIENTCERT);
CHECK(CCURLINFO_HTTP_CONNECTCODE, CURLINFO_HTTP_CONNECTCODE);
CHECK(CCURLINFO_OS_ERRNO, CURLINFO_OS_ERRNO);
CHECK(CCURLOPT_UNIX_SOCKET_PATH, CURLOPT_UNIX_SOCKET_PATH);
CHECK(CCURLOPT_CONNECT_ONLY, CURLOPT_CONNECT_ONLY);
CHECK(CCURLOPT_HTTPPROXYTUNNEL, CURLOPT_HTTPPROXYTUNNEL);
CHECK(0x500000 + 44, CURLINFO_ACTIVESOCKET);
_Static_assert(sizeof(curl_socket_t) == sizeof(int), "curl_socket_t is not an int");
CHECK(CCURL_WAIT_POLLIN, CURL_WAIT_POLLIN);
CHECK(CCURL_WAIT_POLLOUT, CURL_WAIT_POLLOUT);
_Static_assert(sizeof(ccurl_waitfd) == sizeof(struct curl_waitfd), "curl_waitfd layout differs");
_Static_assert(offsetof(ccurl_waitfd, events) == offsetof(struct curl_waitfd, events), "curl_waitfd layout differs");
_Static_assert(sizeof(curl_off_t) == sizeof(int64_t), "curl_off_t is not 64 bits");
#endif

// The message libcurl hands out from curl_multi_info_read (same layout as CURLMsg).
struct ccurl_message {
    int kind;  // 1: done
    ccurl_easy *easy;
    union {
        void *whatever;
        int result;
    } data;
};
#if __has_include(<curl/curl.h>)
_Static_assert(sizeof(struct ccurl_message) == sizeof(CURLMsg), "CURLMsg layout differs");
_Static_assert(offsetof(struct ccurl_message, easy) == offsetof(CURLMsg, easy_handle), "CURLMsg layout differs");
_Static_assert(offsetof(struct ccurl_message, data) == offsetof(CURLMsg, data), "CURLMsg layout differs");
#endif

static struct {
    int (*global_init)(long flags);
    const char *(*version)(void);
    ccurl_easy *(*easy_init)(void);
    void (*easy_cleanup)(ccurl_easy *);
    int (*easy_setopt)(ccurl_easy *, int, ...);
    int (*easy_pause)(ccurl_easy *, int);
    const char *(*easy_strerror)(int);
    int (*easy_getinfo)(ccurl_easy *, int, ...);
    ccurl_slist *(*slist_append)(ccurl_slist *, const char *);
    void (*slist_free_all)(ccurl_slist *);
    ccurl_multi *(*multi_init)(void);
    int (*multi_cleanup)(ccurl_multi *);
    int (*multi_setopt)(ccurl_multi *, int, ...);
    int (*multi_add_handle)(ccurl_multi *, ccurl_easy *);
    int (*multi_remove_handle)(ccurl_multi *, ccurl_easy *);
    int (*multi_perform)(ccurl_multi *, int *);
    int (*multi_poll)(ccurl_multi *, void *, unsigned int, int, int *);
    int (*multi_fdset)(ccurl_multi *, fd_set *, fd_set *, fd_set *, int *);
    int (*multi_timeout)(ccurl_multi *, long *);
    int (*easy_send)(ccurl_easy *, const void *, size_t, size_t *);
    int (*easy_recv)(ccurl_easy *, void *, size_t, size_t *);
    int (*multi_wakeup)(ccurl_multi *);
    struct ccurl_message *(*multi_info_read)(ccurl_multi *, int *);
    const char *(*multi_strerror)(int);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

static void load(void) {
    static const char *const names[] = {
#if defined(__APPLE__)
        "/usr/lib/libcurl.4.dylib",
        "libcurl.4.dylib",
        "libcurl.dylib",
#else
        "libcurl.so.4",
        "libcurl.so",
        "libcurl-gnutls.so.4",
#endif
    };
    void *library = NULL;
    for (size_t index = 0; index < sizeof(names) / sizeof(names[0]) && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_GLOBAL);
    }
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof(load_error), "libcurl could not be loaded: %s", reason ? reason : "not found");
        return;
    }
#define RESOLVE(field, symbol)                                                                          \
    do {                                                                                                \
        *(void **)(&curl.field) = dlsym(library, symbol);                                               \
        if (curl.field == NULL) {                                                                       \
            snprintf(load_error, sizeof(load_error), "libcurl has no %s (version 7.68 or later is needed)", \
                     symbol);                                                                           \
            return;                                                                                     \
        }                                                                                               \
    } while (0)
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(version, "curl_version");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_pause, "curl_easy_pause");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    RESOLVE(multi_init, "curl_multi_init");
    RESOLVE(multi_cleanup, "curl_multi_cleanup");
    RESOLVE(multi_setopt, "curl_multi_setopt");
    RESOLVE(multi_add_handle, "curl_multi_add_handle");
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    RESOLVE(multi_perform, "curl_multi_perform");
    RESOLVE(multi_poll, "curl_multi_poll");
    RESOLVE(multi_fdset, "curl_multi_fdset");
    RESOLVE(multi_timeout, "curl_multi_timeout");
    RESOLVE(easy_send, "curl_easy_send");
    RESOLVE(easy_recv, "curl_easy_recv");
    RESOLVE(multi_wakeup, "curl_multi_wakeup");
    RESOLVE(multi_info_read, "curl_multi_info_read");
    RESOLVE(multi_strerror, "curl_multi_strerror");
#undef RESOLVE
    // CURL_GLOBAL_ALL (SSL and Win32 socket set-up); harmless when FoundationNetworking did it already.
    int code = curl.global_init(3);
    if (code != 0) {
        snprintf(load_error, sizeof(load_error), "curl_global_init failed with code %d", code);
        return;
    }
    load_status = 0;
}

int ccurl_load(char *error, size_t capacity) {
    pthread_once(&load_once, load);
    if (load_status != 0 && error != NULL && capacity > 0) {
        snprintf(error, capacity, "%s", load_error);
    }
    return load_status;
}

const char *ccurl_version(void) { return curl.version(); }

ccurl_easy *ccurl_easy_init(void) { return curl.easy_init(); }
void ccurl_easy_cleanup(ccurl_easy *easy) { curl.easy_cleanup(easy); }

int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value) {
    return curl.easy_setopt(easy, option, value);
}

int ccurl_easy_setopt_int64(ccurl_easy *easy, int option, int64_t value) {
    return curl.easy_setopt(easy, option, value);
}

int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}

int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}

int ccurl_easy_setopt_seek_callback(ccurl_easy *easy, ccurl_seek_callback callback) {
    return curl.easy_setopt(easy, CCURLOPT_SEEKFUNCTION, callback);
}

int ccurl_easy_pause(ccurl_easy *easy, int bitmask) { return curl.easy_pause(easy, bitmask); }

const char *ccurl_easy_strerror(int code) { return curl.easy_strerror(code); }

int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value) {
    return curl.easy_getinfo(easy, info, value);
}

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *line) { return curl.slist_append(list, line); }
void ccurl_slist_free_all(ccurl_slist *list) { curl.slist_free_all(list); }

ccurl_multi *ccurl_multi_init(void) { return curl.multi_init(); }
int ccurl_multi_cleanup(ccurl_multi *multi) { return curl.multi_cleanup(multi); }

int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value) {
    return curl.multi_setopt(multi, option, value);
}

int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy) { return curl.multi_add_handle(multi, easy); }
int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy) { return curl.multi_remove_handle(multi, easy); }
int ccurl_multi_perform(ccurl_multi *multi, int *running) { return curl.multi_perform(multi, running); }

int ccurl_multi_poll(ccurl_multi *multi, int timeout_ms, int *descriptors) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, descriptors);
}

int ccurl_multi_poll_with(ccurl_multi *multi, ccurl_waitfd *extra, unsigned int count, int timeout_ms,
                          int *descriptors) {
    return curl.multi_poll(multi, count > 0 ? extra : NULL, count, timeout_ms, descriptors);
}

int ccurl_multi_wanted_sockets(ccurl_multi *multi, ccurl_waitfd *sockets, int capacity, long *timeout_ms) {
    fd_set reading, writing, failing;
    FD_ZERO(&reading);
    FD_ZERO(&writing);
    FD_ZERO(&failing);
    int highest = -1;
    if (curl.multi_fdset(multi, &reading, &writing, &failing, &highest) != 0) return -1;
    if (curl.multi_timeout(multi, timeout_ms) != 0) *timeout_ms = -1;
    int count = 0;
    for (int fd = 0; fd <= highest && fd < FD_SETSIZE && count < capacity; fd++) {
        short events = 0;
        if (FD_ISSET(fd, &reading)) events |= CCURL_WAIT_POLLIN;
        if (FD_ISSET(fd, &writing)) events |= CCURL_WAIT_POLLOUT;
        if (events == 0) continue;
        sockets[count].fd = fd;
        sockets[count].events = events;
        sockets[count].revents = 0;
        count++;
    }
    return count;
}

int ccurl_easy_send(ccurl_easy *easy, const void *buffer, size_t length, size_t *sent) {
    return curl.easy_send(easy, buffer, length, sent);
}

int ccurl_easy_recv(ccurl_easy *easy, void *buffer, size_t length, size_t *received) {
    return curl.easy_recv(easy, buffer, length, received);
}

int ccurl_easy_active_socket(ccurl_easy *easy, int *socket) {
    // CURLINFO_ACTIVESOCKET: CURLINFO_SOCKET + 44; a curl_socket_t, an int on POSIX systems.
    return curl.easy_getinfo(easy, 0x500000 + 44, socket);
}

int ccurl_multi_wakeup(ccurl_multi *multi) { return curl.multi_wakeup(multi); }

int ccurl_multi_next_done(ccurl_multi *multi, ccurl_easy **easy, int *result) {
    int remaining = 0;
    struct ccurl_message *message;
    while ((message = curl.multi_info_read(multi, &remaining)) != NULL) {
        if (message->kind == 1) {
            *easy = message->easy;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

const char *ccurl_multi_strerror(int code) { return curl.multi_strerror(code); }

// The loop a thread runs, if it is one of Courier's I/O loop threads: set once by the loop's
// thread itself, read by code on the same thread, so a thread-local needs no lock.
static _Thread_local void *current_loop = NULL;

void ccourier_set_current_loop(void *loop) { current_loop = loop; }

void ccourier_name_thread(const char *name) {
    char shortened[16];
    snprintf(shortened, sizeof shortened, "%s", name);
#if defined(__APPLE__)
    pthread_setname_np(shortened);
#else
    pthread_setname_np(pthread_self(), shortened);
#endif
}

void *ccourier_current_loop(void) { return current_loop; }
