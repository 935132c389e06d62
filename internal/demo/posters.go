package demo

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"github.com/marquee-tickets/marquee/internal/catalog"
)

// The demo's posters are drawn when the demo loads, from a few shapes and
// the title, so the demo needs no image files and no network. They are
// PNGs of PosterWidth x PosterHeight: twice the size a page shows them at,
// for sharp screens.
const (
	PosterWidth  = 320
	PosterHeight = 480
)

// art is what one demo poster shows: a sky from top to bottom colour, a
// motif drawn over it, and a sentence describing both for people who
// cannot see it.
type art struct {
	top, bottom color.RGBA
	motif       func(c *canvas)
	describe    string // completes "Poster of <title>: ..."
}

// arts are the posters of the demo movies, in the order of movies.
var arts = []art{
	{ // The Monsoon Cartographer
		top: rgb(0x5b6b7a), bottom: rgb(0xb8c4c9),
		describe: "green ridges of hills under grey rain clouds",
		motif: func(c *canvas) {
			for i := range 40 {
				x := float32(i*23%PosterWidth) + 4
				y := float32(i*37%220) + 40
				c.polygon(rgba(0xe6eef2, 0x90), x, y, x+2, y, x-10, y+34, x-12, y+34)
			}
			c.circle(rgb(0x8e9aa3), 70, 70, 50)
			c.circle(rgb(0x8e9aa3), 140, 55, 62)
			c.circle(rgb(0x8e9aa3), 220, 75, 52)
			c.circle(rgb(0x8e9aa3), 280, 60, 45)
			c.polygon(rgb(0x4f7d55), 0, 300, 70, 210, 140, 280, 230, 190, 320, 270, 320, 480, 0, 480)
			c.polygon(rgb(0x2f5d3a), 0, 350, 90, 280, 170, 340, 260, 270, 320, 320, 320, 480, 0, 480)
			c.polygon(rgb(0x1c3d27), 0, 400, 120, 340, 220, 390, 320, 350, 320, 480, 0, 480)
		},
	},
	{ // Last Local to Churchgate
		top: rgb(0x0d1b3d), bottom: rgb(0x31426e),
		describe: "a lit local train crossing the city at night under a full moon",
		motif: func(c *canvas) {
			c.circle(rgb(0xf6e7b0), 240, 90, 44)
			for i, h := range []float32{120, 170, 90, 200, 140, 110, 180, 130} {
				x := float32(i * 40)
				c.rect(rgb(0x1a2547), x, 360-h, x+36, 360)
			}
			c.rect(rgb(0x8b1e2d), 10, 300, 310, 350)
			c.rect(rgb(0x6d1522), 10, 340, 310, 350)
			for i := range 9 {
				x := float32(22 + i*32)
				c.rect(rgb(0xffd166), x, 310, x+20, 328)
			}
			c.rect(rgb(0x50586e), 0, 352, 320, 358)
		},
	},
	{ // Grandmother's Chess Club
		top: rgb(0x6b2d3a), bottom: rgb(0xd9b99b),
		describe: "a chess pawn standing on a checkered board",
		motif: func(c *canvas) {
			const size = 40
			for r := range 4 {
				for col := range 8 {
					if (r+col)%2 == 0 {
						c.rect(rgb(0x3a1f1a), float32(col*size), float32(300+r*size), float32(col*size+size), float32(300+r*size+size))
					} else {
						c.rect(rgb(0xf3e3cf), float32(col*size), float32(300+r*size), float32(col*size+size), float32(300+r*size+size))
					}
				}
			}
			c.circle(rgb(0xf8f1e6), 160, 150, 34)
			c.polygon(rgb(0xf8f1e6), 140, 180, 180, 180, 205, 290, 115, 290)
			c.rect(rgb(0xf8f1e6), 100, 282, 220, 304)
		},
	},
	{ // Signal Lost at Kalsubai
		top: rgb(0x1b1033), bottom: rgb(0x4b2a63),
		describe: "a lone mountain peak at night with radio waves rising from its summit",
		motif: func(c *canvas) {
			for i := 4; i >= 1; i-- {
				c.ring(rgba(0x9be7ff, uint8(40+30*(4-i))), 160, 170, float32(i*34), float32(i*34-8))
			}
			c.polygon(rgb(0x120a22), 0, 420, 120, 260, 160, 170, 200, 250, 320, 380, 320, 480, 0, 480)
			c.circle(rgb(0xff5a5f), 160, 170, 6)
		},
	},
	{ // Orbit of Small Things
		top: rgb(0x050814), bottom: rgb(0x15224a),
		describe: "a small satellite circling an orange planet among stars",
		motif: func(c *canvas) {
			r := rand.New(rand.NewPCG(4, 2))
			for range 60 {
				c.circle(rgb(0xffffff), r.Float32()*PosterWidth, r.Float32()*300, 0.6+r.Float32()*1.2)
			}
			c.circle(rgb(0xf08a24), 160, 190, 78)
			c.circle(rgb(0xd06a14), 185, 210, 40)
			c.ellipseRing(rgba(0xcfe3ff, 0xc0), 160, 190, 140, 34, 3)
			c.rect(rgb(0xe8edf5), 282, 196, 296, 208)
			c.rect(rgb(0x6fa8ff), 270, 199, 281, 205)
			c.rect(rgb(0x6fa8ff), 297, 199, 308, 205)
		},
	},
	{ // Paper Moons Over Hampi
		top: rgb(0xf28c6b), bottom: rgb(0xf9d8a7),
		describe: "three paper moons hanging over rounded boulder hills at dusk",
		motif: func(c *canvas) {
			for _, m := range [][3]float32{{70, 90, 30}, {170, 60, 22}, {250, 120, 38}} {
				c.rect(rgba(0x7a4a2a, 0x80), m[0]-0.75, 0, m[0]+0.75, m[1]-m[2])
				c.circle(rgb(0xfff4dc), m[0], m[1], m[2])
			}
			c.circle(rgb(0xa0613b), 60, 360, 90)
			c.circle(rgb(0x8c5232), 190, 380, 110)
			c.circle(rgb(0xb5714a), 300, 350, 70)
			c.rect(rgb(0x7a4428), 0, 400, 320, 480)
		},
	},
}

