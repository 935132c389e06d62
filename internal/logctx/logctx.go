// Package logctx carries log attributes in a context: every record logged
// with that context through a Handler carries them too. A request's id is
// put in its context once, and every line logged about the request, by
// whichever package, names it.
package logctx

import (
	"context"
	"log/slog"
	"slices"
)

type attrsKey struct{}

// With returns ctx carrying attrs besides the attributes it carries already.
func With(ctx context.Context, attrs ...slog.Attr) context.Context {
	// Clipped, so that two contexts made from one never share what they append.
	return context.WithValue(ctx, attrsKey{}, append(slices.Clip(Attrs(ctx)), attrs...))
}

// Attrs returns the attributes ctx carries.
func Attrs(ctx context.Context) []slog.Attr {
	attrs, _ := ctx.Value(attrsKey{}).([]slog.Attr)
	return attrs
}

// Handler adds the attributes of each record's context to the record, then
// hands it to the handler it wraps.
type Handler struct{ next slog.Handler }

// NewHandler wraps h. A Handler is returned as it is: its records would
// otherwise carry the context's attributes twice.
func NewHandler(h slog.Handler) slog.Handler {
	if h, ok := h.(Handler); ok {
		return h
	}
	return Handler{next: h}
}

// Enabled reports whether the wrapped handler takes records of level.
func (h Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle adds ctx's attributes to r and passes it on.
func (h Handler) Handle(ctx context.Context, r slog.Record) error {
	if attrs := Attrs(ctx); len(attrs) > 0 {
		r = r.Clone() // the caller's record is left as it was
		r.AddAttrs(attrs...)
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs is the wrapped handler's WithAttrs, wrapped.
func (h Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return Handler{next: h.next.WithAttrs(attrs)}
}

// WithGroup is the wrapped handler's WithGroup, wrapped.
func (h Handler) WithGroup(name string) slog.Handler {
	return Handler{next: h.next.WithGroup(name)}
}
