#!/usr/bin/env python3
"""Writes the sample responses mediasearch --offline answers from.

The shapes follow the real iTunes Search and TMDB v3 responses field by field (see
shared REFERENCE §3); the catalogue data is real where it is public knowledge (titles, artists,
directors, years) and made up where it is not (identifiers, URLs, prices, poster paths). Run it
again after changing it: python3 scripts/samples/make_samples.py
"""
import hashlib
import json
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "MediaSearchCommand", "Samples")


def ident(*parts, base=100_000_000):
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()
    return base + int(digest[:8], 16) % 900_000_000


def slug(text):
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def artwork(kind, *parts):
    key = hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()
    return f"https://is1-ssl.mzstatic.com/image/thumb/{kind}/v4/{key[:2]}/{key[2:4]}/{key[4:6]}/{key[:32]}/source/100x100bb.jpg"


def song(artist, artist_id, album, year, month, number, count, title, millis, genre="Rock", price=1.29):
    collection_id = ident(artist, album)
    track_id = ident(artist, album, title)
    return {
        "wrapperType": "track", "kind": "song", "artistId": artist_id, "collectionId": collection_id,
        "trackId": track_id, "artistName": artist, "collectionName": album, "trackName": title,
        "collectionCensoredName": album, "trackCensoredName": title,
        "artistViewUrl": f"https://music.apple.com/us/artist/{slug(artist)}/{artist_id}?uo=4",
        "collectionViewUrl": f"https://music.apple.com/us/album/{slug(album)}/{collection_id}?uo=4",
        "trackViewUrl": f"https://music.apple.com/us/album/{slug(title)}/{collection_id}?i={track_id}&uo=4",
        "previewUrl": f"https://audio-ssl.itunes.apple.com/itunes-assets/AudioPreview/{track_id}.plus.aac.p.m4a",
        "artworkUrl30": artwork("Music", album).replace("100x100", "30x30"),
        "artworkUrl60": artwork("Music", album).replace("100x100", "60x60"),
        "artworkUrl100": artwork("Music", album),
        "collectionPrice": 9.99, "trackPrice": price, "releaseDate": f"{year}-{month:02d}-01T08:00:00Z",
        "collectionExplicitness": "notExplicit", "trackExplicitness": "notExplicit", "discCount": 1,
        "discNumber": 1, "trackCount": count, "trackNumber": number, "trackTimeMillis": millis,
        "country": "USA", "currency": "USD", "primaryGenreName": genre, "isStreamable": True,
    }


JACK_JOHNSON = [
    ("In Between Dreams", 2005, 3, ["Better Together", "Never Know", "Banana Pancakes", "Good People",
                                    "No Other Way", "Sitting, Waiting, Wishing", "Staple It Together",
                                    "Situations", "Crying Shame", "If I Could", "Breakdown", "Belle",
                                    "Do You Remember", "Constellations"]),
    ("On and On", 2003, 5, ["Times Like These", "The Horizon Has Been Defeated", "Traffic in the Sky",
                            "Taylor", "Gone", "Cupid", "Wasting Time", "Holes to Heaven", "Dreams Be Dreams",
                            "Tomorrow Morning", "Fall Line", "Cookie Jar", "Rodeo Clowns", "Mediocre Bad Guys",
                            "Symbol in My Driveway"]),
    ("Brushfire Fairytales", 2001, 2, ["Inaudible Melodies", "Middle Man", "Posters", "Sexy Plexi", "Flake",
                                       "Bubble Toes", "Fortunate Fool", "The News", "Drink the Water",
                                       "Mudfootball (For Moe Lerner)", "F-Stop Blues", "Losing Keys", "It's All Understood"]),
    ("Sing-A-Longs and Lullabies for the Film Curious George", 2006, 2, ["Upside Down", "Broken",
                                                                          "People Watching", "Wrong Turn",
                                                                          "Talk of the Town", "Jungle Gym"]),
    ("Sleep Through the Static", 2008, 2, ["All at Once", "Sleep Through the Static", "Hope", "Angel",
                                           "If I Had Eyes", "Enemy"]),
    ("To the Sea", 2010, 6, ["You and Your Heart", "To the Sea", "At or With Me"]),
    ("From Here to Now to You", 2013, 9, ["I Got You", "Radiate", "Shot Reverse Shot"]),
    ("Meet the Moonlight", 2022, 6, ["One Step Ahead", "Meet the Moonlight", "Costume Party"]),
]


