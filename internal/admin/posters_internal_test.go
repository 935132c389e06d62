package admin

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// An upload that finds every decoding slot taken waits posterWait, then is
// told to come back (ErrPosterBusy); one whose request ends is given up,
// and its slot comes back once the work has stopped.
func TestPosterSlots(t *testing.T) {
	t.Parallel()
	data := pgtest.PlainPNG(700, 1050, pgtest.PNGRGBA, 8)

	t.Run("every slot taken", func(t *testing.T) {
		t.Parallel()
		s := &Service{}
		slots := s.posterSlots()
		for range cap(slots) {
			slots <- struct{}{}
		}
		if _, err := s.encodePoster(t.Context(), data); !errors.Is(err, ErrPosterBusy) {
			t.Fatalf("encodePoster with every slot taken = %v, want ErrPosterBusy", err)
		}
	})
	t.Run("the request ends", func(t *testing.T) {
		t.Parallel()
		s := &Service{}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if p, err := s.encodePoster(ctx, data); !errors.Is(err, context.Canceled) || p.Data != nil {
			t.Fatalf("encodePoster of an ended request = %d bytes, %v; want context.Canceled", len(p.Data), err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(s.posterSlots()) > 0 {
			if time.Now().After(deadline) {
				t.Fatal("the slot was not given back within 30 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
