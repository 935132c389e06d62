package pgtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// InTheatre returns v with a theatre of its own in v's city, in zone tz,
// with policy (nil: the default policy).
func InTheatre(tb testing.TB, s *postgres.Store, v Venue, tz string, policy *booking.RefundPolicy) Venue {
	tb.Helper()
	id, err := s.CreateTheatre(context.Background(), catalog.Theatre{
		CityID: v.CityID, Name: fmt.Sprintf("Cinema %d", time.Now().UnixNano()), TimeZone: tz,
	}, policy)
	if err != nil {
		tb.Fatal(err)
	}
	v.TheatreID = id
	return v
}

// SetOrphanRule turns theatre theatreID's orphan rule on or off.
func SetOrphanRule(ctx context.Context, s *postgres.Store, theatreID int64, on bool) error {
	return s.SetTheatreSettings(ctx, theatreID, catalog.TheatreSettingsPatch{OrphanRule: &on})
}