def jack_johnson_songs():
    items = []
    for album, year, month, titles in JACK_JOHNSON:
        for number, title in enumerate(titles, 1):
            millis = 150_000 + ident(title) % 120_000
            items.append(song("Jack Johnson", 909253, album, year, month, number, len(titles), title, millis))
    return items


def film(director, title, year, genre="Drama", price=14.99, rental=3.99, kind="feature-movie", minutes=120):
    track_id = ident("film", title)
    return {
        "wrapperType": "track", "kind": kind, "trackId": track_id, "artistName": director, "trackName": title,
        "trackCensoredName": title, "trackViewUrl": f"https://itunes.apple.com/us/movie/{slug(title)}/id{track_id}?uo=4",
        "previewUrl": f"https://video-ssl.itunes.apple.com/itunes-assets/Video/{track_id}.mp4",
        "artworkUrl100": artwork("Video", title), "collectionPrice": price, "trackPrice": price,
        "trackRentalPrice": rental, "releaseDate": f"{year}-07-16T07:00:00Z",
        "collectionExplicitness": "notExplicit", "trackExplicitness": "notExplicit",
        "trackTimeMillis": minutes * 60_000, "country": "USA", "currency": "USD", "contentAdvisoryRating": "PG-13",
        "primaryGenreName": genre, "longDescription": f"{title}, directed by {director}.",
    }


NOLAN = [("Following", 1998, 69), ("Memento", 2000, 113), ("Insomnia", 2002, 118), ("Batman Begins", 2005, 140),
         ("The Prestige", 2006, 130), ("The Dark Knight", 2008, 152), ("Inception", 2010, 148),
         ("The Dark Knight Rises", 2012, 165), ("Interstellar", 2014, 169), ("Dunkirk", 2017, 106),
         ("Tenet", 2020, 150), ("Oppenheimer", 2023, 180)]

APPS = [("Notion: Notes, Tasks, AI", "Notion Labs, Incorporated", 0.0, 4.8, "Productivity"),
        ("Bear Markdown Notes", "Shiny Frog Ltd.", 0.0, 4.7, "Productivity"),
        ("GoodNotes 6", "Time Base Technology Limited", 0.0, 4.7, "Productivity"),
        ("Notability: Notes, PDF", "Ginger Labs", 0.0, 4.6, "Productivity"),
        ("Evernote - Notes Organizer", "Evernote Corporation", 0.0, 4.4, "Productivity"),
        ("Microsoft OneNote", "Microsoft Corporation", 0.0, 4.7, "Productivity"),
        ("Obsidian - Connected Notes", "Dynalist Inc.", 0.0, 4.4, "Productivity"),
        ("Drafts", "Agile Tortoise", 0.0, 4.8, "Productivity"),
        ("Simplenote", "Automattic", 0.0, 4.6, "Productivity"),
        ("Noteshelf 3: AI Digital Notes", "Fluid Touch Pte. Ltd.", 0.0, 4.6, "Productivity"),
        ("Things 3", "Cultured Code GmbH & Co. KG", 9.99, 4.8, "Productivity")]


def app(name, seller, price, rating, genre, index):
    track_id = ident("app", name, base=300_000_000)
    item = {
        "wrapperType": "software", "kind": "software", "trackId": track_id, "trackName": name,
        "sellerName": seller, "artistName": seller, "artistId": ident("seller", seller),
        "bundleId": "com." + slug(seller).split("-")[0] + "." + slug(name).split("-")[0],
        "version": f"{2 + index % 5}.{index * 3 % 10}.{index % 4}", "price": price,
        "formattedPrice": "Free" if price == 0 else f"${price:.2f}", "currency": "USD",
        "averageUserRating": rating, "userRatingCount": ident("ratings", name) % 500_000,
        "primaryGenreName": genre, "genres": [genre, "Business"],
        "releaseDate": f"{2012 + index % 10}-0{1 + index % 9}-1{index % 9}T07:00:00Z",
        "trackViewUrl": f"https://apps.apple.com/us/app/{slug(name)}/id{track_id}?uo=4",
        "artworkUrl100": artwork("Purple", name), "description": f"{name} by {seller}.",
        "screenshotUrls": [artwork("Purple", name, "screenshot").replace("100x100bb.jpg", "392x696bb.jpg")],
        "minimumOsVersion": "16.0", "fileSizeBytes": str(ident("size", name) % 300_000_000),
    }
    if index == 3:
        item["averageUserRating"] = "unrated"  # an odd field: read as missing, the item stays
    return item


