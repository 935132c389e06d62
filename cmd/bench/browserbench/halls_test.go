package browserbench

import (
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/cmd/bench/seed"
)

func TestHalls(t *testing.T) {
	want := map[string]struct {
		rows, cols int
		clicks     string
	}{
		"large": {15, 24, "seat-O11 seat-O12 seat-O13 seat-O14 seat-O15"},
		"mega":  {25, 40, "seat-Y19 seat-Y20 seat-Y21 seat-Y22 seat-Y23"},
	}
	for _, h := range benchHalls() {
		if err := h.shape(); err != nil {
			t.Fatal(err)
		}
		w := want[h.key]
		if h.rows != w.rows || h.cols != w.cols {
			t.Errorf("%s: %d rows of %d, want %d of %d", h.key, h.rows, h.cols, w.rows, w.cols)
		}
		if got := strings.Join(h.clickSeats(), " "); got != w.clicks {
			t.Errorf("%s clicks %s, want %s", h.key, got, w.clicks)
		}
	}
	t.Run("a hall whose rows differ does not fit the stream", func(t *testing.T) {
		seats := seed.Grid(2, 4)
		h := &benchHall{key: "odd", name: "Odd", seats: seats[:7]}
		if err := h.shape(); err == nil {
			t.Error("shape of a hall with a short row: no error")
		}
	})
}
