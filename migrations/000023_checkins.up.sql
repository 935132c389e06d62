-- Door check-in. A booking is admitted once (checkins' key), however many
-- phones scan it at once; every scan is kept (checkin_scans), so a ticket
-- admitted on two phones while they were offline is reported when the
-- second one syncs.
CREATE TABLE checkins (
    booking_id  uuid PRIMARY KEY REFERENCES bookings (id) ON DELETE CASCADE,
    show_id     bigint NOT NULL REFERENCES shows (id) ON DELETE CASCADE,
    admitted_at timestamptz NOT NULL,
    admitted_by uuid NOT NULL REFERENCES users (id),
    gate        text NOT NULL DEFAULT '' CHECK (length(gate) <= 40),
    -- offline: scanned by a phone without the network, sent when it synced
    offline     boolean NOT NULL DEFAULT false
);
CREATE INDEX checkins_show_idx ON checkins (show_id);

CREATE TABLE checkin_scans (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    show_id     bigint NOT NULL REFERENCES shows (id) ON DELETE CASCADE,
    booking_id  uuid REFERENCES bookings (id) ON DELETE CASCADE, -- NULL: no such ticket
    scanned_at  timestamptz NOT NULL,
    scanned_by  uuid NOT NULL REFERENCES users (id),
    gate        text NOT NULL DEFAULT '' CHECK (length(gate) <= 40),
    offline     boolean NOT NULL DEFAULT false,
    -- the phone's own answer when it scanned offline (ADMITTED, ...), or ''
    phone_result text NOT NULL DEFAULT '' CHECK (length(phone_result) <= 40),
    result      text NOT NULL CHECK (result IN
        ('ADMITTED', 'already_admitted', 'wrong_show', 'ticket_cancelled', 'unknown_ticket'))
);
CREATE INDEX checkin_scans_show_idx ON checkin_scans (show_id, id);
