#!/usr/bin/env python3
"""Writes the files the benchmark fetches into a folder: small.json (~500 bytes), page.json (a
25-result iTunes-style page, ~30 KB), 1mb.bin (1 MiB) and stream.bin (a sparse file of zeros for the
streaming rows: 1 GiB, or the size given as the second argument; it takes no disk space).

  bench_data.py FOLDER [STREAM_BYTES]"""
import json
import os
import sys

folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
small = {"id": 42, "name": "Courier", "kind": "benchmark", "tags": ["swift", "http", "linux"],
         "description": "A small JSON document of about five hundred bytes, like an API's answer. " * 6}
with open(os.path.join(folder, "small.json"), "w") as handle:
    json.dump(small, handle)
results = []
for index in range(25):
    results.append({
        "wrapperType": "track", "kind": "song", "artistId": 909253, "collectionId": 1469577723 + index,
        "trackId": 1469577741 + index, "artistName": "Jack Johnson", "collectionName": "In Between Dreams",
        "trackName": f"Song number {index}", "collectionCensoredName": "In Between Dreams",
        "trackCensoredName": f"Song number {index}",
        "artistViewUrl": "https://music.apple.com/us/artist/jack-johnson/909253?uo=4",
        "collectionViewUrl": f"https://music.apple.com/us/album/in-between-dreams/{1469577723 + index}?uo=4",
        "trackViewUrl": f"https://music.apple.com/us/album/song/{1469577723 + index}?i={1469577741 + index}&uo=4",
        "previewUrl": f"https://audio-ssl.itunes.apple.com/itunes-assets/AudioPreview/{index}.plus.aac.p.m4a",
        "artworkUrl30": "https://is1-ssl.mzstatic.com/image/thumb/Music/v4/a/b/c/30x30bb.jpg",
        "artworkUrl60": "https://is1-ssl.mzstatic.com/image/thumb/Music/v4/a/b/c/60x60bb.jpg",
        "artworkUrl100": "https://is1-ssl.mzstatic.com/image/thumb/Music/v4/a/b/c/100x100bb.jpg",
        "collectionPrice": 9.99, "trackPrice": 1.29, "releaseDate": "2005-03-01T08:00:00Z",
        "collectionExplicitness": "notExplicit", "trackExplicitness": "notExplicit", "discCount": 1,
        "discNumber": 1, "trackCount": 14, "trackNumber": index + 1, "trackTimeMillis": 191907,
        "country": "USA", "currency": "USD", "primaryGenreName": "Rock", "isStreamable": True,
    })
with open(os.path.join(folder, "page.json"), "w") as handle:
    json.dump({"resultCount": 25, "results": results}, handle)
with open(os.path.join(folder, "1mb.bin"), "wb") as handle:
    handle.write(bytes(i % 251 for i in range(1 << 20)))
with open(os.path.join(folder, "stream.bin"), "wb") as handle:
    handle.truncate(int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30)
