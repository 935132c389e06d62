// Package gzjoin writes one gzip stream from parts compressed apart: text
// compressed as it is written, and Pieces compressed once and then copied
// into any number of streams. A page that embeds a large part many viewers
// share (a show's seat map, some 270 KB of HTML for a 1,000-seat hall)
// compresses only its own few kilobytes per view.
//
// It works because deflate data is a sequence of blocks: a compressor
// flushed (a sync flush) ends its output on a byte boundary, and a fresh
// compressor's blocks refer back to nothing written before them, so the
// blocks of separate compressors, laid end to end, are one valid deflate
// stream. The gzip trailer's checksum and length are of the whole text.
package gzjoin

import (
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"
)

// Piece is text compressed once, to be copied into gzip streams.
type Piece struct {
	text     string
	deflated []byte // a fresh compressor's blocks, sync-flushed, not final
	crc      uint32 // of text
}

// NewPiece compresses text.
func NewPiece(text string) *Piece {
	p := &Piece{text: text, crc: crc32.ChecksumIEEE([]byte(text))}
	var b sliceWriter
	fw := getFlate(&b)
	// Into memory: neither can fail.
	_, _ = io.WriteString(fw, text)
	_ = fw.Flush()
	putFlate(fw)
	p.deflated = b
	return p
}

// Text is the piece's text, uncompressed ("" for a nil piece).
func (p *Piece) Text() string {
	if p == nil {
		return ""
	}
	return p.text
}

// Size is the piece's compressed size (0 for a nil piece).
func (p *Piece) Size() int {
	if p == nil {
		return 0
	}
	return len(p.deflated)
}

// header is a gzip member's header: deflate, no name, no time, unknown OS.
var header = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// Writer writes one gzip stream to an io.Writer. Close ends it.
type Writer struct {
	out   io.Writer
	fw    *flate.Writer // nil until text is written after the header or a piece
	crc   uint32
	size  uint32
	err   error
	began bool
}

// NewWriter starts a gzip stream on out.
func NewWriter(out io.Writer) *Writer { return &Writer{out: out} }

func (w *Writer) begin() {
	if !w.began {
		w.began = true
		_, w.err = w.out.Write(header)
	}
}

// Write compresses p into the stream.
func (w *Writer) Write(p []byte) (int, error) {
	w.begin()
	if w.err != nil {
		return 0, w.err
	}
	if w.fw == nil {
		w.fw = getFlate(w.out)
	}
	n, err := w.fw.Write(p)
	w.crc = crc32.Update(w.crc, crc32.IEEETable, p[:n])
	w.size += uint32(n)
	if err != nil {
		w.err = err
	}
	return n, err
}

// WritePiece copies p's compressed blocks into the stream. The compressor
// of the text before it is flushed and let go: text after it starts a fresh
// one, which refers to nothing before.
func (w *Writer) WritePiece(p *Piece) error {
	w.begin()
	if w.err != nil {
		return w.err
	}
	if w.fw != nil {
		w.err = w.fw.Flush()
		putFlate(w.fw)
		w.fw = nil
		if w.err != nil {
			return w.err
		}
	}
	if _, w.err = w.out.Write(p.deflated); w.err != nil {
		return w.err
	}
	w.crc = crc32.Update(w.crc, crc32.IEEETable, []byte(p.text))
	w.size += uint32(len(p.text))
	return nil
}

// Close ends the deflate data with a final block and writes the trailer.
// It does not close the underlying writer.
func (w *Writer) Close() error {
	w.begin()
	if w.err != nil {
		return w.err
	}
	if w.fw == nil {
		w.fw = getFlate(w.out)
	}
	w.err = w.fw.Close() // the final block, empty if nothing is pending
	putFlate(w.fw)
	w.fw = nil
	if w.err != nil {
		return w.err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], w.crc)
	binary.LittleEndian.PutUint32(trailer[4:], w.size)
	_, w.err = w.out.Write(trailer[:])
	return w.err
}

// A compressor holds over a megabyte of tables and window: they are reused.
var flatePool sync.Pool

func getFlate(out io.Writer) *flate.Writer {
	if fw, ok := flatePool.Get().(*flate.Writer); ok {
		fw.Reset(out)
		return fw
	}
	fw, _ := flate.NewWriter(out, flate.DefaultCompression) // a valid level: no error
	return fw
}

func putFlate(fw *flate.Writer) {
	fw.Reset(io.Discard) // let go of the output
	flatePool.Put(fw)
}

type sliceWriter []byte

func (s *sliceWriter) Write(p []byte) (int, error) {
	*s = append(*s, p...)
	return len(p), nil
}