// drawn keeps each poster once drawn: drawing and compressing one takes
// tens of milliseconds (far more under the race detector), and a process
// that loads the demo many times, as the tests do, would redraw the same
// pictures for every database.
var drawn struct {
	sync.Mutex
	posters map[posterKey]catalog.Poster
}

type posterKey struct {
	art   int
	title string
}

// posterOf gives the poster of the demo movie numbered i, drawn on first use.
// The caller may keep the Poster but must not change its bytes.
func posterOf(i int, m catalog.Movie) (catalog.Poster, error) {
	k := posterKey{art: i % len(arts), title: m.Title}
	drawn.Lock()
	defer drawn.Unlock()
	if p, ok := drawn.posters[k]; ok {
		return p, nil
	}
	p, err := drawPoster(k.art, m)
	if err != nil {
		return catalog.Poster{}, err
	}
	if drawn.posters == nil {
		drawn.posters = make(map[posterKey]catalog.Poster)
	}
	drawn.posters[k] = p
	return p, nil
}

// drawPoster draws the poster of movie m in the art numbered art.
func drawPoster(art int, m catalog.Movie) (catalog.Poster, error) {
	a := arts[art]
	img := image.NewRGBA(image.Rect(0, 0, PosterWidth, PosterHeight))
	// The sky: one colour a row, which PNG's filters store in a few bytes.
	for y := range PosterHeight {
		f := float64(y) / (PosterHeight - 1)
		draw.Draw(img, image.Rect(0, y, PosterWidth, y+1), image.NewUniform(mix(a.top, a.bottom, f)), image.Point{}, draw.Src)
	}
	c := &canvas{img: img}
	a.motif(c)
	if err := c.title(m.Title); err != nil {
		return catalog.Poster{}, fmt.Errorf("demo poster of %q: %w", m.Title, err)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
		return catalog.Poster{}, fmt.Errorf("demo poster of %q: %w", m.Title, err)
	}
	return catalog.Poster{
		PosterInfo: catalog.PosterInfo{
			Width: PosterWidth, Height: PosterHeight,
			Alt: "Poster of " + m.Title + ": " + a.describe,
		},
		ContentType: "image/png",
		Data:        buf.Bytes(),
	}, nil
}

// canvas draws filled, anti-aliased shapes on an image.
type canvas struct {
	img *image.RGBA
	z   vector.Rasterizer
}

func (c *canvas) fill(col color.Color, path func(z *vector.Rasterizer)) {
	c.z.Reset(PosterWidth, PosterHeight)
	c.z.DrawOp = draw.Over
	path(&c.z)
	c.z.Draw(c.img, c.img.Bounds(), image.NewUniform(col), image.Point{})
}

