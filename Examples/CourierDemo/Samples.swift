/// A trimmed real response of `GET https://itunes.apple.com/search?term=jack+johnson&media=music`.
enum Samples {
    static let jackJohnson = """
        {"resultCount": 5, "results": [
        {"wrapperType": "track", "kind": "song", "artistName": "Jack Johnson", "collectionName": "In Between Dreams",
         "trackName": "Banana Pancakes", "releaseDate": "2005-03-01T08:00:00Z", "trackPrice": 1.29, "currency": "USD"},
        {"wrapperType": "track", "kind": "song", "artistName": "Jack Johnson", "collectionName": "Sing-A-Longs and Lullabies for the Film Curious George",
         "trackName": "Upside Down", "releaseDate": "2006-02-07T08:00:00Z", "trackPrice": 1.29, "currency": "USD"},
        {"wrapperType": "track", "kind": "song", "artistName": "Jack Johnson", "collectionName": "In Between Dreams",
         "trackName": "Better Together", "releaseDate": "2005-03-01T08:00:00Z", "trackPrice": 1.29, "currency": "USD"},
        {"wrapperType": "track", "kind": "song", "artistName": "Jack Johnson", "collectionName": "Brushfire Fairytales",
         "trackName": "Flake", "releaseDate": "2001-02-01T08:00:00Z", "trackPrice": 0.99, "currency": "USD"},
        {"wrapperType": "track", "kind": "song", "artistName": "Jack Johnson & Ben Harper", "collectionName": "On and On",
         "trackName": "Sitting, Waiting, Wishing", "releaseDate": "2005-03-01T08:00:00Z", "currency": "USD"}
        ]}
        """
}
