#!/usr/bin/env python3
"""A fake iTunes Search and TMDB API for mediasearch's online path, answering from the samples
bundled with the program (Examples/MediaSearchCommand/Samples), as the live services answer.

  GET /search?term=&media=&offset=&limit=&country=   iTunes search (text/javascript, like the real one);
                          a country outside US GB DE FR JP CA AU gets iTunes' 400 with errorMessage
  GET /lookup?id=A,B      iTunes lookup; id 666 is a song whose title and artist carry terminal escape
                          sequences and a bidirectional override (what a hostile catalogue entry could)
  GET /3/movie/popular?page=N, /3/movie/ID, /3/search/movie?query=, /3/configuration
                          TMDB; api_key=test-key or "Authorization: Bearer test-token", else TMDB's 401
                          with status_message
  GET /t/p/SIZE/FILE      the sample poster (PNG), sent in 8 pieces 50 ms apart, so progress shows

Listens on 127.0.0.1 on a free port, prints "Listening at: http://127.0.0.1:PORT", and exits by
itself after --lifetime seconds. mediasearch reaches it with MEDIASEARCH_ITUNES_URL=URL,
MEDIASEARCH_TMDB_URL=URL/3 and MEDIASEARCH_IMAGE_URL=URL/t/p/."""
import json
import os
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse

from common import lifetime_parser, serve

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "MediaSearchCommand", "Samples")
COUNTRIES = {"US", "GB", "DE", "FR", "JP", "CA", "AU"}


def load_itunes():
    samples = []
    folder = os.path.join(SAMPLES, "itunes")
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as handle:
            samples.append(json.load(handle))
    return samples


def load_tmdb(name):
    with open(os.path.join(SAMPLES, "tmdb", name), "rb") as handle:
        return handle.read()


ITUNES = load_itunes()
POPULAR = json.loads(load_tmdb("popular.json"))["results"]
MOVIES = json.loads(load_tmdb("movies.json"))
CONFIGURATION = load_tmdb("configuration.json")
POSTER = load_tmdb("poster.png")


HOSTILE = {"wrapperType": "track", "kind": "song", "trackId": 666, "artistId": 667,
           "trackName": "Evil\x1b]0;pwned\x07 Song\x1b[2J", "artistName": "Mallory\u202e\x9b31m",
           "collectionName": "Escapes", "releaseDate": "2020-01-01T00:00:00Z"}


def words(text):
    return text.lower().replace("+", " ").split()


class MediaAPI(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def _send(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, value, status=200, content_type="application/json;charset=utf-8"):
        self._send(status, json.dumps(value).encode(), content_type)

    def do_GET(self):
        url = urlparse(self.path)
        query = {name: values[0] for name, values in parse_qs(url.query).items()}
        path = url.path
        if path == "/search":
            return self._search(query)
        if path == "/lookup":
            ids = {int(part) for part in query.get("id", "").split(",") if part.isdigit()}
            found, seen = ([HOSTILE] if 666 in ids else []), set()
            for sample in ITUNES:
                for item in sample["results"]:
                    if not isinstance(item, dict):
                        continue
                    item_id = next((item[key] for key in ("trackId", "collectionId", "artistId") if key in item and item[key] in ids), None)
                    if item_id is not None and item_id not in seen:
                        seen.add(item_id)
                        found.append(item)
            return self._json({"resultCount": len(found), "results": found}, content_type="text/javascript; charset=utf-8")
        if path.startswith("/3/"):
            return self._tmdb(path[2:], query)
        if path.startswith("/t/p/"):
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(POSTER)))
            self.end_headers()
            step = max(1, len(POSTER) // 8)
            for start in range(0, len(POSTER), step):
                self.wfile.write(POSTER[start:start + step])
                self.wfile.flush()
                time.sleep(0.05)
            return
        self._json({"message": "no such path"}, status=404)

    def _search(self, query):
        country = query.get("country", "US").upper()
        if country not in COUNTRIES:
            return self._json({"errorMessage": "Invalid value(s) for key(s): [country]",
                               "queryParameters": {"country": country}}, status=400,
                              content_type="text/javascript; charset=utf-8")
        wanted = words(query.get("term", ""))
        media = query.get("media", "all")
        results = []
        for sample in ITUNES:
            if sample["media"] == media and all(word in sample["term"] for word in wanted):
                results = sample["results"]
                break
        offset = int(query.get("offset", "0") or 0)
        limit = int(query.get("limit", "50") or 50)
        page = results[offset:offset + limit]
        self._json({"resultCount": len(page), "results": page}, content_type="text/javascript; charset=utf-8")

    def _tmdb(self, path, query):
        authorized = query.get("api_key") == "test-key" or self.headers.get("Authorization") == "Bearer test-token"
        if not authorized:
            return self._json({"status_code": 7, "status_message": "Invalid API key: You must be granted a valid key.",
                               "success": False}, status=401)
        if path == "/movie/popular":
            page = int(query.get("page", "1") or 1)
            return self._json(self._page(POPULAR, page))
        if path == "/search/movie":
            wanted = words(query.get("query", ""))
            matches = [movie for movie in POPULAR if all(word in movie["title"].lower() for word in wanted)]
            return self._json(self._page(matches, int(query.get("page", "1") or 1)))
        if path == "/configuration":
            return self._send(200, CONFIGURATION)
        if path.startswith("/movie/") and path[7:] in MOVIES:
            return self._json(MOVIES[path[7:]])
        self._json({"status_code": 34, "status_message": "The resource you requested could not be found.",
                    "success": False}, status=404)

    @staticmethod
    def _page(movies, page):
        pages = max(1, (len(movies) + 19) // 20)
        return {"page": page, "results": movies[(page - 1) * 20:page * 20], "total_pages": pages,
                "total_results": len(movies)}


def main():
    options = lifetime_parser("A fake iTunes and TMDB API for mediasearch").parse_args()
    serve(MediaAPI, options.lifetime)


if __name__ == "__main__":
    main()
