package demo

import (
	"testing"
	"time"
)

// The schedule keeps its promises in any zone, including ones with a
// daylight-saving change inside the week and ones off the hour from UTC.
func TestSchedule(t *testing.T) {
	zones := []string{"Asia/Kolkata", "Asia/Kathmandu", "Europe/London", "America/St_Johns"}
	nows := []time.Time{
		time.Date(2026, 3, 26, 8, 7, 13, 0, time.UTC),   // a week holding London's spring change
		time.Date(2026, 10, 30, 22, 59, 0, 0, time.UTC), // late at night, before the autumn change
		time.Date(2026, 11, 14, 4, 30, 0, 0, time.UTC),  // exactly on a quarter hour
	}
	for _, zone := range zones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for _, now := range nows {
			for screen := range 5 {
				slots := schedule(now, loc, screen)
				perDay := map[string]int{}
				for i, sl := range slots {
					local := sl.startsAt.In(loc)
					if !sl.startsAt.After(now) || !sl.startsAt.Before(now.Add(7*24*time.Hour)) {
						t.Errorf("%s %v screen %d: show at %v outside (now, now+7d)", zone, now, screen, sl.startsAt)
					}
					if local.Minute()%15 != 0 || local.Second() != 0 || local.Nanosecond() != 0 {
						t.Errorf("%s %v screen %d: show at %v not on a local quarter hour", zone, now, screen, local)
					}
					if m := local.Hour()*60 + local.Minute(); m < 10*60 || m > 22*60+30 {
						t.Errorf("%s %v screen %d: show at local %v outside 10:00-22:30", zone, now, screen, local)
					}
					if i > 0 {
						prev := slots[i-1]
						prevEnd := prev.startsAt.Add(time.Duration(movies[prev.movie].DurationMinutes) * time.Minute)
						if sl.startsAt.Before(prevEnd.Add(30 * time.Minute)) {
							t.Errorf("%s %v screen %d: show at %v starts under 30 minutes after %v ends", zone, now, screen, sl.startsAt, prevEnd)
						}
						if sl.movie == prev.movie {
							t.Errorf("%s %v screen %d: same movie twice in a row at %v", zone, now, screen, sl.startsAt)
						}
					}
					perDay[local.Format(time.DateOnly)]++
				}
				full := 0
				for _, n := range perDay {
					if n >= 4 {
						full++
					}
				}
				if full < 6 {
					t.Errorf("%s %v screen %d: %d days with 4 or more shows, want 6 or more (%v)", zone, now, screen, full, perDay)
				}
			}
		}
	}
}

func TestQuarterAfter(t *testing.T) {
	kathmandu, err := time.LoadLocation("Asia/Kathmandu") // UTC+05:45
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"2026-11-14T10:00:00+05:45", "2026-11-14T10:00:00+05:45"},
		{"2026-11-14T10:00:00.000001+05:45", "2026-11-14T10:15:00+05:45"},
		{"2026-11-14T10:14:59+05:45", "2026-11-14T10:15:00+05:45"},
		{"2026-11-14T23:50:00+05:45", "2026-11-15T00:00:00+05:45"},
	} {
		in, _ := time.Parse(time.RFC3339Nano, c.in)
		want, _ := time.Parse(time.RFC3339Nano, c.want)
		if got := quarterAfter(in, kathmandu); !got.Equal(want) {
			t.Errorf("quarterAfter(%s) = %s, want %s", c.in, got.In(kathmandu).Format(time.RFC3339), c.want)
		}
	}
}
