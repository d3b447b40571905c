// The ceiling for courier-bench: libcurl driven from C, the way CurlTransport drives it (one
// multi handle, easy handles reused, keep-alive connections), with no Swift in the way.
//
//   bench_ceiling URL COUNT CONCURRENCY [CA_FILE]
//
// Prints "SECONDS CPU_SECONDS" for COUNT GETs of URL with CONCURRENCY in flight; exits non-zero
// when a request fails or answers anything but 200. With CA_FILE (a PEM file), HTTPS is verified
// against it and HTTP/2 is used where the server offers it, requests waiting for a connection that
// can multiplex them (as CurlTransport's do). scripts/bench builds it with `cc -lcurl`.
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    *(size_t *)context += size * count;
    return size * count;
}

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec + time.tv_nsec / 1e9;
}

/* Context switches, voluntary and not, of the whole process. */
static long switches(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_nvcsw + usage.ru_nivcsw;
}

static double cpu(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: bench_ceiling URL COUNT CONCURRENCY [CA_FILE]\n");
        return 64;
    }
    const char *url = argv[1];
    long count = atol(argv[2]);
    long concurrency = atol(argv[3]);
    const char *authorities = argc == 5 ? argv[4] : NULL;
    if (count < 1 || concurrency < 1) return 64;
    if (concurrency > count) concurrency = count;
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, concurrency);
    size_t received = 0;
    long started = 0, finished = 0;
    double start = now(), cpu_start = cpu();
    long switches_start = switches();
    for (long index = 0; index < concurrency; index++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &received);
        if (authorities != NULL) {
            curl_easy_setopt(easy, CURLOPT_CAINFO, authorities);
            curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
            curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        }
        curl_multi_add_handle(multi, easy);
        started++;
    }
    while (finished < count) {
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            CURLcode result = message->data.result;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (result != CURLE_OK || status != 200) {
                fprintf(stderr, "bench_ceiling: %s (status %ld)\n", curl_easy_strerror(result), status);
                return 1;
            }
            finished++;
            curl_multi_remove_handle(multi, easy);
            if (started < count) {
                curl_multi_add_handle(multi, easy);
                started++;
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (finished < count) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    printf("%.6f %.6f %ld\n", now() - start, cpu() - cpu_start, switches() - switches_start);
    curl_multi_cleanup(multi);
    return 0;
}
