package live_test

import (
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// taken returns the front waiting on w, if any.
func taken(w *live.FrontWatch) (waitroom.Front, bool) {
	select {
	case f := <-w.C():
		return f, true
	default:
		return waitroom.Front{}, false
	}
}

func TestFronts(t *testing.T) {
	const show = 7
	front := func(through int64) waitroom.Front {
		return waitroom.Front{ShowID: show, Enabled: true, Open: true, Through: through, PerMinute: 600}
	}
	f := live.NewFronts()
	near := f.Watch(show, 1, 120) // 120 - 100 = 20 places from the front
	far := f.Watch(show, 2, 5000)
	unknown := f.Watch(show, 3, 0)
	other := f.Watch(show+1, 4, 1)

	if _, ok := f.Last(show); ok {
		t.Fatal("a front known before any was heard")
	}
	f.Publish(front(100))
	for name, w := range map[string]*live.FrontWatch{"near": near, "far": far, "unknown": unknown} {
		if got, ok := taken(w); !ok || got.Through != 100 {
			t.Fatalf("%s page: first front %+v, %v", name, got, ok)
		}
	}
	if _, ok := taken(other); ok {
		t.Fatal("another room's page was sent this room's front")
	}

	// The front moves: near the front, and a page that said no number,
	// hear every move; far back, not again within a few seconds.
	f.Publish(front(110))
	if got, ok := taken(near); !ok || got.Through != 110 {
		t.Fatalf("near page: %+v, %v", got, ok)
	}
	if got, ok := taken(unknown); !ok || got.Through != 110 {
		t.Fatalf("page without a number: %+v, %v", got, ok)
	}
	if got, ok := taken(far); ok {
		t.Fatalf("far page sent %+v a moment after the last", got)
	}
	// Only the latest is owed: a page that took nothing has one front
	// waiting, the newest.
	f.Publish(front(111))
	f.Publish(front(112))
	if got, ok := taken(near); !ok || got.Through != 112 {
		t.Fatalf("near page after two moves: %+v, %v", got, ok)
	}
	if _, ok := taken(near); ok {
		t.Fatal("a page was owed more than the latest front")
	}
	// Switched off, every page hears it at once.
	f.Publish(waitroom.Front{ShowID: show, Enabled: false, Open: true, Through: 1 << 62})
	if got, ok := taken(far); !ok || got.Enabled {
		t.Fatalf("far page when the room closed: %+v, %v", got, ok)
	}
	if last, ok := f.Last(show); !ok || last.Enabled {
		t.Fatalf("last front %+v, %v", last, ok)
	}
	// A page that comes later is handed the last front at once.
	late := f.Watch(show, 5, 9000)
	if got, ok := taken(late); !ok || got.Enabled {
		t.Fatalf("a late page: %+v, %v", got, ok)
	}
	late.Close()
	if ids := f.Watching(); len(ids) != 4 {
		t.Fatalf("watching %v, want the 4 open pages", ids)
	}
}

// A page far back hears the front again once farEvery has passed.
func TestFrontsFarPageEveryFewSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 5 s")
	}
	f := live.NewFronts()
	far := f.Watch(1, 1, 10000)
	f.Publish(waitroom.Front{ShowID: 1, Enabled: true, Open: true, Through: 10, PerMinute: 600})
	taken(far)
	deadline := time.Now().Add(time.Minute)
	for through := int64(11); ; through++ {
		f.Publish(waitroom.Front{ShowID: 1, Enabled: true, Open: true, Through: through, PerMinute: 600})
		if got, ok := taken(far); ok {
			if got.Through != through {
				t.Fatalf("far page sent %d, the latest is %d", got.Through, through)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a far page heard nothing for a minute of moves")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