DUNE = [("Dune", "Frank Herbert", 1965, 10.99), ("Dune Messiah", "Frank Herbert", 1969, 9.99),
        ("Children of Dune", "Frank Herbert", 1976, 9.99), ("God Emperor of Dune", "Frank Herbert", 1981, 9.99),
        ("Heretics of Dune", "Frank Herbert", 1984, 9.99), ("Chapterhouse: Dune", "Frank Herbert", 1985, 9.99),
        ("Dune: House Atreides", "Brian Herbert & Kevin J. Anderson", 1999, 8.99),
        ("The Road to Dune", "Frank Herbert, Brian Herbert & Kevin J. Anderson", 2005, 7.99)]


def ebook(title, author, year, price):
    track_id = ident("book", title, base=200_000_000)
    return {
        "kind": "ebook", "trackId": track_id, "trackName": title, "artistName": author,
        "artistId": ident("author", author), "price": price, "formattedPrice": f"${price:.2f}", "currency": "USD",
        "releaseDate": f"{year}-08-01T07:00:00Z", "genres": ["Sci-Fi & Fantasy", "Books"],
        "genreIds": ["10044", "38"], "averageUserRating": 4.5, "userRatingCount": ident("r", title) % 20_000,
        "trackViewUrl": f"https://books.apple.com/us/book/{slug(title)}/id{track_id}?uo=4",
        "artworkUrl100": artwork("Publication", title), "description": f"<b>{title}</b> by {author}.",
    }


PODCASTS = [("Radiolab", "WNYC Studios"), ("Science Vs", "Spotify Studios"), ("Hidden Brain", "Hidden Brain, Shankar Vedantam"),
            ("StarTalk Radio", "Neil deGrasse Tyson"), ("Ologies with Alie Ward", "Alie Ward"),
            ("Short Wave", "NPR"), ("The Infinite Monkey Cage", "BBC Radio 4"), ("Science Friday", "Science Friday and WNYC Studios"),
            ("Unexplainable", "Vox")]


def podcast(name, artist, index):
    collection_id = ident("podcast", name, base=150_000_000)
    return {
        "wrapperType": "track", "kind": "podcast", "collectionId": collection_id, "trackId": collection_id,
        "artistName": artist, "collectionName": name, "trackName": name, "collectionPrice": 0.0, "trackPrice": 0.0,
        "trackViewUrl": f"https://podcasts.apple.com/us/podcast/{slug(name)}/id{collection_id}?uo=4",
        "feedUrl": f"https://feeds.example.com/{slug(name)}.xml", "artworkUrl100": artwork("Podcasts", name),
        "releaseDate": f"2024-11-{10 + index:02d}T10:00:00Z", "trackCount": 100 + ident(name) % 700,
        "country": "USA", "currency": "USD", "primaryGenreName": "Science", "contentAdvisoryRating": "Clean",
    }


TOLKIEN = [("The Hobbit", "J. R. R. Tolkien", 2012, 24.95), ("The Fellowship of the Ring", "J. R. R. Tolkien", 2012, 34.95),
           ("The Two Towers", "J. R. R. Tolkien", 2012, 34.95), ("The Return of the King", "J. R. R. Tolkien", 2012, 34.95),
           ("The Silmarillion", "J. R. R. Tolkien", 2013, 29.95), ("Unfinished Tales", "J. R. R. Tolkien", 2017, 27.95)]


def audiobook(title, author, year, price):
    collection_id = ident("audiobook", title, base=400_000_000)
    return {
        "wrapperType": "audiobook", "artistId": ident("narrated", author), "collectionId": collection_id,
        "artistName": author, "collectionName": title, "collectionCensoredName": title,
        "collectionViewUrl": f"https://books.apple.com/us/audiobook/{slug(title)}/id{collection_id}?uo=4",
        "artworkUrl100": artwork("Music", "audiobook", title), "collectionPrice": price, "trackCount": 1,
        "copyright": "℗ HarperCollins Publishers Limited", "country": "USA", "currency": "USD",
        "releaseDate": f"{year}-09-20T07:00:00Z", "primaryGenreName": "Sci-Fi & Fantasy",
        "previewUrl": f"https://audio-ssl.itunes.apple.com/itunes-assets/AudioPreview/{collection_id}.m4a",
    }


TAYLOR = [("Anti-Hero", 2022), ("Shake It Off", 2014), ("Blank Space", 2014), ("Bad Blood", 2015),
          ("Look What You Made Me Do", 2017), ("cardigan", 2020), ("willow", 2020), ("Love Story", 2008),
          ("You Belong With Me", 2009), ("Fortnight (feat. Post Malone)", 2024)]

