-- A show's waiting room (internal/waitroom): while enabled, nobody reaches
-- the show's seat map or holds its seats without a queue ticket admitted
-- by the admission step (postgres.(*Store).StepRoom), which admits waiting
-- tickets in the order of their numbers, at admit_per_minute, while fewer
-- than max_active admissions are active. One row per show that has ever
-- had a room; a room switched off keeps its settings.
CREATE TABLE waiting_rooms (
    show_id          bigint PRIMARY KEY REFERENCES shows (id) ON DELETE CASCADE,
    enabled          boolean NOT NULL,
    admit_per_minute integer NOT NULL CHECK (admit_per_minute BETWEEN 1 AND 100000),
    max_active       integer NOT NULL CHECK (max_active BETWEEN 1 AND 100000),
    -- Before opens_at the room is a pre-queue: its tickets have no number
    -- until the first step at or after opens_at shuffles them (opened_at
    -- is then set). Without opens_at a room opens at its first step.
    opens_at         timestamptz,
    opened_at        timestamptz,
    -- The last number handed out, and the admission front: every ticket
    -- numbered up to through is admitted or gone. Pages compute their
    -- place from it (number - through), broadcast once per step.
    last_number      bigint NOT NULL DEFAULT 0,
    through          bigint NOT NULL DEFAULT 0,
    -- Admissions earned by the rate and not yet made (fractional), and the
    -- time of the step that last counted them.
    credit           double precision NOT NULL DEFAULT 0,
    stepped_at       timestamptz,
    updated_at       timestamptz NOT NULL
);

-- One place in a room's queue. number is the admission order (NULL in the
-- pre-queue, before the shuffle). A WAITING ticket not seen (its status
-- read, or its page open) since seen_at + 5 minutes is EXPIRED by the next
-- step. An ADMITTED ticket stays active until active_until: its own TTL
-- unused, pushed on by each hold of the account it admitted (user_id, the
-- first account that held with it), pulled in by a release; a booking by
-- that account ends it at the next step (DONE).
CREATE TABLE queue_tickets (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    show_id      bigint NOT NULL REFERENCES waiting_rooms (show_id) ON DELETE CASCADE,
    number       bigint,
    state        text NOT NULL CHECK (state IN ('WAITING', 'ADMITTED', 'EXPIRED', 'DONE')),
    joined_at    timestamptz NOT NULL,
    seen_at      timestamptz NOT NULL,
    admitted_at  timestamptz,
    active_until timestamptz,
    ended_at     timestamptz,
    user_id      uuid REFERENCES users (id) ON DELETE SET NULL,
    CHECK (state <> 'ADMITTED' OR (admitted_at IS NOT NULL AND active_until IS NOT NULL)),
    CHECK ((state IN ('WAITING', 'ADMITTED')) = (ended_at IS NULL)),
    UNIQUE (show_id, number)
);
CREATE INDEX queue_tickets_waiting_idx ON queue_tickets (show_id, number) WHERE state = 'WAITING';
CREATE INDEX queue_tickets_prequeue_idx ON queue_tickets (show_id, joined_at) WHERE state = 'WAITING' AND number IS NULL;
CREATE INDEX queue_tickets_active_idx ON queue_tickets (show_id, active_until) WHERE state = 'ADMITTED';
CREATE INDEX queue_tickets_admitted_at_idx ON queue_tickets (show_id, admitted_at) WHERE admitted_at IS NOT NULL;
