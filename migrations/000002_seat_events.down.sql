DROP TRIGGER IF EXISTS show_seats_changed ON show_seats;
DROP FUNCTION IF EXISTS record_seat_events();
DROP TABLE IF EXISTS seat_events;
