# Shared by scripts/test and scripts/reliability: the Python test servers, started on free
# 127.0.0.1 ports. Expects $workdir (a scratch folder) and $venv; stop_test_servers stops them.

ensure_test_venv() {
    if ! "$venv/bin/python" -c 'import httpbin, gunicorn, websockets' 2>/dev/null; then
        if ! python3 -m venv --help >/dev/null 2>&1; then
            apt-get update -qq && apt-get install -y -qq python3-venv
        fi
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/requirements-test.txt
    fi
}

# Installs libcurl's development headers when they are missing, so that the build checks the
# constants of Sources/CCourierCurl against <curl/curl.h>. Courier builds without them (libcurl is
# loaded at run time), so a machine that cannot install them only loses that check.
ensure_libcurl_headers() {
    if echo '#include <curl/curl.h>' | "$(command -v cc || command -v clang)" -E - >/dev/null 2>&1; then return 0; fi
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcurl4-openssl-dev >/dev/null; }; then
        echo "warning: libcurl4-openssl-dev could not be installed; CCourierCurl's constants go unchecked" >&2
    fi
}

# Starts a server that prints "Listening at: http://127.0.0.1:PORT" (or https://) and echoes that
# URL. It ends after 30 minutes (TERM, then KILL 10 s later) or when stop_test_servers sends TERM, even when this
# shell was started with SIGTERM blocked or ignored (scripts/lib/killable.py resets that).
start_server() {
    local name="$1"
    shift
    local log="$workdir/$name.log"
    python3 scripts/lib/killable.py timeout --signal=TERM --kill-after=10 1800 "$@" >"$log" 2>&1 &
    # Runs in a $(…) subshell: remember the PID in a file the cleanup reads.
    echo "$!" >>"$workdir/server-pids"
    for _ in $(seq 1 150); do
        local url
        url=$(grep -so 'Listening at: https\?://127\.0\.0\.1:[0-9]*' "$log" | head -n1 | sed 's/Listening at: //') || true
        if [ -n "$url" ]; then
            echo "$url"
            return 0
        fi
        sleep 0.2
    done
    echo "error: $name did not start; its log:" >&2
    cat "$log" >&2
    return 1
}

# Whether process $1 is running (a zombie is not).
process_running() {
    local state
    state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "${state:0:1}" != Z ]
}

# Stops the servers start_server started and waits until they are gone (15 s at most: `timeout`
# sends KILL 10 s after TERM). They were started in $(…) subshells, so `wait` cannot wait for them.
stop_test_servers() {
    [ -f "$workdir/server-pids" ] || return 0
    local pids pid
    pids=$(cat "$workdir/server-pids")
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 150); do
        for pid in $pids; do process_running "$pid" && continue 2; done
        return 0
    done
}

# A CA and a certificate for 127.0.0.1 signed by it (P-256, two days) in $workdir/ws-tls, for the
# wss server: ca.pem, server.pem, server.key.
make_websocket_certificates() {
    local folder="$workdir/ws-tls"
    mkdir -p "$folder"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj "/CN=Courier WebSocket Test CA" -keyout "$folder/ca.key" -out "$folder/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$folder/server.key" -out "$folder/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' >"$folder/server.ext"
    openssl x509 -req -in "$folder/server.csr" -CA "$folder/ca.pem" -CAkey "$folder/ca.key" -CAcreateserial \
        -days 2 -extfile "$folder/server.ext" -out "$folder/server.pem" 2>/dev/null
}

# The WebSocket servers (scripts/servers/websocket.py with the websockets package from $venv,
# plain and over TLS, and the raw misbehaving wsraw.py): exports COURIER_WS_URL, COURIER_WSS_URL
# (ws:// and wss:// URLs), COURIER_WSS_CA (the CA that signed the wss server's certificate) and
# COURIER_WSRAW_URL, and COURIER_TEST_VENV (so that tests can start websocket.py themselves).
start_websocket_servers() {
    local url
    url=$(start_server websocket "$venv/bin/python" scripts/servers/websocket.py --lifetime 1800)
    COURIER_WS_URL="ws://${url#http://}"
    make_websocket_certificates
    url=$(start_server websocket-tls "$venv/bin/python" scripts/servers/websocket.py --lifetime 1800 \
        --cert "$workdir/ws-tls/server.pem" --key "$workdir/ws-tls/server.key")
    COURIER_WSS_URL="wss://${url#https://}"
    COURIER_WSS_CA="$workdir/ws-tls/ca.pem"
    url=$(start_server wsraw python3 scripts/servers/wsraw.py --lifetime 1800)
    COURIER_WSRAW_URL="ws://${url#http://}"
    COURIER_HTTPECHO_URL=$(start_server httpecho python3 scripts/servers/httpecho.py --lifetime 1800)
    COURIER_TEST_VENV=$(cd "$venv" && pwd)
    export COURIER_WS_URL COURIER_WSS_URL COURIER_WSS_CA COURIER_WSRAW_URL COURIER_HTTPECHO_URL COURIER_TEST_VENV
}

# Starts every test server and exports their URLs.
start_test_servers() {
    COURIER_HTTPBIN_URL=$(start_server httpbin "$venv/bin/gunicorn" --bind 127.0.0.1:0 --worker-class gthread \
        --threads 32 --timeout 120 --no-control-socket httpbin:app)
    COURIER_SINK_URL=$(start_server sink python3 scripts/servers/sink.py --lifetime 1800)
    python3 scripts/bench_data.py "$workdir/static" 16777216
    COURIER_FILES_URL=$(start_server files python3 scripts/servers/files.py --lifetime 1800 --static "$workdir/static")
    COURIER_FAULTS_URL=$(start_server faults python3 scripts/servers/faults.py --lifetime 1800)
    COURIER_MEDIA_URL=$(start_server media python3 scripts/servers/mediaapi.py --lifetime 1800)
    COURIER_CACHE_URL=$(start_server cache python3 scripts/servers/cache.py --lifetime 1800)
    export COURIER_HTTPBIN_URL COURIER_SINK_URL COURIER_FILES_URL COURIER_FAULTS_URL COURIER_MEDIA_URL COURIER_CACHE_URL
    start_websocket_servers
    echo "httpbin at $COURIER_HTTPBIN_URL, upload sink at $COURIER_SINK_URL, files at $COURIER_FILES_URL, faults at $COURIER_FAULTS_URL, fake iTunes and TMDB at $COURIER_MEDIA_URL, HTTP cache routes at $COURIER_CACHE_URL"
    echo "WebSockets at $COURIER_WS_URL and $COURIER_WSS_URL (CA $COURIER_WSS_CA), misbehaving at $COURIER_WSRAW_URL"
}