OFFICE = ["The Dundies", "Sexual Harassment", "Office Olympics", "The Fire", "Halloween", "The Fight",
          "The Client", "Performance Review", "Email Surveillance", "Christmas Party", "Booze Cruise",
          "The Injury"]

PIXAR_SHORTS = [("Bao", 2018, "Domee Shi"), ("Piper", 2016, "Alan Barillaro"), ("La Luna", 2011, "Enrico Casarosa"),
                ("Lava", 2015, "James Ford Murphy"), ("Partly Cloudy", 2009, "Peter Sohn"),
                ("Day & Night", 2010, "Teddy Newton"), ("Geri's Game", 1997, "Jan Pinkava"),
                ("For the Birds", 2000, "Ralph Eggleston"), ("Presto", 2008, "Doug Sweetland"), ("Kitbull", 2019, "Rosana Sullivan")]


def itunes_samples():
    samples = {}
    songs = jack_johnson_songs()
    samples[("music", "jack johnson")] = songs
    samples[("movies", "christopher nolan")] = [film("Christopher Nolan", t, y, minutes=m) for t, y, m in NOLAN]
    samples[("apps", "notes")] = [app(*a, i) for i, a in enumerate(APPS)]
    samples[("books", "dune")] = [ebook(*b) for b in DUNE]
    samples[("podcasts", "science")] = [podcast(n, a, i) for i, (n, a) in enumerate(PODCASTS)]
    samples[("audiobooks", "tolkien")] = [audiobook(*b) for b in TOLKIEN]
    videos = []
    for title, year in TAYLOR:
        item = film("Taylor Swift", title, year, genre="Pop", price=1.99, kind="music-video", minutes=4)
        item.pop("trackRentalPrice")
        item["artistId"] = 159260351
        videos.append(item)
    samples[("music-videos", "taylor swift")] = videos
    episodes = []
    for number, title in enumerate(OFFICE, 1):
        item = film("The Office", title, 2005 + number // 7, genre="Comedy", price=2.99, kind="tv-episode", minutes=22)
        item.pop("trackRentalPrice")
        item["collectionName"] = "The Office, Season 2"
        item["trackNumber"] = number
        episodes.append(item)
    samples[("tv-shows", "the office")] = episodes
    samples[("short-films", "pixar")] = [
        film(d, t, y, genre="Short Films", price=1.99, rental=0.99, minutes=7) for t, y, d in PIXAR_SHORTS
    ]
    # Everything at once: songs, an album, the artist, a film, a music video, a kind this code does
    # not know, and one result that is not an object at all (skipped, counted).
    album = dict(songs[0])
    for key in ["kind", "trackId", "trackName", "trackCensoredName", "trackViewUrl", "previewUrl", "trackPrice",
                "trackExplicitness", "discCount", "discNumber", "trackNumber", "trackTimeMillis", "isStreamable"]:
        album.pop(key, None)
    album.update({"wrapperType": "collection", "collectionType": "Album", "copyright": "℗ 2005 Brushfire Records"})
    artist = {"wrapperType": "artist", "artistType": "Artist", "artistName": "Jack Johnson", "artistId": 909253,
              "artistLinkUrl": "https://music.apple.com/us/artist/jack-johnson/909253?uo=4",
              "amgArtistId": 468749, "primaryGenreName": "Rock", "primaryGenreId": 21}
    booklet = {"wrapperType": "track", "kind": "interactive-booklet", "trackName": "In Between Dreams (Digital Booklet)",
               "artistName": "Jack Johnson", "trackId": ident("booklet"), "releaseDate": "2005-03-01T08:00:00Z"}
    movie = film("Chris Malloy", "Thicker Than Water", 2000, genre="Sports", price=9.99, minutes=58)
    video = film("Jack Johnson", "Upside Down (Music Video)", 2006, genre="Rock", price=1.99, kind="music-video", minutes=4)
    samples[("all", "jack johnson")] = [artist, album, *songs[:12], booklet, 42, movie, video, *songs[12:20]]
    return samples


POPULAR = [
    (27205, "Inception", "2010-07-15", "Christopher Nolan", 148), (157336, "Interstellar", "2014-11-05", "Christopher Nolan", 169),
    (155, "The Dark Knight", "2008-07-16", "Christopher Nolan", 152), (872585, "Oppenheimer", "2023-07-19", "Christopher Nolan", 181),
    (693134, "Dune: Part Two", "2024-02-27", "Denis Villeneuve", 167), (438631, "Dune", "2021-09-15", "Denis Villeneuve", 155),
    (346698, "Barbie", "2023-07-19", "Greta Gerwig", 114), (19995, "Avatar", "2009-12-15", "James Cameron", 162),
    (76600, "Avatar: The Way of Water", "2022-12-14", "James Cameron", 192), (597, "Titanic", "1997-11-18", "James Cameron", 194),
    (603, "The Matrix", "1999-03-31", "Lana Wachowski", 136), (475557, "Joker", "2019-10-01", "Todd Phillips", 122),
    (496243, "Parasite", "2019-05-30", "Bong Joon Ho", 133), (129, "Spirited Away", "2001-07-20", "Hayao Miyazaki", 125),
    (372058, "Your Name.", "2016-08-26", "Makoto Shinkai", 106), (545611, "Everything Everywhere All at Once", "2022-03-24", "Daniel Kwan", 140),
    (361743, "Top Gun: Maverick", "2022-05-21", "Joseph Kosinski", 131), (569094, "Spider-Man: Across the Spider-Verse", "2023-05-31", "Joaquim Dos Santos", 140),
    (1022789, "Inside Out 2", "2024-06-11", "Kelsey Mann", 97), (533535, "Deadpool & Wolverine", "2024-07-24", "Shawn Levy", 128),
    (1184918, "The Wild Robot", "2024-09-12", "Chris Sanders", 102), (98, "Gladiator", "2000-05-01", "Ridley Scott", 155),
    (558449, "Gladiator II", "2024-11-05", "Ridley Scott", 148), (402431, "Wicked", "2024-11-20", "Jon M. Chu", 160),
    (1241982, "Moana 2", "2024-11-21", "David Derrick Jr.", 100), (945961, "Alien: Romulus", "2024-08-13", "Fede Álvarez", 119),
    (917496, "Beetlejuice Beetlejuice", "2024-09-04", "Tim Burton", 105), (718821, "Twisters", "2024-07-10", "Lee Isaac Chung", 122),
    (1011985, "Kung Fu Panda 4", "2024-03-02", "Mike Mitchell", 94), (823464, "Godzilla x Kong: The New Empire", "2024-03-27", "Adam Wingard", 115),
    (786892, "Furiosa: A Mad Max Saga", "2024-05-22", "George Miller", 149), (929590, "Civil War", "2024-04-10", "Alex Garland", 109),
    (746036, "The Fall Guy", "2024-04-24", "David Leitch", 126), (550, "Fight Club", "1999-10-15", "David Fincher", 139),
    (680, "Pulp Fiction", "1994-09-10", "Quentin Tarantino", 154), (13, "Forrest Gump", "1994-06-23", "Robert Zemeckis", 142),
    (278, "The Shawshank Redemption", "1994-09-23", "Frank Darabont", 142), (238, "The Godfather", "1972-03-14", "Francis Ford Coppola", 175),
    (329, "Jurassic Park", "1993-06-11", "Steven Spielberg", 127), (105, "Back to the Future", "1985-07-03", "Robert Zemeckis", 116),
    (11, "Star Wars", "1977-05-25", "George Lucas", 121), (1891, "The Empire Strikes Back", "1980-05-20", "Irvin Kershner", 124),
    (120, "The Lord of the Rings: The Fellowship of the Ring", "2001-12-18", "Peter Jackson", 179),
    (121, "The Lord of the Rings: The Two Towers", "2002-12-18", "Peter Jackson", 179),
    (122, "The Lord of the Rings: The Return of the King", "2003-12-01", "Peter Jackson", 201),
    (671, "Harry Potter and the Philosopher's Stone", "2001-11-16", "Chris Columbus", 152),
    (24428, "The Avengers", "2012-04-25", "Joss Whedon", 143), (299536, "Avengers: Infinity War", "2018-04-25", "Anthony Russo", 149),
    (299534, "Avengers: Endgame", "2019-04-24", "Anthony Russo", 181), (284054, "Black Panther", "2018-02-13", "Ryan Coogler", 135),
    (1726, "Iron Man", "2008-04-30", "Jon Favreau", 126), (14160, "Up", "2009-05-28", "Pete Docter", 96),
    (10681, "WALL·E", "2008-06-22", "Andrew Stanton", 98), (862, "Toy Story", "1995-10-30", "John Lasseter", 81),
    (12, "Finding Nemo", "2003-05-30", "Andrew Stanton", 100), (8587, "The Lion King", "1994-06-24", "Roger Allers", 89),
    (109445, "Frozen", "2013-11-20", "Chris Buck", 102), (354912, "Coco", "2017-10-27", "Lee Unkrich", 105),
    (150540, "Inside Out", "2015-06-09", "Pete Docter", 95), (15, "Citizen Kane", "1941-04-17", "Orson Welles", 119),
]
GENRES = {28: "Action", 12: "Adventure", 16: "Animation", 35: "Comedy", 18: "Drama", 14: "Fantasy", 878: "Science Fiction", 53: "Thriller"}


def poster_path(movie_id):
    return "/" + hashlib.sha256(f"poster/{movie_id}".encode()).hexdigest()[:27] + ".jpg"


def tmdb_movie(index, entry):
    movie_id, title, date, _, _ = entry
    genres = sorted(GENRES)[index % 8], sorted(GENRES)[(index * 3 + 1) % 8]
    return {
        "adult": False, "backdrop_path": poster_path(-movie_id), "genre_ids": list(dict.fromkeys(genres)),
        "id": movie_id, "original_language": "ja" if title in ("Spirited Away", "Your Name.") else ("ko" if title == "Parasite" else "en"),
        "original_title": {"Spirited Away": "千と千尋の神隠し", "Your Name.": "君の名は。", "Parasite": "기생충"}.get(title, title),
        "overview": f"The story of {title}.", "popularity": round(2900 / (index + 1) + 12.5, 3),
        "poster_path": poster_path(movie_id), "release_date": date, "title": title, "video": False,
        "vote_average": round(6.5 + (ident(title) % 200) / 100, 3), "vote_count": 1000 + ident(title, "votes") % 35000,
    }


def tmdb_samples():
    movies = [tmdb_movie(i, entry) for i, entry in enumerate(POPULAR[:60])]
    details = {}
    for i, (movie_id, title, date, director, runtime) in enumerate(POPULAR):
        listed = tmdb_movie(i, (movie_id, title, date, director, runtime))
        details[str(movie_id)] = {
            "adult": False, "id": movie_id, "imdb_id": f"tt{ident(title) % 10_000_000:07d}", "title": title,
            "original_title": listed["original_title"], "overview": listed["overview"], "tagline": "",
            "release_date": date, "runtime": runtime, "status": "Released", "poster_path": listed["poster_path"],
            "genres": [{"id": g, "name": GENRES[g]} for g in listed["genre_ids"]], "vote_average": listed["vote_average"],
            "credits": {"cast": [], "crew": [{"name": director, "job": "Director", "department": "Directing"},
                                              {"name": "Hans Zimmer" if i % 3 == 0 else "John Williams", "job": "Original Music Composer",
                                               "department": "Sound"}]},
        }
    configuration = {
        "change_keys": ["adult", "images", "title"],
        "images": {"base_url": "http://image.tmdb.org/t/p/", "secure_base_url": "https://image.tmdb.org/t/p/",
                   "backdrop_sizes": ["w300", "w780", "w1280", "original"], "logo_sizes": ["w45", "w92", "w154", "w185", "w300", "w500", "original"],
                   "poster_sizes": ["w92", "w154", "w185", "w342", "w500", "w780", "original"],
                   "profile_sizes": ["w45", "w185", "h632", "original"], "still_sizes": ["w92", "w185", "w300", "original"]},
    }
    return movies, details, configuration


def png(width, height):
    """A poster-shaped PNG: a vertical gradient, written with zlib alone."""
    rows = b""
    for y in range(height):
        shade = 40 + y * 160 // height
        rows += b"\x00" + bytes([shade, 60, 200 - shade // 2]) * width
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def write(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(value, handle, ensure_ascii=False, indent=1, sort_keys=True)
        handle.write("\n")


def main():
    for (media, term), results in itunes_samples().items():
        write(os.path.join(ROOT, "itunes", f"{media}--{slug(term)}.json"), {"term": term, "media": media, "results": results})
    movies, details, configuration = tmdb_samples()
    write(os.path.join(ROOT, "tmdb", "popular.json"), {"results": movies})
    write(os.path.join(ROOT, "tmdb", "movies.json"), details)
    write(os.path.join(ROOT, "tmdb", "configuration.json"), configuration)
    with open(os.path.join(ROOT, "tmdb", "poster.png"), "wb") as handle:
        handle.write(png(100, 150))


if __name__ == "__main__":
    main()
