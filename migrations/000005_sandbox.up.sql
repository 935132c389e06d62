-- The sandbox payment provider's own tables. The sandbox stands in for an
-- outside provider (Stripe, Razorpay): it shares the database for
-- convenience only. Nothing of the booking schema references these tables
-- and the app's store never reads them; the app learns about payments only
-- from signed webhooks and server-to-server questions.

-- A hosted checkout: one attempt to pay for one hold. The id is the bearer
-- capability of the checkout page, so it is long and random.
CREATE TABLE sandbox_checkouts (
    id           text PRIMARY KEY CHECK (id ~ '^cs_[0-9a-f]{32}$'),
    seq          bigint GENERATED ALWAYS AS IDENTITY UNIQUE, -- creation order, for "the latest"
    hold_id      text NOT NULL CHECK (length(hold_id) BETWEEN 1 AND 255),
    customer     text NOT NULL CHECK (length(customer) <= 255), -- the merchant's user id
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    currency     text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    merchant     text NOT NULL CHECK (length(merchant) BETWEEN 1 AND 100),
    return_url   text NOT NULL CHECK (length(return_url) BETWEEN 1 AND 2000),
    status       text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'PAID', 'DECLINED')),
    behaviour    text CHECK (behaviour IN ('normal', 'delay', 'duplicate', 'drop', 'reorder', 'two_payments')),
    created_at   timestamptz NOT NULL,
    completed_at timestamptz,
    -- The hold's deadline: the checkout refuses to take money once it has
    -- passed. back_url is where the shopper goes back to without paying
    -- (the show).
    expires_at   timestamptz,
    back_url     text CHECK (length(back_url) BETWEEN 1 AND 2000),
    CHECK ((status = 'OPEN') = (completed_at IS NULL)),
    CHECK ((status = 'OPEN') = (behaviour IS NULL))
);
CREATE INDEX sandbox_checkouts_hold_idx ON sandbox_checkouts (hold_id, seq DESC);

-- Every charge attempt: succeeded (money taken) or failed (declined).
CREATE TABLE sandbox_payments (
    id           text PRIMARY KEY CHECK (id ~ '^pay_[0-9a-f]{24}$'),
    checkout_id  text NOT NULL REFERENCES sandbox_checkouts (id),
    hold_id      text NOT NULL,
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    currency     text NOT NULL,
    status       text NOT NULL CHECK (status IN ('succeeded', 'failed')),
    created_at   timestamptz NOT NULL
);
CREATE INDEX sandbox_payments_hold_idx ON sandbox_payments (hold_id);
CREATE INDEX sandbox_payments_checkout_idx ON sandbox_payments (checkout_id);

-- The webhook delivery queue, written in the transaction that made the
-- payment and emptied by the delivery worker after commit. body is the exact
-- JSON sent; it is signed afresh at each attempt, so a retry hours later
-- still carries a timestamp within the receiver's tolerance. Workers of
-- several instances lease rows by moving next_attempt_at forward under
-- FOR UPDATE SKIP LOCKED.
CREATE TABLE sandbox_webhooks (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payment_id      text NOT NULL REFERENCES sandbox_payments (id),
    body            text NOT NULL,
    status          text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'GAVE_UP')),
    attempts        int NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_status     int,  -- the HTTP status of the last attempt, if there was an answer
    last_error      text,
    created_at      timestamptz NOT NULL,
    delivered_at    timestamptz,
    CHECK ((status = 'DELIVERED') = (delivered_at IS NOT NULL))
);
CREATE INDEX sandbox_webhooks_due_idx ON sandbox_webhooks (next_attempt_at, id) WHERE status = 'PENDING';
CREATE INDEX sandbox_webhooks_payment_idx ON sandbox_webhooks (payment_id);

-- Refunds the merchant asked for. The merchant's refund id is the
-- idempotency key: asking again for the same refund pays nothing more.
CREATE TABLE sandbox_refunds (
    id           text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 255),
    payment_id   text NOT NULL REFERENCES sandbox_payments (id),
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    currency     text NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX sandbox_refunds_payment_idx ON sandbox_refunds (payment_id);

-- Developer switches shared by every instance: one row.
CREATE TABLE sandbox_settings (
    singleton    boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    fail_refunds boolean NOT NULL DEFAULT false
);
INSERT INTO sandbox_settings DEFAULT VALUES;
