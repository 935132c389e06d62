package pages

import (
	"context"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// showInfo is what a show page shows besides its seats: the show and its
// prices, the movie, the theatre's city and refund policy. It changes
// rarely, and a crowd opens one show's page hundreds of times a second, so
// each instance reads it at most once per showInfoTTL. The seats are not
// here: they come from the live seat maps (live.Hub.Map), which follow
// every change. Anything a hold or a payment decides is read again from the
// database under its locks, so a show page a moment behind an admin's
// edit misleads nobody about what they pay.
type showInfo struct {
	show     catalog.Show
	movie    catalog.Movie
	citySlug string
	policy   booking.RefundPolicy
	read     time.Time
}

// showInfoTTL bounds how long a show page may show an edit's before.
const showInfoTTL = 2 * time.Second

// showInfoRead bounds one read of a show's info.
const showInfoRead = 5 * time.Second

// maxShowInfos bounds the memory: past it every show's info is dropped and
// read again when next asked for.
const maxShowInfos = 4096

type showInfos struct {
	mu    sync.Mutex
	byID  map[int64]showInfo
	flows map[int64]*infoFlight
}

// infoFlight is one read of a show's info that concurrent viewers wait on.
type infoFlight struct {
	done chan struct{}
	info showInfo
	err  error
}

// showInfo returns showID's info, read from the database when what this
// instance has is older than showInfoTTL. Viewers arriving together share
// one read.
func (s *Handlers) showInfo(ctx context.Context, showID int64) (showInfo, error) {
	now := time.Now()
	c := &s.shows
	c.mu.Lock()
	if in, ok := c.byID[showID]; ok && now.Sub(in.read) < showInfoTTL {
		c.mu.Unlock()
		return in, nil
	}
	if c.flows == nil {
		c.flows = map[int64]*infoFlight{}
	}
	f, reading := c.flows[showID]
	if !reading {
		f = &infoFlight{done: make(chan struct{})}
		c.flows[showID] = f
	}
	c.mu.Unlock()
	if reading {
		select {
		case <-f.done:
			return f.info, f.err
		case <-ctx.Done():
			return showInfo{}, ctx.Err()
		}
	}
	// Read for every viewer waiting, so not cut short by this one leaving.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), showInfoRead)
	f.info, f.err = s.readShowInfo(rctx, showID)
	cancel()
	f.info.read = now
	c.mu.Lock()
	delete(c.flows, showID)
	if f.err == nil {
		if c.byID == nil || len(c.byID) >= maxShowInfos {
			c.byID = make(map[int64]showInfo)
		}
		c.byID[showID] = f.info
	}
	c.mu.Unlock()
	close(f.done)
	return f.info, f.err
}

func (s *Handlers) readShowInfo(ctx context.Context, showID int64) (showInfo, error) {
	var in showInfo
	var err error
	if in.show, err = s.Store.ShowOrCancelled(ctx, showID); err != nil {
		return in, err
	}
	if in.movie, err = s.Store.Movie(ctx, in.show.MovieID); err != nil {
		return in, err
	}
	if in.policy, err = s.Store.RefundPolicy(ctx, in.show.TheatreID); err != nil {
		return in, err
	}
	if t, err := s.Store.Theatre(ctx, in.show.TheatreID); err == nil {
		if cities, err := s.Store.Cities(ctx); err == nil {
			for _, ci := range cities {
				if ci.ID == t.CityID {
					in.citySlug = ci.Slug
				}
			}
		}
	}
	return in, nil
}