// polygon fills the polygon through the points x0, y0, x1, y1, ...
func (c *canvas) polygon(col color.Color, xy ...float32) {
	c.fill(col, func(z *vector.Rasterizer) {
		z.MoveTo(xy[0], xy[1])
		for i := 2; i+1 < len(xy); i += 2 {
			z.LineTo(xy[i], xy[i+1])
		}
		z.ClosePath()
	})
}

func (c *canvas) rect(col color.Color, x0, y0, x1, y1 float32) {
	c.polygon(col, x0, y0, x1, y0, x1, y1, x0, y1)
}

func (c *canvas) circle(col color.Color, cx, cy, r float32) {
	c.fill(col, func(z *vector.Rasterizer) { ellipse(z, cx, cy, r, r, false) })
}

// ring fills the band between two circles of one centre.
func (c *canvas) ring(col color.Color, cx, cy, outer, inner float32) {
	c.fill(col, func(z *vector.Rasterizer) {
		ellipse(z, cx, cy, outer, outer, false)
		ellipse(z, cx, cy, inner, inner, true) // the other way round: a hole
	})
}

// ellipseRing fills an elliptical band of width w.
func (c *canvas) ellipseRing(col color.Color, cx, cy, rx, ry, w float32) {
	c.fill(col, func(z *vector.Rasterizer) {
		ellipse(z, cx, cy, rx, ry, false)
		ellipse(z, cx, cy, rx-w, ry-w, true)
	})
}

// ellipse adds an ellipse to z as four cubic arcs, clockwise on screen
// unless reverse.
func ellipse(z *vector.Rasterizer, cx, cy, rx, ry float32, reverse bool) {
	const k = 0.5523 // control point distance of a quarter circle
	s := float32(1)
	if reverse {
		s = -1
	}
	z.MoveTo(cx+rx, cy)
	z.CubeTo(cx+rx, cy+s*k*ry, cx+k*rx, cy+s*ry, cx, cy+s*ry)
	z.CubeTo(cx-k*rx, cy+s*ry, cx-rx, cy+s*k*ry, cx-rx, cy)
	z.CubeTo(cx-rx, cy-s*k*ry, cx-k*rx, cy-s*ry, cx, cy-s*ry)
	z.CubeTo(cx+k*rx, cy-s*ry, cx+rx, cy-s*k*ry, cx+rx, cy)
	z.ClosePath()
}

// title sets the movie's title in the poster's foot, on a dark band, in
// as few lines of up to three as fit the width.
func (c *canvas) title(text string) error {
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		return err
	}
	const margin = 20
	for size := 34.0; size >= 16; size -= 2 {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			return err
		}
		lines := wrap(face, strings.ToUpper(text), PosterWidth-2*margin)
		if len(lines) > 3 {
			face.Close()
			continue
		}
		lineHeight := face.Metrics().Height.Ceil()
		top := PosterHeight - margin - len(lines)*lineHeight
		c.rect(rgba(0x000000, 0xa0), 0, float32(top-margin), PosterWidth, PosterHeight)
		d := &font.Drawer{Dst: c.img, Src: image.NewUniform(rgb(0xfffaf0)), Face: face}
		for i, line := range lines {
			w := d.MeasureString(line)
			d.Dot = fixed.Point26_6{
				X: (fixed.I(PosterWidth) - w) / 2,
				Y: fixed.I(top + i*lineHeight + face.Metrics().Ascent.Ceil()),
			}
			d.DrawString(line)
		}
		return face.Close()
	}
	return fmt.Errorf("title %q does not fit", text)
}

// wrap breaks text into lines no wider than width in face.
func wrap(face font.Face, text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		next := strings.TrimSpace(line + " " + word)
		if line != "" && font.MeasureString(face, next).Ceil() > width {
			lines = append(lines, line)
			next = word
		}
		line = next
	}
	return append(lines, line)
}

func rgb(hex uint32) color.RGBA { return rgba(hex, 0xff) }

// rgba is a colour of alpha a, premultiplied as color.RGBA wants.
func rgba(hex uint32, a uint8) color.RGBA {
	p := func(v uint32) uint8 { return uint8(v * uint32(a) / 0xff) }
	return color.RGBA{R: p(hex >> 16 & 0xff), G: p(hex >> 8 & 0xff), B: p(hex & 0xff), A: a}
}

func mix(a, b color.RGBA, f float64) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-f) + float64(y)*f)) }
	return color.RGBA{R: m(a.R, b.R), G: m(a.G, b.G), B: m(a.B, b.B), A: m(a.A, b.A)}
}
