-- What a listing shows besides a title: a movie's own language, genres and
-- poster; each show's format and, when the print is dubbed, its language.

ALTER TABLE movies
    ADD COLUMN language text NOT NULL DEFAULT '' CHECK (length(language) <= 40),
    ADD COLUMN genres   text[] NOT NULL DEFAULT '{}'
        CHECK (cardinality(genres) <= 6 AND array_position(genres, NULL) IS NULL);

-- The format is the show's, not the movie's or the screen's: one film plays
-- in 2D on one screen and in IMAX 3D on another. A show's language is NULL
-- when it plays in the movie's own language.
ALTER TABLE shows
    ADD COLUMN format   text NOT NULL DEFAULT '2D'
        CHECK (format IN ('2D', '3D', 'IMAX 2D', 'IMAX 3D', '4DX', '4DX 3D', 'ScreenX')),
    ADD COLUMN language text CHECK (length(language) BETWEEN 1 AND 40);

-- One poster per movie, as uploaded (PNG, JPEG or WebP). The database hashes
-- the bytes itself, so the hash in a poster's URL always names its content.
CREATE TABLE posters (
    movie_id     bigint PRIMARY KEY REFERENCES movies (id) ON DELETE CASCADE,
    content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
    data         bytea NOT NULL CHECK (length(data) BETWEEN 1 AND 5242880),
    sha256       bytea NOT NULL GENERATED ALWAYS AS (sha256(data)) STORED,
    width        int NOT NULL CHECK (width BETWEEN 1 AND 8000),
    height       int NOT NULL CHECK (height BETWEEN 1 AND 8000),
    alt          text NOT NULL CHECK (length(alt) BETWEEN 1 AND 300),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
