-- A retired screen (postgres.(*Store).AdminUpdateScreen): it takes no new
-- shows (postgres.(*Store).ScheduleShows refuses it) and leaves the lists
-- a theatre's shows are scheduled from, while its past shows, their
-- bookings and the reports on them stay as they are. NULL: in use. Set
-- only when no scheduled show of the screen is to start; cleared by
-- unretiring it.
ALTER TABLE screens ADD COLUMN retired_at timestamptz;
