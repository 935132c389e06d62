DROP TABLE IF EXISTS payment_checks, outbox, refunds, payments, bookings, show_seats, hold_keys, holds,
    show_prices, shows, posters, movies, seats, screens, refund_tiers, theatre_admins, theatres,
    cities, sessions, users CASCADE;
DROP FUNCTION IF EXISTS payments_immutable();
