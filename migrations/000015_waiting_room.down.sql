DROP TABLE queue_tickets;
DROP TABLE waiting_rooms;
