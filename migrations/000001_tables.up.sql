-- The booking schema's tables. Constraints carry the invariants wherever a
-- constraint can; what no constraint can say is checked by
-- booking_invariant_violations() (000004) and kept by the store's lock order
-- (internal/postgres). The functions that change seats are in 000003, the
-- live seat map's change queue in 000002, Sandbox Pay's tables in 000005.
--
-- This file and the four after it are the baseline: the schema as it stood
-- at the first release, one current definition of everything. Migrations are
-- append-only from here on (see README.md in this folder).

CREATE EXTENSION IF NOT EXISTS btree_gist;

-- People -----------------------------------------------------------------

CREATE TABLE users (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email         text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    password_hash text NOT NULL,
    role          text NOT NULL DEFAULT 'moviegoer'
                  CHECK (role IN ('moviegoer', 'theatre_admin', 'platform_admin')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_email_key UNIQUE (email)
);

-- Server-side sessions, in the layout github.com/alexedwards/scs/pgxstore expects.
CREATE TABLE sessions (
    token  text PRIMARY KEY,
    data   bytea NOT NULL,
    expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- Places -----------------------------------------------------------------

CREATE TABLE cities (
    id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$')
);

CREATE TABLE theatres (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    city_id  bigint NOT NULL REFERENCES cities (id),
    name     text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    address  text NOT NULL DEFAULT '',
    timezone text NOT NULL, -- IANA zone; show times are shown in it
    UNIQUE (city_id, name)
);

-- Who may administer which theatre (platform admins may administer all).
CREATE TABLE theatre_admins (
    theatre_id bigint NOT NULL REFERENCES theatres (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (theatre_id, user_id)
);

-- Refund on cancellation of a confirmed booking: the tier with the largest
-- min_before that still lies ahead of the show decides the percentage.
-- No tier ahead of the show means cancellation is closed.
CREATE TABLE refund_tiers (
    theatre_id bigint NOT NULL REFERENCES theatres (id) ON DELETE CASCADE,
    min_before interval NOT NULL CHECK (min_before >= interval '0'),
    percent    int NOT NULL CHECK (percent BETWEEN 0 AND 100),
    PRIMARY KEY (theatre_id, min_before)
);

CREATE TABLE screens (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    theatre_id bigint NOT NULL REFERENCES theatres (id),
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    UNIQUE (theatre_id, name)
);

-- A physical seat. Its label (A1) is its identity within the screen only.
CREATE TABLE seats (
    screen_id  bigint NOT NULL REFERENCES screens (id),
    seat_id    text NOT NULL CHECK (seat_id ~ '^[A-Za-z0-9-]{1,16}$'),
    row_label  text NOT NULL CHECK (length(row_label) BETWEEN 1 AND 8),
    number     int NOT NULL CHECK (number > 0),
    category   text NOT NULL CHECK (category ~ '^[A-Z][A-Z0-9_]{0,31}$'),
    grid_row   int NOT NULL CHECK (grid_row >= 0),
    grid_col   int NOT NULL CHECK (grid_col >= 0),
    accessible boolean NOT NULL DEFAULT false,
    PRIMARY KEY (screen_id, seat_id),
    UNIQUE (screen_id, grid_row, grid_col)
);

-- Schedule ---------------------------------------------------------------

CREATE TABLE movies (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title            text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
    duration_minutes int NOT NULL CHECK (duration_minutes BETWEEN 1 AND 600),
    rating           text NOT NULL DEFAULT '',
    synopsis         text NOT NULL DEFAULT '',
    -- A listing shows the movie's own language, its genres and its poster.
    language         text NOT NULL DEFAULT '' CHECK (length(language) <= 40),
    genres           text[] NOT NULL DEFAULT '{}'
                     CHECK (cardinality(genres) <= 6 AND array_position(genres, NULL) IS NULL)
);

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

CREATE TABLE shows (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    movie_id  bigint NOT NULL REFERENCES movies (id),
    screen_id bigint NOT NULL REFERENCES screens (id),
    starts_at timestamptz NOT NULL,
    ends_at   timestamptz NOT NULL,
    currency  text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    status    text NOT NULL DEFAULT 'SCHEDULED' CHECK (status IN ('SCHEDULED', 'CANCELLED')),
    -- The format is the show's, not the movie's or the screen's: one film
    -- plays in 2D on one screen and in IMAX 3D on another. language is NULL
    -- when the show plays in the movie's own language, else the dub's.
    format    text NOT NULL DEFAULT '2D'
              CHECK (format IN ('2D', '3D', 'IMAX 2D', 'IMAX 3D', '4DX', '4DX 3D', 'ScreenX')),
    language  text CHECK (length(language) BETWEEN 1 AND 40),
    CHECK (ends_at > starts_at),
    UNIQUE (id, screen_id),
    -- Two scheduled shows never overlap on one screen.
    CONSTRAINT shows_no_overlap EXCLUDE USING gist (
        screen_id WITH =, tstzrange(starts_at, ends_at) WITH &&
    ) WHERE (status = 'SCHEDULED')
);
CREATE INDEX shows_starts_at_idx ON shows (starts_at) WHERE status = 'SCHEDULED';

CREATE TABLE show_prices (
    show_id     bigint NOT NULL REFERENCES shows (id) ON DELETE CASCADE,
    category    text NOT NULL,
    price_minor bigint NOT NULL CHECK (price_minor >= 0),
    PRIMARY KEY (show_id, category)
);

-- Holds, the unit of checkout -------------------------------------------

CREATE TABLE holds (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id),
    show_id      bigint NOT NULL REFERENCES shows (id),
    seat_ids     text[] NOT NULL CHECK (cardinality(seat_ids) BETWEEN 1 AND 100),
    state        text NOT NULL CHECK (state IN ('HELD', 'CONFIRMED', 'EXPIRED', 'CANCELLED')),
    expires_at   timestamptz NOT NULL,
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    currency     text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    created_at   timestamptz NOT NULL,
    ended_at     timestamptz,
    CHECK ((state = 'HELD') = (ended_at IS NULL)),
    CHECK (expires_at > created_at),
    UNIQUE (id, show_id)
);
-- One active hold per user. State is stored, never derived from now(), so the
-- index can decide the race between two parallel holds of one user.
CREATE UNIQUE INDEX holds_one_active_per_user ON holds (user_id) WHERE state = 'HELD';
CREATE INDEX holds_lapsing_idx ON holds (expires_at) WHERE state = 'HELD';
CREATE INDEX holds_user_idx ON holds (user_id, created_at DESC);

-- An Idempotency-Key, scoped to its user, bound to one request fingerprint.
CREATE TABLE hold_keys (
    user_id     uuid NOT NULL REFERENCES users (id),
    key         text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    fingerprint text NOT NULL,
    hold_id     uuid NOT NULL REFERENCES holds (id),
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (user_id, key)
);

-- One row per seat per show: the unit of contention.
CREATE TABLE show_seats (
    show_id         bigint NOT NULL,
    seat_id         text NOT NULL,
    screen_id       bigint NOT NULL,
    category        text NOT NULL,
    status          text NOT NULL DEFAULT 'AVAILABLE' CHECK (status IN ('AVAILABLE', 'HELD', 'BOOKED')),
    hold_id         uuid,
    hold_expires_at timestamptz,
    PRIMARY KEY (show_id, seat_id),
    FOREIGN KEY (show_id, screen_id) REFERENCES shows (id, screen_id) ON DELETE CASCADE,
    FOREIGN KEY (screen_id, seat_id) REFERENCES seats (screen_id, seat_id),
    FOREIGN KEY (show_id, category) REFERENCES show_prices (show_id, category),
    -- The owner is always a hold of the same show (I1).
    FOREIGN KEY (hold_id, show_id) REFERENCES holds (id, show_id),
    CHECK (
        (status = 'AVAILABLE' AND hold_id IS NULL AND hold_expires_at IS NULL) OR
        (status = 'HELD' AND hold_id IS NOT NULL AND hold_expires_at IS NOT NULL) OR
        (status = 'BOOKED' AND hold_id IS NOT NULL AND hold_expires_at IS NULL)
    )
);
CREATE INDEX show_seats_hold_idx ON show_seats (hold_id) WHERE hold_id IS NOT NULL;

-- Money ------------------------------------------------------------------

CREATE TABLE bookings (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    hold_id      uuid NOT NULL UNIQUE,
    user_id      uuid NOT NULL REFERENCES users (id),
    show_id      bigint NOT NULL,
    seat_ids     text[] NOT NULL CHECK (cardinality(seat_ids) > 0),
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    currency     text NOT NULL,
    payment_id   text NOT NULL UNIQUE, -- the evidence: the provider payment that bought it
    code         text NOT NULL UNIQUE, -- the ticket code shown as a QR
    status       text NOT NULL CHECK (status IN ('CONFIRMED', 'CANCELLED')),
    created_at   timestamptz NOT NULL,
    cancelled_at timestamptz,
    CHECK ((status = 'CANCELLED') = (cancelled_at IS NOT NULL)),
    FOREIGN KEY (hold_id, show_id) REFERENCES holds (id, show_id)
);
CREATE INDEX bookings_user_idx ON bookings (user_id, created_at DESC);

-- One row per provider payment id: its fingerprint and its stored outcome (I3).
CREATE TABLE payments (
    payment_id   text PRIMARY KEY CHECK (length(payment_id) BETWEEN 1 AND 255),
    hold_ref     text NOT NULL,         -- the hold id exactly as the provider sent it
    hold_id      uuid REFERENCES holds (id),
    user_id      uuid REFERENCES users (id),
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    currency     text NOT NULL,
    outcome      text NOT NULL CHECK (outcome IN ('BOOKED', 'REFUND_REQUIRED')),
    reason       text CHECK (reason IN ('hold_expired', 'hold_cancelled', 'already_confirmed',
                                        'amount_mismatch', 'unknown_hold')),
    booking_id   uuid REFERENCES bookings (id),
    received_at  timestamptz NOT NULL,
    CHECK ((outcome = 'BOOKED') = (booking_id IS NOT NULL)),
    CHECK ((outcome = 'BOOKED') = (reason IS NULL))
);
-- Reconciliation asks whether a hold's payment has its outcome; My bookings
-- lists a user's refunded payments.
CREATE INDEX payments_hold_idx ON payments (hold_id);
CREATE INDEX payments_refunded_user_idx ON payments (user_id, received_at DESC) WHERE outcome = 'REFUND_REQUIRED';

-- A payment row is a record of fact: its fingerprint and outcome never change.
CREATE FUNCTION payments_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'payment % is immutable', OLD.payment_id USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER payments_immutable BEFORE UPDATE ON payments
    FOR EACH ROW EXECUTE FUNCTION payments_immutable();

-- Money owed back (I4). The refund worker (internal/refunds) leases a refund
-- by moving next_attempt_at forward, calls the provider outside any
-- transaction and retries failures with backoff; several app instances may
-- run it at once.
CREATE TABLE refunds (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    payment_id      text NOT NULL UNIQUE REFERENCES payments (payment_id),
    booking_id      uuid REFERENCES bookings (id),
    amount_minor    bigint NOT NULL CHECK (amount_minor >= 0),
    currency        text NOT NULL,
    reason          text NOT NULL,
    status          text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
    attempts        int NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error      text
);
CREATE INDEX refunds_due_idx ON refunds (next_attempt_at) WHERE status IN ('PENDING', 'FAILED');

-- Side effects leave through here, written in the transaction that caused
-- them and delivered by a worker after commit.
CREATE TABLE outbox (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    topic        text NOT NULL,
    payload      jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    attempts     int NOT NULL DEFAULT 0,
    processed_at timestamptz
);
CREATE INDEX outbox_pending_idx ON outbox (id) WHERE processed_at IS NULL;

-- Reconciliation: a payment whose webhook never arrives must still end in a
-- booking or a refund. The app records every hold it opened a checkout for,
-- and a worker (internal/reconcile) asks the provider about it, server to
-- server, until the hold's payments are settled.
--
-- One row per hold whose checkout the app opened, while its checks last;
-- the row is deleted after the last one. armed_at is when the latest
-- checkout was opened: opening another re-arms the schedule, and a check
-- finishes only the schedule it was leased under. next_check_at is NULL
-- until the first check, due at armed_at plus the worker's delay. Workers of
-- several instances lease rows by moving next_check_at forward under
-- FOR UPDATE SKIP LOCKED.
CREATE TABLE payment_checks (
    hold_id       uuid PRIMARY KEY REFERENCES holds (id),
    armed_at      timestamptz NOT NULL,
    next_check_at timestamptz,
    checks        int NOT NULL DEFAULT 0,
    last_error    text
);
CREATE INDEX payment_checks_due_idx ON payment_checks (next_check_at);
CREATE INDEX payment_checks_first_idx ON payment_checks (armed_at) WHERE next_check_at IS NULL;
