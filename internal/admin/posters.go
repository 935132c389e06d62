package admin

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"runtime"
	"time"
)

// What decoding and resizing a poster may cost. A few compressed bytes can
// claim a picture that takes gigabytes to hold (a 1 x 39,999,999 PNG of
// 155 KB took 3.9 GB), so an upload is judged from its header, before it
// is decoded: its sides, its shape, and the memory the decoder and the
// resize would take for its size and pixel format.
const (
	// PosterMaxSide is the longest side, in pixels, a poster upload may
	// have.
	PosterMaxSide = 8000
	// PosterMaxAspect is how many times longer than the other one side
	// may be: a poster is about 2:3, and a strip is no poster.
	PosterMaxAspect = 4
	// PosterMemory bounds the memory one upload may take, by
	// posterMemory's estimate.
	PosterMemory = 192 << 20
	// posterWait is how long an upload waits for a decoding slot before
	// it is told to come back later.
	posterWait = 5 * time.Second
)

// ErrPosterBusy is an upload that found every decoding slot taken for
// posterWait: it may come back in a few seconds.
var ErrPosterBusy = errors.New("admin: every poster decoding slot is busy")

// PosterSizeError is an image refused from its header: too long a side,
// too odd a shape, or too many pixels of its format to resize. Message
// says which to the admin, and how to export it instead.
type PosterSizeError struct {
	Width, Height int
	Message       string
}

func (e *PosterSizeError) Error() string {
	return fmt.Sprintf("admin: poster of %dx%d pixels refused: %s", e.Width, e.Height, e.Message)
}

func (e *PosterSizeError) Unwrap() error { return ErrInvalidImage }

// checkPosterSize refuses an image of cfg, of content type kind, before it
// is decoded.
func checkPosterSize(cfg image.Config, kind string, data []byte) error {
	w, h := cfg.Width, cfg.Height
	refuse := func(format string, args ...any) error {
		return &PosterSizeError{Width: w, Height: h, Message: fmt.Sprintf(format, args...)}
	}
	long, short := max(w, h), min(w, h)
	switch {
	case long > PosterMaxSide:
		return refuse("This image is %d × %d pixels: a poster is at most %d pixels on its longer side. Export it smaller, such as 2000 × 3000 pixels, and upload it again.",
			w, h, PosterMaxSide)
	case long > PosterMaxAspect*short:
		return refuse("This image is %d × %d pixels, one side more than %d times the other: a poster is about 2:3 (say 2000 × 3000 pixels). Crop it and upload it again.",
			w, h, PosterMaxAspect)
	case posterMemory(cfg, kind, data) > PosterMemory:
		depth := ""
		if bytesPerPixel(cfg.ColorModel) > 4 {
			depth = " at 16 bits a channel"
		}
		return refuse("This image is %d × %d pixels%s, too large to resize. Export it smaller, such as 2000 × 3000 pixels at 8 bits a channel, and upload it again.",
			w, h, depth)
	}
	return nil
}

// posterMemory estimates, in bytes, the memory decoding and resizing an
// image of cfg takes, from what the decoders and the resize allocate: the
// decoded picture (two copies of it for an interlaced PNG, and a
// progressive JPEG's coefficients, 4 bytes a pixel a component), the
// CatmullRom scaler's buffer (the poster's width times the image's height,
// 32 bytes a cell), the poster itself and the upload.
func posterMemory(cfg image.Config, kind string, data []byte) int64 {
	w, h := int64(cfg.Width), int64(cfg.Height)
	pixels := w * h
	var decoded int64
	switch kind {
	case "image/png":
		bpp := int64(bytesPerPixel(cfg.ColorModel))
		decoded = pixels*bpp + 2*(w*bpp+1) // the picture, and the decoder's two rows
		if len(data) > 28 && data[28] == 1 {
			decoded *= 2 // Adam7: each pass decoded apart, then merged
		}
	case "image/jpeg":
		components := int64(bytesPerPixel(cfg.ColorModel))
		decoded = pixels * components * 2 // the planes, and a CMYK's conversion
		if jpegProgressive(data) {
			decoded += pixels * components * 4
		}
	default: // WebP
		decoded = pixels * 4
		if cfg.ColorModel == color.NRGBAModel {
			decoded = pixels * 12 // lossless: its ARGB words, the picture and transforms
		}
	}
	pw, ph := posterFit(cfg.Width, cfg.Height)
	resize := int64(pw) * int64(ph) * 4
	if pw != cfg.Width || ph != cfg.Height {
		resize += int64(pw) * h * 32
	}
	return decoded + resize + int64(len(data))
}

// bytesPerPixel is the size of a decoded pixel of m (for a JPEG, the
// number of its components).
func bytesPerPixel(m color.Model) int {
	switch m {
	case color.GrayModel:
		return 1
	case color.Gray16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8 // RGBA64, NRGBA64, or unknown: the most there is
}

// jpegProgressive reports whether a JPEG's frame is progressive, reading
// its markers up to the frame header; what cannot be read counts as
// progressive, the costlier.
func jpegProgressive(data []byte) bool {
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff {
			return true
		}
		switch m := data[i+1]; {
		case m == 0xff: // fill byte
			i++
			continue
		case m == 0xc2 || m == 0xc6 || m == 0xca || m == 0xce:
			return true
		case m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc:
			return false
		case m == 0x01 || m >= 0xd0 && m <= 0xd9:
			i += 2
			continue
		}
		i += 2 + int(data[i+2])<<8 | int(data[i+3])
	}
	return true
}

// posterSlots bounds how many posters are decoded at once: one per core,
// so that PosterMemory times the cores bounds the memory they take.
type posterSlots chan struct{}

func newPosterSlots() posterSlots { return make(posterSlots, max(1, runtime.GOMAXPROCS(0))) }

// acquire takes a slot, waiting at most posterWait (ErrPosterBusy) or
// until ctx ends (its error).
func (p posterSlots) acquire(ctx context.Context) error {
	wait := time.NewTimer(posterWait)
	defer wait.Stop()
	select {
	case p <- struct{}{}:
		return nil
	case <-wait.C:
		return ErrPosterBusy
	case <-ctx.Done():
		return fmt.Errorf("wait to decode a poster: %w", ctx.Err())
	}
}

func (p posterSlots) release() { <-p }

// ctxReader fails its reads once ctx is done, so that a decoder reading
// from it stops at the request's deadline.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	// Small reads, so that a decoder checks the context often even when
	// a few bytes decode to many pixels.
	return c.r.Read(b[:min(len(b), 4<<10)])
}
