package admin_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// The pages of the largest grid a layout may have stay within these: 2,000
// seats over 1,000 x 1,000 cells made a show page of 50.6 MB and an editor
// of 114.5 MB.
const (
	maxShowPageBytes = 2 << 20
	maxEditorBytes   = 8 << 20
)

// 2,000 seats spread over a grid past 40,000 cells are refused by the
// editor's save, nothing stored; spread over exactly 40,000 they save, and
// the show page of that screen stays small.
func TestSparseLayoutBounded(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	b, id := largestScreen(t, e, "Sparse")
	path := fmt.Sprintf("/admin/screens/%d", id)
	seats := servedLayout(t, b.Get(t, path))
	// spread places the 40 rows and 50 columns of seats over a grid of
	// rows x cols cells, the last seats at its far corner.
	spread := func(rows, cols int) []editorSeat {
		out := append([]editorSeat(nil), seats...)
		for i := range out {
			r, c := i/50, i%50
			out[i].GridRow, out[i].GridCol = r*(rows-1)/39, c*(cols-1)/49
		}
		return out
	}

	before := e.Snapshot(t)
	stored := fmt.Sprint(storedSeats(t, e, id))
	for _, size := range [][2]int{{1000, 1000}, {200, 201}} {
		t.Run(fmt.Sprintf("%d x %d is refused", size[0], size[1]), func(t *testing.T) {
			p := b.Submit(t, path+"/seats", url.Values{"seats": {layoutJSON(t, spread(size[0], size[1]))}})
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			if msg := p.Text(`#editor-notice[role=alert]`); !strings.Contains(msg, fmt.Sprint(admin.MaxGridCells)) ||
				!strings.Contains(msg, fmt.Sprintf("%d rows by %d columns", size[0], size[1])) {
				t.Fatalf("notice: %q", msg)
			}
			if e.Snapshot(t) != before || fmt.Sprint(storedSeats(t, e, id)) != stored {
				t.Fatal("the layout changed")
			}
		})
	}

	t.Run("200 x 200 saves and its show page stays small", func(t *testing.T) {
		webtest.WantSeeOther(t, b.Submit(t, path+"/seats", url.Values{"seats": {layoutJSON(t, spread(200, 200))}}), path+"?saved=1")
		st := storedSeats(t, e, id)
		if len(st) != admin.MaxSeats || st[len(st)-1].GridRow != 199 || st[len(st)-1].GridCol != 199 {
			t.Fatalf("stored %d seats, the last at %d, %d", len(st), st[len(st)-1].GridRow, st[len(st)-1].GridCol)
		}
		startsAt := e.Now().Add(200 * time.Hour).Truncate(time.Hour)
		show, err := e.Store.CreateShow(t.Context(), catalog.Show{MovieID: e.Venue.MovieID, ScreenID: id, StartsAt: startsAt,
			EndsAt: startsAt.Add(2 * time.Hour), Currency: "INR", Prices: map[string]int64{"STANDARD": 25000}})
		if err != nil {
			t.Fatal(err)
		}
		page := e.Guest().Get(fmt.Sprintf("/shows/%d", show))
		webtest.Want(t, page, http.StatusOK)
		// The editor's bytes as they come, not parsed: 5 MB of HTML takes
		// goquery long under the race detector.
		resp, err := b.HTTP.Get(e.Srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		editor, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("editor: %d, %v", resp.StatusCode, err)
		}
		t.Logf("show page %d bytes, editor %d bytes", len(page.Body), len(editor))
		if len(page.Body) > maxShowPageBytes || len(editor) > maxEditorBytes {
			t.Fatalf("the show page is %d bytes (at most %d), the editor %d (at most %d)",
				len(page.Body), maxShowPageBytes, len(editor), maxEditorBytes)
		}
	})
}
