package webtest

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// RunLive runs an instance's live machinery on store until the test ends,
// as `marquee serve` does (a notifier a little brisker): the hub, its one
// LISTEN connection (which hands the waiting rooms' fronts to fronts, if
// not nil) and the notifier that announces committed changes. It returns
// once the listener has connected.
func RunLive(t testing.TB, hub *live.Hub, fronts *live.Fronts, store *postgres.Store, log *slog.Logger) {
	t.Helper()
	if hub.Now == nil {
		// The seat maps in memory free held seats by the store's clock,
		// which a test may move.
		hub.Now = func() time.Time {
			if clock := store.Clock; clock != nil {
				return clock()
			}
			return time.Now()
		}
	}
	l := &live.Listener{
		DatabaseURL: store.Pool().Config().ConnString(), Hub: hub, Log: log,
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 500 * time.Millisecond, Fronts: fronts,
	}
	// A test starts once the feed is heard: before, every map is read from
	// the database, and the resync that follows the listener's first
	// connect would reach the test's sockets as news.
	heard := make(chan struct{})
	var once sync.Once
	l.Connected = func(uint32) { once.Do(func() { close(heard) }) }
	n := &live.Notifier{Interval: 20 * time.Millisecond, Batch: 500, Log: log,
		Flush: func(ctx context.Context, limit int) (int, error) {
			return store.AnnounceSeatChanges(ctx, live.Channel, limit)
		}}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, run := range []func(context.Context){hub.Run, l.Run, n.Run} {
		wg.Go(func() { run(ctx) })
	}
	t.Cleanup(func() {
		hub.CloseAll() // as at shutdown: every socket ends
		cancel()
		wg.Wait()
	})
	select {
	case <-heard:
	case <-time.After(time.Minute):
		t.Fatal("the live listener did not connect within a minute")
	}
}
