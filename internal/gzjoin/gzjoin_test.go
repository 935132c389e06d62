package gzjoin_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/gzjoin"
)

// gunzip reads a stream as browsers do, one member.
func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r.Multistream(false)
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("the joined stream does not decode: %v", err)
	}
	return string(out)
}

func TestWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		// Repetitive, as HTML is, so the compressors refer back a lot.
		words := []string{`<button class="seat" data-seat="`, `A1`, `" data-status="available">`, `</button>`, "\n", `<div>`}
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	for _, tc := range []struct {
		name  string
		parts []any // string: text; *gzjoin.Piece
	}{
		{"nothing", nil},
		{"text only", []any{text(10_000)}},
		{"a piece only", []any{gzjoin.NewPiece(text(300_000))}},
		{"text, a piece, text", []any{text(5_000), gzjoin.NewPiece(text(300_000)), text(7_000)}},
		{"pieces side by side and an empty one", []any{gzjoin.NewPiece(text(70_000)), gzjoin.NewPiece(""), gzjoin.NewPiece(text(40_000)), text(3)}},
		{"the same text before and after the piece", []any{text(1_000), gzjoin.NewPiece(text(1_000)), text(1_000)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var want strings.Builder
			w := gzjoin.NewWriter(&out)
			for _, p := range tc.parts {
				switch p := p.(type) {
				case string:
					for len(p) > 0 { // in uneven writes
						k := min(len(p), 1+rng.IntN(4096))
						if _, err := w.Write([]byte(p[:k])); err != nil {
							t.Fatal(err)
						}
						want.WriteString(p[:k])
						p = p[k:]
					}
				case *gzjoin.Piece:
					if err := w.WritePiece(p); err != nil {
						t.Fatal(err)
					}
					want.WriteString(p.Text())
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := gunzip(t, out.Bytes()); got != want.String() {
				t.Fatalf("decoded %d bytes, want %d, and they differ", len(got), want.Len())
			}
		})
	}

	t.Run("a piece is shared: copied into many streams, each decodes", func(t *testing.T) {
		p := gzjoin.NewPiece(text(200_000))
		if p.Size() >= len(p.Text())/4 {
			t.Fatalf("a piece of %d bytes compressed to %d: not compressed", len(p.Text()), p.Size())
		}
		for i := range 3 {
			var out bytes.Buffer
			w := gzjoin.NewWriter(&out)
			head := strings.Repeat("x", i*100)
			if _, err := w.Write([]byte(head)); err != nil {
				t.Fatal(err)
			}
			if err := w.WritePiece(p); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := gunzip(t, out.Bytes()); got != head+p.Text() {
				t.Fatal("a stream sharing the piece decodes to something else")
			}
		}
	})
}
