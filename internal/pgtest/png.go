package pgtest

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
)

// PNG colour types, for PlainPNG.
const (
	PNGGray = 0
	PNGRGBA = 6
)

// PlainPNG is a PNG of width x height pixels of one colour, of colorType
// (PNGGray or PNGRGBA) at depth bits a channel (8 or 16), written row by
// row without holding the picture: a few hundred KB can claim an image
// of gigabytes, which is what the poster tests need.
func PlainPNG(width, height int, colorType byte, depth int) []byte {
	channels := map[byte]int{PNGGray: 1, PNGRGBA: 4}[colorType]
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(data)))
		out.Write(n[:])
		crc := crc32.NewIEEE()
		crc.Write([]byte(kind))
		crc.Write(data)
		out.WriteString(kind)
		out.Write(data)
		binary.BigEndian.PutUint32(n[:], crc.Sum32())
		out.Write(n[:])
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = byte(depth), colorType
	chunk("IHDR", ihdr)

	// Each row: filter type 0, then the same bytes (a grey, half
	// transparent with RGBA).
	row := make([]byte, 1+width*channels*depth/8)
	for i := 1; i < len(row); i++ {
		row[i] = 0x80
	}
	// The rows are compressed a block of rows at a time, each block on its
	// own (no reference back past its start), so one compressed block
	// stands for all the same blocks: the stream costs a few KB of work
	// whatever size it claims, even under the race detector.
	perBlock := max(1, (64<<10)/len(row))
	block := bytes.Repeat(row, min(perBlock, height))
	idat := []byte{0x78, 0x01} // zlib header: deflate, 32 KiB window
	sum := uint32(1)           // Adler-32 of nothing
	compressed := deflated(block)
	blockSum := adler32.Checksum(block)
	for left := height; left > 0; left -= perBlock {
		if left >= perBlock {
			idat, sum = append(idat, compressed...), adler32Combine(sum, blockSum, len(block))
			continue
		}
		tail := block[:left*len(row)]
		idat, sum = append(idat, deflated(tail)...), adler32Combine(sum, adler32.Checksum(tail), len(tail))
	}
	idat = append(idat, 0x03, 0x00) // a last, empty, fixed-Huffman block
	idat = binary.BigEndian.AppendUint32(idat, sum)
	chunk("IDAT", idat)
	chunk("IEND", nil)
	return out.Bytes()
}

// deflated is data as deflate blocks, none of them final, ending on a
// byte boundary.
func deflated(data []byte) []byte {
	// Writing to a bytes.Buffer cannot fail.
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	_, _ = w.Write(data)
	_ = w.Flush()
	return b.Bytes()
}

// adler32Combine is the Adler-32 of two byte strings one after the other,
// from theirs and the second's length (zlib's adler32_combine).
func adler32Combine(sum1, sum2 uint32, len2 int) uint32 {
	const base = 65521
	rem := uint64(len2 % base)
	a1, b1 := uint64(sum1&0xffff), uint64(sum1>>16)
	a2, b2 := uint64(sum2&0xffff), uint64(sum2>>16)
	a := (a1 + a2 + base - 1) % base
	b := (b1 + b2 + rem*a1 + 2*base - rem) % base
	return uint32(b<<16 | a)
}
